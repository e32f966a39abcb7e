package mysqlfix

import (
	"bytes"
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Results wraps the wire handler to correct the result packets GMS and
// vitess write differently from MySQL 8:
//
//   - DATETIME(n) and TIMESTAMP(n) values print all n fractional digits
//     (MySQL: 2024-01-01 00:00:00.000000 in a DATETIME(6), .500 in a
//     DATETIME(3)); GMS formats them with Go's .999999 layout, which drops
//     trailing zeros and a zero fraction.
//
//   - An OK packet's info string (PREPARE's "Statement prepared") is
//     read by the C clients (libmysqlclient, libmariadb) as a
//     length-encoded string; vitess writes a '#' byte (35) before it
//     instead of its length, so an info shorter than 35 bytes makes the
//     client fail with 2027 "malformed packet". The info is padded with
//     spaces to 35 bytes, which the C clients read exactly and show as
//     MySQL's text. (Longer infos, UPDATE's "Rows matched: ..." counts,
//     parse already.)
//
//   - TIMESTAMP(n) columns announce n decimals, as DATETIME(n) ones do
//     (GMS leaves them 0, so clients print a TIMESTAMP(6) without its
//     fraction); the precision comes from the statement's result schema,
//     which ResultSchema returns for the connection when set.
//
// It is safe for concurrent use if the wrapped handler is.
type Results struct {
	mysql.Handler
	ResultSchema func(c *mysql.Conn) sql.Schema
}

// ComQuery implements mysql.Handler.
func (h Results) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	f := h.fixer(c)
	return h.Handler.ComQuery(ctx, c, q, func(r *sqltypes.Result, more bool) error { return cb(f.fix(r), more) })
}

// ComMultiQuery implements mysql.Handler.
func (h Results) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (string, error) {
	f := h.fixer(c)
	return h.Handler.ComMultiQuery(ctx, c, q, func(r *sqltypes.Result, more bool) error { return cb(f.fix(r), more) })
}

// ComStmtExecute implements mysql.Handler.
func (h Results) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	f := h.fixer(c)
	return h.Handler.ComStmtExecute(ctx, c, p, func(r *sqltypes.Result) error { return cb(f.fix(r)) })
}

// vitessInfoLength is the length C clients read from the '#' vitess
// writes before an OK packet's info.
const vitessInfoLength = '#'

func (h Results) fixer(c *mysql.Conn) *resultFixer {
	f := &resultFixer{}
	if h.ResultSchema != nil {
		f.schema = func() sql.Schema { return h.ResultSchema(c) }
	}
	return f
}

// resultFixer corrects one command's results. GMS sends a result set's
// fields with its first batch of rows only, so it keeps them for the
// later batches.
type resultFixer struct {
	fields []*querypb.Field
	schema func() sql.Schema // the running statement's result schema, or nil
}

// timestampDecimals sets the decimals of TIMESTAMP fields from the result
// schema, when it is the one these fields describe.
func (f *resultFixer) timestampDecimals(fields []*querypb.Field) {
	var sch sql.Schema
	for i, fd := range fields {
		if fd.Type != sqltypes.Timestamp || fd.Decimals != 0 {
			continue
		}
		if sch == nil && f.schema != nil {
			sch = f.schema()
		}
		if len(sch) != len(fields) {
			return
		}
		if dt, ok := sch[i].Type.(sql.DatetimeType); ok && types.IsTimestampType(dt) && sch[i].Name == fd.Name {
			fd.Decimals = uint32(dt.Precision())
		}
	}
}

func (f *resultFixer) fix(r *sqltypes.Result) *sqltypes.Result {
	if r == nil {
		return r
	}
	if r.Info != "" && len(r.Info) < vitessInfoLength {
		r.Info += strings.Repeat(" ", vitessInfoLength-len(r.Info))
	}
	if len(r.Fields) > 0 {
		f.fields = r.Fields
		f.timestampDecimals(r.Fields)
	}
	for i, fd := range f.fields {
		if !fractional(fd.Type) || fd.Decimals == 0 {
			continue
		}
		for _, row := range r.Rows {
			if i < len(row) && !row[i].IsNull() {
				row[i] = sqltypes.MakeTrusted(row[i].Type(), PadFraction(row[i].Raw(), int(fd.Decimals)))
			}
		}
	}
	return r
}

func fractional(t querypb.Type) bool {
	return t == sqltypes.Datetime || t == sqltypes.Timestamp
}

// PadFraction is the text of a DATETIME or TIMESTAMP value with exactly
// digits fractional digits (1..6), as MySQL prints a column of that
// precision. b is not modified.
func PadFraction(b []byte, digits int) []byte {
	if digits <= 0 || digits > 6 {
		return b
	}
	have := 0
	if dot := bytes.LastIndexByte(b, '.'); dot >= 0 && bytes.IndexByte(b[dot:], ':') < 0 {
		have = len(b) - dot - 1
	}
	out := make([]byte, 0, len(b)+digits+1)
	switch {
	case have == 0:
		out = append(append(out, b...), '.')
	case have > digits:
		return append(out, b[:len(b)-(have-digits)]...) // GMS rounded to the column already
	default:
		out = append(out, b...)
	}
	for range digits - have {
		out = append(out, '0')
	}
	return out
}

// TemporalSQL is t.SQL(v) with MySQL's fractional digits: the embedded
// API's text of a value, like a wire client's.
func TemporalSQL(ctx *sql.Context, t sql.Type, v any) (sqltypes.Value, error) {
	sv, err := t.SQL(ctx, nil, v)
	if err != nil || sv.IsNull() {
		return sv, err
	}
	if dt, ok := t.(sql.DatetimeType); ok && (types.IsDatetimeType(t) || types.IsTimestampType(t)) && dt.Precision() > 0 {
		sv = sqltypes.MakeTrusted(sv.Type(), PadFraction(sv.Raw(), dt.Precision()))
	}
	return sv, nil
}

// ResultSchemaRecorder is a session that keeps the result schema of its
// running statement for Results (the engine's session).
type ResultSchemaRecorder interface {
	RecordResultSchema(sql.Schema)
}

// recordResultSchema hands the analysed top-level statement's schema to
// the session, when it keeps one.
func recordResultSchema(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope != nil && !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	if r, ok := ctx.Session.(ResultSchemaRecorder); ok {
		r.RecordResultSchema(n.Schema())
	}
	return n, transform.SameTree, nil
}
