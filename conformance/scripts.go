package conformance

import (
	"bufio"
	"context"
	"crypto/md5"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	gmssql "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/sqllogictest/go/logictest/parser"
	"github.com/dolthub/vitess/go/mysql"
	gomysql "github.com/go-sql-driver/mysql"

	"github.com/lakesql/lakesql/engine"
)

// ScriptEngine is the engine name lakesql's scripts match in skipif/onlyif.
const ScriptEngine = "lakesql"

// ErrorWant is a "# error: CODE fragment" annotation: the MySQL error code a
// statement must fail with and a case-insensitive fragment of the message
// (empty: any message).
type ErrorWant struct {
	Code     uint16
	Fragment string
}

// ExplainWant is a "# explain: FRAGMENT" annotation: the query's plan
// (EXPLAIN FORMAT=TREE) must contain Fragment, or with Absent (written
// "# explain: !FRAGMENT") must not.
type ExplainWant struct {
	Fragment string
	Absent   bool
}

// Script is a parsed lakesql script: the sqllogictest records and the
// error, explain and exact annotations, keyed by the record's line number.
type Script struct {
	Path     string
	Records  []*parser.Record
	Errors   map[int]ErrorWant
	Explains map[int][]ExplainWant
	// Exact marks queries annotated "# exact": their R values are
	// compared as the text the engine returns (a DECIMAL's scale and
	// every digit), not rounded to three decimals.
	Exact map[int]bool
}

var (
	errorNote   = regexp.MustCompile(`^#\s*error:\s*(\d+)\s*(.*?)\s*$`)
	explainNote = regexp.MustCompile(`^#\s*explain:\s*(!?)\s*(.*?)\s*$`)
	exactNote   = regexp.MustCompile(`^#\s*exact\s*$`)
)

// ParseScript parses a lakesql script. It fails on a "# error:" line that
// is not right before a "statement error" record, on a "statement error"
// record without one, on "# explain:" lines not right before a "query" or
// "statement error" record, and on "# exact" lines not right before a
// "query" record.
func ParseScript(path string) (*Script, error) {
	records, err := parser.ParseTestFile(path)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Script{Path: path, Records: records, Errors: map[int]ErrorWant{}, Explains: map[int][]ExplainWant{}, Exact: map[int]bool{}}
	var pending *ErrorWant
	var explains []ExplainWant
	exact := false
	pendingLine, explainLine := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if m := errorNote.FindStringSubmatch(line); m != nil {
			code, err := strconv.ParseUint(m[1], 10, 16)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: error code %q: %w", path, n, m[1], err)
			}
			pending, pendingLine = &ErrorWant{Code: uint16(code), Fragment: m[2]}, n
			continue
		}
		if m := explainNote.FindStringSubmatch(line); m != nil {
			if m[2] == "" {
				return nil, fmt.Errorf("%s:%d: \"# explain:\" needs a plan fragment", path, n)
			}
			if explains == nil && !exact {
				explainLine = n
			}
			explains = append(explains, ExplainWant{Fragment: m[2], Absent: m[1] == "!"})
			continue
		}
		if exactNote.MatchString(line) {
			if explains == nil && !exact {
				explainLine = n
			}
			exact = true
			continue
		}
		if pending == nil && explains == nil && !exact {
			continue
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) > 0 && (fields[0] == "skipif" || fields[0] == "onlyif"):
			continue
		case pending != nil && !exact && len(fields) == 2 && fields[0] == "statement" && fields[1] == "error":
			// The record's line is that of its SQL, the next line. A
			// query that fails may have its plan checked too.
			s.Errors[n+1] = *pending
			if explains != nil {
				s.Explains[n+1] = explains
			}
			pending, explains = nil, nil
		case pending == nil && len(fields) > 0 && fields[0] == "query":
			if explains != nil {
				s.Explains[n+1] = explains
			}
			s.Exact[n+1] = exact
			explains, exact = nil, false
		case pending != nil:
			return nil, fmt.Errorf("%s:%d: \"# error:\" must be right before a \"statement error\" record", path, pendingLine)
		default:
			return nil, fmt.Errorf("%s:%d: \"# explain:\" and \"# exact\" must be right before a \"query\" record", path, explainLine)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: \"# error:\" at the end of the file", path, pendingLine)
	}
	if explains != nil || exact {
		return nil, fmt.Errorf("%s:%d: \"# explain:\" or \"# exact\" at the end of the file", path, explainLine)
	}
	for _, r := range records {
		if r.Type() == parser.Statement && r.ExpectError() {
			if _, ok := s.Errors[r.LineNum()]; !ok {
				return nil, fmt.Errorf("%s:%d: statement error without a \"# error: CODE fragment\" line before it", path, r.LineNum())
			}
		}
	}
	return s, nil
}

// AnyValue is an expected value that matches any value but NULL (a
// lakesql extension, for values such as creation times).
const AnyValue = "(any)"

// Executor runs statements on one session.
type Executor interface {
	// Exec runs a statement and discards any rows.
	Exec(ctx context.Context, stmt string) error
	// Query runs a query and returns its schema, one letter a column (I
	// integer, R decimal or floating point, T anything else), and its values
	// row by row as text, NULL as nil.
	Query(ctx context.Context, q string) (schema string, values []*string, err error)
}

// Outcome is what one record did.
type Outcome struct {
	Line    int
	Query   string
	Skipped bool
	Schema  string
	Values  []string // rendered and sorted as the record asks
	Code    uint16   // MySQL error code; 0: no error
	Message string   // the error's message
	// Problem is why the record failed; empty when it passed.
	Problem string
}

// Same reports whether two runs of a record did the same thing.
func (o Outcome) Same(p Outcome) bool {
	return o.Skipped == p.Skipped && o.Schema == p.Schema && o.Code == p.Code &&
		o.Message == p.Message && strings.Join(o.Values, "\n") == strings.Join(p.Values, "\n")
}

func (o Outcome) String() string {
	switch {
	case o.Skipped:
		return "skipped"
	case o.Code != 0:
		return fmt.Sprintf("error %d: %s", o.Code, o.Message)
	case o.Schema != "":
		return fmt.Sprintf("%s %q", o.Schema, o.Values)
	default:
		return "ok"
	}
}

// RunScript runs every record of s on ex, in order, and returns one
// Outcome per record. It stops at a halt record.
func RunScript(ctx context.Context, s *Script, ex Executor) []Outcome {
	var out []Outcome
	for _, r := range s.Records {
		if r.Type() == parser.Halt {
			break
		}
		o := Outcome{Line: r.LineNum(), Query: r.Query()}
		if !r.ShouldExecuteForEngine(ScriptEngine) {
			o.Skipped = true
			out = append(out, o)
			continue
		}
		switch r.Type() {
		case parser.Statement:
			if o.Problem = checkExplain(ctx, ex, r.Query(), s.Explains[r.LineNum()]); o.Problem != "" {
				break
			}
			err := ex.Exec(ctx, r.Query())
			o.Code, o.Message = ErrorCode(err)
			want, annotated := s.Errors[r.LineNum()]
			switch {
			case !r.ExpectError() && err != nil:
				o.Problem = fmt.Sprintf("unexpected error %d: %s", o.Code, o.Message)
			case r.ExpectError() && err == nil:
				o.Problem = "expected an error, got none"
			case r.ExpectError() && annotated && !want.matches(o.Code, o.Message):
				o.Problem = fmt.Sprintf("error %d %q, want %d containing %q", o.Code, o.Message, want.Code, want.Fragment)
			}
		case parser.Query:
			if o.Problem = checkExplain(ctx, ex, r.Query(), s.Explains[r.LineNum()]); o.Problem != "" {
				break
			}
			schema, vals, err := ex.Query(ctx, r.Query())
			if err != nil {
				o.Code, o.Message = ErrorCode(err)
				o.Problem = fmt.Sprintf("unexpected error %d: %s", o.Code, o.Message)
				break
			}
			o.Schema = schema
			o.Values, o.Problem = checkQuery(r, schema, vals, s.Exact[r.LineNum()])
		}
		out = append(out, o)
	}
	return out
}

// checkExplain checks query's plan against the record's explain
// annotations; it returns the problem, or "".
func checkExplain(ctx context.Context, ex Executor, query string, wants []ExplainWant) string {
	if len(wants) == 0 {
		return ""
	}
	_, vals, err := ex.Query(ctx, "EXPLAIN FORMAT=TREE "+query)
	if err != nil {
		code, msg := ErrorCode(err)
		return fmt.Sprintf("explain: unexpected error %d: %s", code, msg)
	}
	lines := make([]string, len(vals))
	for i, v := range vals {
		lines[i] = render('T', v)
	}
	plan := strings.Join(lines, "\n")
	for _, w := range wants {
		if strings.Contains(plan, w.Fragment) == w.Absent {
			verb := "lacks"
			if w.Absent {
				verb = "has"
			}
			return fmt.Sprintf("the plan %s %q:\n%s", verb, w.Fragment, plan)
		}
	}
	return ""
}

func (w ErrorWant) matches(code uint16, msg string) bool {
	return code == w.Code && strings.Contains(strings.ToLower(msg), strings.ToLower(w.Fragment))
}

// checkQuery renders vals as the format wants them (exact: R values as
// returned) and compares them with the record's expected values (or their
// md5).
func checkQuery(r *parser.Record, schema string, vals []*string, exact bool) ([]string, string) {
	got := make([]string, len(vals))
	for i, v := range vals {
		typ := schema[i%len(schema)]
		if exact && typ == 'R' {
			typ = 'T'
		}
		got[i] = render(typ, v)
	}
	if schema != r.Schema() {
		return got, fmt.Sprintf("schema %s, want %s (values %q)", schema, r.Schema(), got)
	}
	if len(got) != r.NumResults() {
		return got, fmt.Sprintf("%d values, want %d: got %q, want %q", len(got), r.NumResults(), got, r.Result())
	}
	got = r.SortResults(got)
	if r.IsHashResult() {
		h := md5.New()
		for _, v := range got {
			h.Write([]byte(v + "\n"))
		}
		if sum := fmt.Sprintf("%x", h.Sum(nil)); sum != r.HashResult() {
			return got, fmt.Sprintf("values hash to %s, want %s: got %q", sum, r.HashResult(), got)
		}
		return got, ""
	}
	for i, want := range r.Result() {
		if want == AnyValue && got[i] != "NULL" {
			got[i] = AnyValue
			continue
		}
		if got[i] != want {
			return got, fmt.Sprintf("value %d is %q, want %q: got %q, want %q", i, got[i], want, got, r.Result())
		}
	}
	return got, ""
}

// render prints a value as sqllogictest does: NULL, integers as they are,
// R columns with three decimals, an empty string as (empty).
func render(typ byte, v *string) string {
	switch {
	case v == nil:
		return "NULL"
	case typ == 'R':
		if f, err := strconv.ParseFloat(*v, 64); err == nil {
			return fmt.Sprintf("%.3f", f)
		}
	case *v == "":
		return "(empty)"
	}
	return *v
}

// ErrorCode returns the MySQL error code and message of an error from
// either the embedded engine (*mysql.SQLError) or go-sql-driver
// (*mysql.MySQLError); 0 and the text for any other error, 0 and "" for
// nil.
func ErrorCode(err error) (uint16, string) {
	if err == nil {
		return 0, ""
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number, me.Message
	}
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return uint16(se.Num), se.Message
	}
	return 0, err.Error()
}

// Embedded is an Executor over an embedded engine.Conn.
type Embedded struct{ Conn *engine.Conn }

// Exec runs stmt on the connection.
func (x Embedded) Exec(ctx context.Context, stmt string) error {
	_, err := x.Conn.Query(ctx, stmt)
	return err
}

// Query runs q and renders its last result as a client would see it.
func (x Embedded) Query(ctx context.Context, q string) (string, []*string, error) {
	rs, err := x.Conn.Query(ctx, q)
	if err != nil {
		return "", nil, err
	}
	if len(rs) == 0 {
		return "", nil, fmt.Errorf("query %q returned no result", q)
	}
	res := rs[len(rs)-1]
	if _, ok := res.IsOK(); ok {
		return "", nil, fmt.Errorf("query %q returned an OK packet, not rows", q)
	}
	var schema strings.Builder
	for _, col := range res.Schema {
		schema.WriteByte(typeLetter(col.Type))
	}
	var vals []*string
	for i, row := range res.Rows {
		for j := range row {
			if txt, ok := res.Text(i, j); ok {
				vals = append(vals, &txt)
			} else {
				vals = append(vals, nil)
			}
		}
	}
	return schema.String(), vals, nil
}

func typeLetter(t gmssql.Type) byte {
	switch {
	case types.IsInteger(t):
		return 'I'
	case types.IsFloat(t), types.IsDecimal(t):
		return 'R'
	default:
		return 'T'
	}
}

// Wire is an Executor over one MySQL-wire connection (database/sql with
// go-sql-driver; a *sql.Conn, so session state such as USE and BEGIN
// stays on one server session).
type Wire struct{ Conn *sql.Conn }

// Exec runs stmt on the connection.
func (x Wire) Exec(ctx context.Context, stmt string) error {
	_, err := x.Conn.ExecContext(ctx, stmt)
	return err
}

// Query runs q and returns its rows as the server sent them.
func (x Wire) Query(ctx context.Context, q string) (string, []*string, error) {
	rows, err := x.Conn.QueryContext(ctx, q)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return "", nil, err
	}
	var schema strings.Builder
	for _, ct := range cts {
		schema.WriteByte(wireLetter(ct.DatabaseTypeName()))
	}
	var vals []*string
	raw := make([]sql.RawBytes, len(cts))
	ptrs := make([]any, len(cts))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", nil, err
		}
		for _, b := range raw {
			if b == nil {
				vals = append(vals, nil)
			} else {
				s := string(b)
				vals = append(vals, &s)
			}
		}
	}
	return schema.String(), vals, rows.Err()
}

func wireLetter(dbType string) byte {
	switch strings.TrimPrefix(dbType, "UNSIGNED ") {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT":
		return 'I'
	case "DECIMAL", "FLOAT", "DOUBLE":
		return 'R'
	default:
		return 'T'
	}
}
