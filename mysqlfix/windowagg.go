package mysqlfix

import (
	"fmt"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// MySQL 8 evaluates window functions after GROUP BY and HAVING, so they
// may take aggregates (SUM(SUM(x)) OVER (PARTITION BY …)) and sit beside
// them (ROW_NUMBER() OVER (…), COUNT(*) … GROUP BY k). GMS v0.20.0 refuses
// the mix (1140, with an unformatted message) or fails at run time
// ("unable to find field with index 7 in row of 2 columns"). The fix
// evaluates the grouping in a derived table and the windows over it:
//
//	SELECT <select list, aggregates → __aN, GROUP BY expressions → __gN>
//	FROM (SELECT g1 AS __g1, …, agg1 AS __a1, … FROM … WHERE … GROUP BY … HAVING …) AS __windowed
//	ORDER BY <likewise> LIMIT …

// windowOverAggregates returns the rewritten text of s when it mixes
// window functions with grouping.
func (p *Parser) windowOverAggregates(s *ast.Select) (string, bool, error) {
	if !containsExpr(s.SelectExprs, isWindow) && !containsExpr(s.OrderBy, isWindow) {
		return "", false, nil
	}
	var aggs []ast.Expr
	seen := map[string]int{}
	collect := func(node any) {
		visitExprs(node, func(e ast.Expr) bool {
			if !isAggregate(e) {
				return true
			}
			k := strings.ToLower(render(e))
			if _, ok := seen[k]; !ok {
				seen[k] = len(aggs)
				aggs = append(aggs, e)
			}
			return false
		})
	}
	collect(s.SelectExprs)
	collect(s.OrderBy)
	collect(s.Window)
	if len(aggs) == 0 && len(s.GroupBy) == 0 {
		return "", false, nil
	}
	for _, se := range s.SelectExprs {
		if _, ok := se.(*ast.AliasedExpr); !ok {
			return "", false, nil // SELECT *: left to GMS
		}
	}
	var inner []string
	for j, g := range s.GroupBy {
		inner = append(inner, fmt.Sprintf("%s AS __g%d", render(g), j+1))
	}
	for k, a := range aggs {
		inner = append(inner, fmt.Sprintf("%s AS __a%d", render(a), k+1))
	}
	text := "SELECT " + strings.Join(inner, ", ")
	if len(s.From) > 0 {
		text += " FROM " + render(s.From)
	}
	if s.Where != nil {
		text += render(s.Where)
	}
	text += render(s.GroupBy)
	if s.Having != nil {
		text += render(s.Having)
	}

	replace := func(e ast.Expr) (ast.Expr, bool) {
		if isAggregate(e) {
			return &ast.ColName{Name: ast.NewColIdent(fmt.Sprintf("__a%d", seen[strings.ToLower(render(e))]+1))}, true
		}
		for j, g := range s.GroupBy {
			if sameExpr(e, g) {
				return &ast.ColName{Name: ast.NewColIdent(fmt.Sprintf("__g%d", j+1))}, true
			}
		}
		return nil, false
	}
	var outer []string
	for _, se := range s.SelectExprs {
		ae := se.(*ast.AliasedExpr)
		outer = append(outer, fmt.Sprintf("%s AS %s", render(rewriteExpr(ae.Expr, replace)), quoteName(outputName(ae))))
	}
	distinct := ""
	if s.QueryOpts.Distinct {
		distinct = "DISTINCT "
	}
	out := "SELECT " + distinct + strings.Join(outer, ", ") + " FROM (" + text + ") AS __windowed"
	if len(s.Window) > 0 {
		rewriteExprs(s.Window, false, replace)
		out += render(s.Window)
	}
	if len(s.OrderBy) > 0 {
		for _, o := range s.OrderBy {
			o.Expr = rewriteExpr(o.Expr, replace)
		}
		out += render(s.OrderBy)
	}
	if s.Limit != nil {
		out += render(s.Limit)
	}
	return out, true, nil
}
