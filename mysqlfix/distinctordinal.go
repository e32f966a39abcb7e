package mysqlfix

import (
	"strconv"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0 fails `SELECT DISTINCT c0 AS x FROM t ORDER BY 1` and
// `SELECT DISTINCT c0+1 FROM t ORDER BY 1` with 1105 "unable to sort:
// unable to find field with index 2 in row of 1 columns": the Sort it
// places above the Distinct keeps the ordinal's expression bound to the
// table's row. Found by difftest against MariaDB. ORDER BY the alias, or
// the expression itself, sorts the Distinct's output correctly; for a
// DISTINCT select both mean what the ordinal means.

// distinctOrdinals replaces the ordinals in a DISTINCT select's ORDER BY by
// the select item's alias (when no other item has it) or a copy of the
// item's expression, and reports whether one changed. Ordinals out of
// range are left for GMS to refuse.
func distinctOrdinals(s *ast.Select) bool {
	if !s.QueryOpts.Distinct || len(s.OrderBy) == 0 {
		return false
	}
	aliasCount := map[string]int{}
	for _, se := range s.SelectExprs {
		if ae, ok := se.(*ast.AliasedExpr); ok && !ae.As.IsEmpty() {
			aliasCount[ae.As.Lowered()]++
		}
	}
	changed := false
	for _, o := range s.OrderBy {
		v, ok := o.Expr.(*ast.SQLVal)
		if !ok || v.Type != ast.IntVal {
			continue
		}
		n, err := strconv.Atoi(string(v.Val))
		if err != nil || n < 1 || n > len(s.SelectExprs) {
			continue
		}
		ae, ok := s.SelectExprs[n-1].(*ast.AliasedExpr)
		if !ok {
			continue // a star: GMS expands it and resolves the ordinal itself
		}
		if !ae.As.IsEmpty() && aliasCount[ae.As.Lowered()] == 1 {
			o.Expr = &ast.ColName{Name: ae.As}
		} else {
			o.Expr = &ast.ParenExpr{Expr: ae.Expr}
		}
		changed = true
	}
	return changed
}
