package mysqlfix

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0 resolves VALUES(col) in ON DUPLICATE KEY UPDATE against a
// row alias that only INSERT … VALUES has: INSERT … SELECT … ON DUPLICATE
// KEY UPDATE v = VALUES(v), which MySQL runs (the upsert of change-data
// pipelines), fails with "expected ON DUPLICATE KEY ... VALUES() to
// reference a column, found: __new_ins.v". The source SELECT becomes a
// derived table under that alias, its columns named as the INSERT's
// column list names them, so VALUES(v) finds the value the row would
// have inserted:
//
//	INSERT INTO t (id, v) SELECT a, b FROM s ON DUPLICATE KEY UPDATE v = VALUES(v)
//	INSERT INTO t (id, v) SELECT * FROM (SELECT a, b FROM s) AS __new_ins (id, v) ON DUPLICATE KEY UPDATE v = VALUES(v)
//
// Without a column list the names are the table's, which the parser does
// not know: that form keeps GMS's error.

// onDupValuesAlias is GMS's name for the inserted row (planbuilder's
// OnDupValuesPrefix).
const onDupValuesAlias = "__new_ins"

// insertSelectValues rewrites ins as above and reports whether it did.
func insertSelectValues(ins *ast.Insert) bool {
	if !selectWithValues(ins) || len(ins.Columns) == 0 {
		return false
	}
	sel := ins.Rows.(ast.SelectStatement)
	cols := make(ast.Columns, len(ins.Columns))
	copy(cols, ins.Columns)
	ins.Rows = &ast.Select{
		SelectExprs: ast.SelectExprs{&ast.StarExpr{}},
		From: ast.TableExprs{&ast.AliasedTableExpr{
			Expr: &ast.Subquery{Select: sel, Columns: cols},
			As:   ast.NewTableIdent(onDupValuesAlias),
		}},
	}
	return true
}

// selectWithValues reports whether ins is INSERT … SELECT … ON DUPLICATE
// KEY UPDATE with an unqualified VALUES(col).
func selectWithValues(ins *ast.Insert) bool {
	_, ok := ins.Rows.(ast.SelectStatement)
	return ok && len(ins.OnDup) > 0 && containsExpr(ins.OnDup, isValuesFunc)
}

// isValuesFunc matches VALUES(col) naming no table (a qualified one is
// the 8.0 row alias form, which GMS resolves).
func isValuesFunc(e ast.Expr) bool {
	v, ok := e.(*ast.ValuesFuncExpr)
	return ok && v.Name != nil && strings.TrimSpace(v.Name.Qualifier.Name.String()) == ""
}
