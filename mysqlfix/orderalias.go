package mysqlfix

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// MySQL resolves a name in ORDER BY to a select-list alias first, inside
// expressions too (ORDER BY total_cnt IS NULL, total_cnt). GMS v0.20.0
// resolves a bare alias but not one inside an expression (1054 "column
// could not be found"). The fix replaces an unqualified name inside an
// ORDER BY expression that is a select alias by the aliased expression.

// orderByAliases rewrites s's ORDER BY expressions in place and reports
// whether one changed.
func (p *Parser) orderByAliases(s *ast.Select) bool {
	aliases := map[string]ast.Expr{}
	for _, se := range s.SelectExprs {
		if ae, ok := se.(*ast.AliasedExpr); ok && !ae.As.IsEmpty() {
			aliases[ae.As.Lowered()] = ae.Expr
		}
	}
	if len(aliases) == 0 {
		return false
	}
	changed := false
	for _, o := range s.OrderBy {
		if _, bare := o.Expr.(*ast.ColName); bare {
			continue // GMS resolves these itself
		}
		o.Expr = rewriteExpr(o.Expr, func(e ast.Expr) (ast.Expr, bool) {
			c, ok := e.(*ast.ColName)
			if !ok || !c.Qualifier.IsEmpty() {
				return nil, false
			}
			target, ok := aliases[c.Name.Lowered()]
			if !ok || containsExpr(target, isWindow) {
				return nil, false
			}
			changed = true
			return &ast.ParenExpr{Expr: target}, true
		})
	}
	return changed
}
