package mysqlfix

import (
	"fmt"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// In GMS v0.20.0 an aggregate inside a HAVING subquery that reads like one
// of the outer query's aggregates (TPC-H Q11:
// HAVING SUM(a*b) > (SELECT SUM(a*b) * 0.0001 FROM …)) is bound to the
// outer aggregate: the subquery loses its own aggregation, returns one row
// per row it reads, and the statement fails with 1242 ("subquery returned
// more than 1 row"). MySQL computes the subquery's own aggregate. GMS
// matches aggregates by their text with table qualifiers, so the fix gives
// the tables of such a subquery fresh aliases (__hsq1, …) and requalifies
// its columns: its aggregates then read differently from the outer ones.
// Only subqueries whose aggregates collide are touched.

// fixHavingSubqueries rewrites s's HAVING in place and reports whether it
// changed.
func fixHavingSubqueries(s *ast.Select) bool {
	if s.Having == nil {
		return false
	}
	outer := map[string]bool{}
	collect := func(node any) {
		visitExprs(node, func(e ast.Expr) bool {
			if isAggregate(e) {
				outer[strings.ToLower(render(e))] = true
				return false
			}
			return true
		})
	}
	collect(s.SelectExprs)
	collect(s.Having)
	if len(outer) == 0 {
		return false
	}
	changed := false
	rewriteExprs(s.Having, true, func(e ast.Expr) (ast.Expr, bool) {
		sq, ok := e.(*ast.Subquery)
		if !ok {
			return nil, false
		}
		inner, ok := sq.Select.(*ast.Select)
		if !ok {
			return e, true
		}
		collides := containsExpr(inner.SelectExprs, func(e ast.Expr) bool {
			return isAggregate(e) && outer[strings.ToLower(render(e))]
		})
		if !collides {
			return e, true
		}
		changed = true
		realias(inner)
		return e, true
	})
	return changed
}

// realias gives every table in sel's FROM a fresh alias and requalifies
// the columns that named it.
func realias(sel *ast.Select) {
	renames := map[string]string{}
	var walk func(te ast.TableExpr)
	walk = func(te ast.TableExpr) {
		switch t := te.(type) {
		case *ast.AliasedTableExpr:
			old := t.As.String()
			if tn, ok := t.Expr.(ast.TableName); ok && old == "" {
				old = tn.Name.String()
			}
			if old == "" {
				return
			}
			fresh := fmt.Sprintf("__hsq%d", len(renames)+1)
			renames[strings.ToLower(old)] = fresh
			t.As = ast.NewTableIdent(fresh)
		case *ast.JoinTableExpr:
			walk(t.LeftExpr)
			walk(t.RightExpr)
		case *ast.ParenTableExpr:
			for _, x := range t.Exprs {
				walk(x)
			}
		}
	}
	for _, te := range sel.From {
		walk(te)
	}
	rewriteExprs(sel, false, func(e ast.Expr) (ast.Expr, bool) {
		c, ok := e.(*ast.ColName)
		if !ok || c.Qualifier.IsEmpty() {
			return nil, false
		}
		if fresh, ok := renames[strings.ToLower(c.Qualifier.Name.String())]; ok {
			return &ast.ColName{Name: c.Name, Qualifier: ast.TableName{Name: ast.NewTableIdent(fresh)}}, true
		}
		return nil, false
	})
}
