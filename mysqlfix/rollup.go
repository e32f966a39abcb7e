package mysqlfix

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// MySQL 8 answers GROUP BY g1, …, gn WITH ROLLUP with the groups plus one
// super-aggregate row per prefix g1…gi (i < n), the rolled-up columns NULL
// and GROUPING(gj) 1 on them; without ORDER BY, rows come sorted by the
// grouping columns, each super-aggregate row after the rows it sums.
// GMS v0.20.0's parser refuses WITH ROLLUP (1064) and has no GROUPING().
//
// The text "WITH ROLLUP" is first replaced by a marker GROUP BY column of
// the same length (so statement offsets hold), then the SELECT becomes
//
//	SELECT __c1 AS `name1`, … FROM (
//	  SELECT e1 AS __c1, …, g1 AS __rk1, 0 AS __rl1, … FROM … GROUP BY g1…gn
//	  UNION ALL SELECT …, NULL AS __rkn, 1 AS __rln … GROUP BY g1…gn-1
//	  … ) AS __rollup
//	ORDER BY <the statement's ORDER BY, or __rl1, __rk1, __rl2, __rk2, …>
//
// where each branch has the rolled-up grouping expressions (outside
// aggregates) replaced by NULL and GROUPING() by its value. A SELECT
// below the top level (a derived table, a subquery, a CTE, the SELECT of
// an INSERT or a view) is rewritten the same way, in place and innermost
// first (rollupNested).

const rollupMarker = ",__rollup__" // as long as "WITH ROLLUP"

var (
	// errRollupPlacement: WITH ROLLUP outside a SELECT's GROUP BY, where
	// MySQL refuses it too (ER_NOT_SUPPORTED_YET).
	errRollupPlacement = rollupUnsupported("WITH ROLLUP outside the GROUP BY of a SELECT")
	// errGroupingWithoutRollup: GROUPING() without WITH ROLLUP, as MySQL
	// reports it (ER_INVALID_GROUP_FUNC_USE).
	errGroupingWithoutRollup = mysql.NewSQLError(mysql.ERInvalidGroupFuncUse, "HY000", "Invalid use of group function: GROUPING() needs GROUP BY ... WITH ROLLUP")
)

func rollupUnsupported(what string) *mysql.SQLError {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of lakesql doesn't yet support: %s", what)
}

var withRollup = regexp.MustCompile(`(?i)\bWITH\s+ROLLUP\b`)

// markRollup replaces WITH ROLLUP outside quotes and comments by the
// marker, padded to the same length.
func markRollup(q string) string {
	if !strings.Contains(strings.ToUpper(q), "ROLLUP") {
		return q
	}
	var b strings.Builder
	code := codeSpans(q)
	last := 0
	for _, m := range withRollup.FindAllStringIndex(q, -1) {
		if !inSpans(code, m[0]) {
			continue
		}
		b.WriteString(q[last:m[0]])
		b.WriteString(rollupMarker + strings.Repeat(" ", m[1]-m[0]-len(rollupMarker)))
		last = m[1]
	}
	b.WriteString(q[last:])
	return b.String()
}

// unmarkRollup restores the statement text (for the process list and logs).
func unmarkRollup(q string) string { return strings.ReplaceAll(q, rollupMarker, "WITH ROLLUP") }

// codeSpans returns the [start, end) ranges of q outside string literals,
// quoted identifiers and comments.
func codeSpans(q string) [][2]int {
	var spans [][2]int
	start := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		var end int
		switch {
		case c == '\'' || c == '"' || c == '`':
			end = i + 1
			for end < len(q) && q[end] != c {
				if q[end] == '\\' && c != '`' {
					end++
				}
				end++
			}
		case c == '#' || (c == '-' && strings.HasPrefix(q[i:], "-- ")):
			end = strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			end += i
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			end = strings.Index(q[i+2:], "*/")
			if end < 0 {
				end = len(q)
			} else {
				end += i + 3
			}
		default:
			continue
		}
		spans = append(spans, [2]int{start, i})
		start = end + 1
		i = end
	}
	return append(spans, [2]int{start, len(q)})
}

func inSpans(spans [][2]int, at int) bool {
	for _, s := range spans {
		if at >= s[0] && at < s[1] {
			return true
		}
	}
	return false
}

func isRollupMarker(e ast.Expr) bool {
	c, ok := e.(*ast.ColName)
	return ok && c.Qualifier.IsEmpty() && c.Name.EqualString(rollupMarker[1:])
}

// hasRollupMarker reports whether a statement lakesql does not rewrite
// carries WITH ROLLUP (INSERT … SELECT, a subquery, a view body).
func hasRollupMarker(st ast.SQLNode) bool {
	found := false
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if c, ok := n.(*ast.ColName); ok && isRollupMarker(c) {
			found = true
		}
		return !found, nil
	}, st)
	return found
}

// rollupGroupBy removes the marker from s's GROUP BY and reports whether
// it was there.
func rollupGroupBy(s *ast.Select) bool {
	n := len(s.GroupBy)
	if n < 2 || !isRollupMarker(s.GroupBy[n-1]) {
		return false
	}
	s.GroupBy = s.GroupBy[:n-1]
	return true
}

// rollupNested rewrites, in place, every SELECT of st with WITH ROLLUP
// that is not in top (the SELECTs rewriteSelect handles), innermost
// first, so that each one sees its subqueries already rewritten. It
// reports whether it changed anything.
func (p *Parser) rollupNested(st ast.SQLNode, top map[*ast.Select]bool) (bool, error) {
	var found []*ast.Select
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if s, ok := n.(*ast.Select); ok && !top[s] && len(s.GroupBy) > 1 && isRollupMarker(s.GroupBy[len(s.GroupBy)-1]) {
			found = append(found, s)
		}
		return true, nil
	}, st)
	// Walk visits a SELECT before the SELECTs inside it.
	for i := len(found) - 1; i >= 0; i-- {
		s := found[i]
		rollupGroupBy(s)
		text, err := p.rollup(s)
		if err != nil {
			return false, err
		}
		out, err := p.parseSelect(text)
		if err != nil {
			return false, err
		}
		if out.Limit == nil {
			// Rows of a subquery have no order without a LIMIT (MySQL
			// ignores it too), and a UNION branch may not have one.
			out.OrderBy = nil
		}
		*s = *out
	}
	return len(found) > 0, nil
}

// topSelects are the SELECTs rewriteSelect handles itself: sel, or the
// branches of a top-level set operation.
func topSelects(sel ast.SelectStatement, into map[*ast.Select]bool) map[*ast.Select]bool {
	switch s := sel.(type) {
	case *ast.Select:
		into[s] = true
	case *ast.ParenSelect:
		topSelects(s.Select, into)
	case *ast.SetOp:
		topSelects(s.Left, into)
		topSelects(s.Right, into)
	}
	return into
}

func isGrouping(e ast.Expr) bool {
	f, ok := e.(*ast.FuncExpr)
	return ok && f.Name.EqualString("grouping")
}

// rollup renders the UNION ALL of s's grouping levels.
func (p *Parser) rollup(s *ast.Select) (string, error) {
	if containsExpr(s.SelectExprs, isWindow) || s.QueryOpts.Distinct {
		return "", rollupUnsupported("WITH ROLLUP together with window functions or DISTINCT")
	}
	if hasRollupMarker(s) {
		return "", errRollupPlacement
	}
	groups := s.GroupBy
	n := len(groups)
	// The statement without ORDER BY and LIMIT: each branch starts as a
	// fresh copy of it.
	order, limit := s.OrderBy, s.Limit
	s.OrderBy, s.Limit = nil, nil
	base := render(s)

	var names []string
	for _, se := range s.SelectExprs {
		ae, ok := se.(*ast.AliasedExpr)
		if !ok {
			return "", rollupUnsupported("SELECT * with WITH ROLLUP")
		}
		names = append(names, outputName(ae))
	}

	branches := make([]string, 0, n+1)
	for level := n; level >= 0; level-- {
		b, err := p.parseSelect(base)
		if err != nil {
			return "", err
		}
		rolled := func(e ast.Expr) (bool, bool) { // (is a grouping expr, rolled up)
			for j, g := range groups {
				if sameExpr(e, g) {
					return true, j >= level
				}
			}
			return false, false
		}
		replace := func(e ast.Expr) (ast.Expr, bool) {
			if isAggregate(e) {
				return e, true // keep: aggregates see the real values
			}
			if isGrouping(e) {
				return groupingValue(e.(*ast.FuncExpr), rolled)
			}
			if is, up := rolled(e); is && up {
				return &ast.NullVal{}, true
			}
			return nil, false
		}
		var exprs []string
		for i, se := range b.SelectExprs {
			ae := se.(*ast.AliasedExpr)
			exprs = append(exprs, fmt.Sprintf("%s AS __c%d", render(rewriteExpr(ae.Expr, replace)), i+1))
		}
		for j, g := range groups {
			key, lvl := render(g), "0"
			if j >= level {
				key, lvl = "NULL", "1"
			}
			exprs = append(exprs, fmt.Sprintf("%s AS __rk%d, %s AS __rl%d", key, j+1, lvl, j+1))
		}
		text := "SELECT " + strings.Join(exprs, ", ")
		if len(b.From) > 0 {
			text += " FROM " + render(b.From)
		}
		if b.Where != nil {
			text += render(b.Where)
		}
		if level > 0 {
			text += render(b.GroupBy[:level])
		}
		var having []string
		if b.Having != nil {
			having = append(having, "("+render(rewriteExpr(b.Having.Expr, replace))+")")
		}
		if level == 0 {
			// The grand total is one row, none over no rows (as MySQL's
			// rollup of no groups), even with no aggregate selected.
			having = append(having, "COUNT(*) > 0")
		}
		if len(having) > 0 {
			text += " HAVING " + strings.Join(having, " AND ")
		}
		branches = append(branches, text)
	}

	var outer []string
	for i, name := range names {
		outer = append(outer, fmt.Sprintf("__c%d AS %s", i+1, quoteName(name)))
	}
	text := "SELECT " + strings.Join(outer, ", ") + " FROM (" + strings.Join(branches, " UNION ALL ") + ") AS __rollup ORDER BY "
	if len(order) == 0 {
		var keys []string
		for j := range groups {
			keys = append(keys, fmt.Sprintf("__rl%d, __rk%d", j+1, j+1))
		}
		text += strings.Join(keys, ", ")
	} else {
		// The statement's ORDER BY, over the union's columns: a select
		// expression (or its alias) becomes its __c column, GROUPING()
		// its __rl column.
		var keys []string
		for _, o := range order {
			e := rewriteExpr(o.Expr, func(e ast.Expr) (ast.Expr, bool) {
				if isGrouping(e) {
					f := e.(*ast.FuncExpr)
					if len(f.Exprs) == 1 {
						if ae, ok := f.Exprs[0].(*ast.AliasedExpr); ok {
							for j, g := range groups {
								if sameExpr(ae.Expr, g) {
									return &ast.ColName{Name: ast.NewColIdent(fmt.Sprintf("__rl%d", j+1))}, true
								}
							}
						}
					}
				}
				for i, se := range s.SelectExprs {
					ae := se.(*ast.AliasedExpr)
					c, isCol := e.(*ast.ColName)
					if sameExpr(e, ae.Expr) || (isCol && c.Qualifier.IsEmpty() && !ae.As.IsEmpty() && c.Name.Equal(ae.As)) {
						return &ast.ColName{Name: ast.NewColIdent(fmt.Sprintf("__c%d", i+1))}, true
					}
				}
				return nil, false
			})
			keys = append(keys, render(&ast.Order{Expr: e, Direction: o.Direction}))
		}
		text += strings.Join(keys, ", ")
	}
	if limit != nil {
		text += render(limit)
	}
	return text, nil
}

// groupingValue is GROUPING(e1, …, ek) on one level: bit k-j set when ej
// is rolled up, as MySQL computes it.
func groupingValue(f *ast.FuncExpr, rolled func(ast.Expr) (bool, bool)) (ast.Expr, bool) {
	v := 0
	for _, se := range f.Exprs {
		ae, ok := se.(*ast.AliasedExpr)
		if !ok {
			return nil, false
		}
		is, up := rolled(ae.Expr)
		if !is {
			return nil, false // not a GROUP BY expression: left for GMS to refuse
		}
		v <<= 1
		if up {
			v |= 1
		}
	}
	return ast.NewIntVal([]byte(fmt.Sprint(v))), true
}
