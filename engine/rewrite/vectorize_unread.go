package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// dropUnread removes from a GroupBy under Project(Having?(…)) the plain
// columns it selects without grouping by them that neither the Having
// nor the Project reads. GMS selects such a column for a HAVING over an
// IN subquery's GROUP BY (TPC-H Q18: SUM(l_quantity), l_orderkey,
// l_quantity); its value is any row's, which no vectorised aggregate
// computes, and nothing reads it. It runs before GMS assigns execution
// indexes, so the readers above find their columns by name.
func dropUnread(n sql.Node) sql.Node {
	out, _, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		p, ok := n.(*plan.Project)
		if !ok {
			return n, transform.SameTree, nil
		}
		readers := append([]sql.Expression{}, p.Projections...)
		child := p.Child
		h, having := child.(*plan.Having)
		if having {
			readers = append(readers, h.Cond)
			child = h.Child
		}
		gb, ok := child.(*plan.GroupBy)
		if !ok {
			return n, transform.SameTree, nil
		}
		kept := keptSelected(gb, readers)
		if len(kept) == len(gb.SelectedExprs) || len(kept) == 0 {
			return n, transform.SameTree, nil
		}
		var c sql.Node = plan.NewGroupBy(kept, gb.GroupByExprs, gb.Child)
		if having {
			c = plan.NewHaving(h.Cond, c)
		}
		np, err := p.WithChildren(c)
		return np, transform.NewTree, err
	})
	if err != nil {
		return n
	}
	return out
}

// keptSelected is gb's selected expressions without the plain columns
// it does not group by and no reader reads.
func keptSelected(gb *plan.GroupBy, readers []sql.Expression) []sql.Expression {
	var kept []sql.Expression
	for _, e := range gb.SelectedExprs {
		gf, ok := e.(*expression.GetField)
		if !ok || grouped(gb, gf) || reads(readers, gf) {
			kept = append(kept, e)
		}
	}
	return kept
}

func grouped(gb *plan.GroupBy, gf *expression.GetField) bool {
	for _, g := range gb.GroupByExprs {
		if x, ok := g.(*expression.GetField); ok && sameColumn(x, gf) {
			return true
		}
	}
	return false
}

// reads reports whether any of es reads gf's column (by table and name,
// or by name alone when either is unqualified).
func reads(es []sql.Expression, gf *expression.GetField) bool {
	found := false
	for _, e := range es {
		transform.InspectExpr(e, func(x sql.Expression) bool {
			if y, ok := x.(*expression.GetField); ok && strings.EqualFold(y.Name(), gf.Name()) &&
				(y.Table() == "" || gf.Table() == "" || strings.EqualFold(y.Table(), gf.Table())) {
				found = true
			}
			return found
		})
	}
	return found
}

func sameColumn(a, b *expression.GetField) bool {
	return strings.EqualFold(a.Name(), b.Name()) && strings.EqualFold(a.Table(), b.Table())
}
