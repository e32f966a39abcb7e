package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS v0.20.0's information_schema.columns describes every TIME column as
// COLUMN_TYPE "time(6)" with DATETIME_PRECISION 6, whatever was declared:
// it has one TIME type, which keeps microseconds (timetype.go). MySQL
// shows a column declared TIME as "time", precision 0, and schema tools
// (ORMs' introspection, migration diffs) read those two fields. lakesql's
// DDL accepts no TIME(n) (GMS: "TIME length not yet supported"), so every
// TIME column was declared TIME. DATETIME(n) and TIMESTAMP(n) are shown
// as MySQL does already.

// infoSchemaTimeColumns gives information_schema.columns rows MySQL's
// COLUMN_TYPE and DATETIME_PRECISION for TIME columns. It wraps the
// table's row function in a copy of the table, so GMS's shared table is
// never changed, and the fix is idempotent should the rule run twice.
func infoSchemaTimeColumns(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		rt, ok := n.(*plan.ResolvedTable)
		if !ok {
			return n, transform.SameTree, nil
		}
		ct, ok := rt.Table.(*information_schema.ColumnsTable)
		if !ok || ct.RowIter == nil {
			return n, transform.SameTree, nil
		}
		fix, ok := timeColumnFix(ct.TableSchema)
		if !ok {
			return n, transform.SameTree, nil
		}
		cp := *ct
		inner := ct.RowIter
		cp.RowIter = func(ctx *sql.Context, cat sql.Catalog, s sql.Schema) (sql.RowIter, error) {
			it, err := inner(ctx, cat, s)
			if err != nil {
				return nil, err
			}
			return &mappedIter{RowIter: it, fix: fix}, nil
		}
		nt, err := rt.WithTable(&cp)
		return nt, transform.NewTree, err
	})
}

// timeColumnFix returns the row fix for a columns table of schema s, or
// false when s lacks a field the fix needs.
func timeColumnFix(s sql.Schema) (func(sql.Row) sql.Row, bool) {
	dataType, colType, prec := s.IndexOfColName("DATA_TYPE"), s.IndexOfColName("COLUMN_TYPE"), s.IndexOfColName("DATETIME_PRECISION")
	if dataType < 0 || colType < 0 || prec < 0 {
		return nil, false
	}
	return func(row sql.Row) sql.Row {
		if len(row) <= max(dataType, colType, prec) {
			return row
		}
		if dt, ok := row[dataType].(string); !ok || !strings.EqualFold(dt, "time") {
			return row
		}
		row[colType] = "time"
		row[prec] = uint32(0)
		return row
	}, true
}
