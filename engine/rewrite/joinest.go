package rewrite

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// joinEstimate estimates a join of l and r under the join's conditions.
//
// Equalities between the two sides are grouped into classes (a = b and
// b = c put a, b and c in one class: GMS adds such transitive edges
// itself). Each class spanning both sides divides the cross product by
// the larger of the two sides' distinct counts for it (a side's count for
// a class is the smallest of its columns', which that side already holds
// equal): |L||R| / max(ndv_L, ndv_R), the containment assumption. A side
// without a distinct count counts its rows, as if the column were its
// key. Every other condition is a filter over the joined row.
func joinEstimate(ctx *sql.Context, op plan.JoinType, l, r *estimate, filters []sql.Expression) *estimate {
	classes, rest := equiClasses(l, r, filters)
	sel, semi := 1.0, 1.0
	for _, c := range classes {
		nl, nr := c.distinct(l), c.distinct(r)
		sel /= math.Max(nl, nr)
		semi *= math.Min(1, nr/nl)
	}
	// The other conditions are judged against the columns of the cross
	// product.
	out := merge(l, r, l.rows*r.rows)
	sel *= selectivity(ctx, out, rest)
	inner := l.rows * r.rows * sel
	switch {
	case op.IsSemi():
		out = l.derive(math.Max(1, l.rows*semi*partialGuess(rest)))
		return out
	case op.IsAnti():
		return l.derive(math.Max(1, l.rows*math.Max(0.1, 1-semi)))
	case op.IsLeftOuter():
		out.rows = math.Max(l.rows, inner)
	case op.IsFullOuter():
		out.rows = math.Max(l.rows+r.rows, inner)
	default:
		out.rows = inner
	}
	out.rows = math.Max(1, out.rows)
	for _, c := range classes {
		d := math.Min(c.distinct(l), c.distinct(r))
		for _, gf := range c.cols {
			out.pin(gf, d)
		}
	}
	return out
}

// partialGuess is the fraction of a semi join's matches that survive its
// conditions other than key equalities.
func partialGuess(rest []sql.Expression) float64 {
	if len(rest) == 0 {
		return 1
	}
	return guessOther
}

// equiClass is a set of columns a join's equalities hold equal.
type equiClass struct {
	cols []*expression.GetField
}

// distinct is the class's distinct count on side e: the smallest of its
// columns' there, e's rows when none is known.
func (c equiClass) distinct(e *estimate) float64 {
	d := 0.0
	for _, gf := range c.cols {
		if !e.reads(gf) {
			continue
		}
		if n := e.column(gf).distinct; n > 0 && (d == 0 || n < d) {
			d = n
		}
	}
	if d == 0 {
		d = e.rows
	}
	return math.Max(1, d)
}

// equiClasses splits filters into the classes of columns equated across
// l and r, and the remaining conditions.
func equiClasses(l, r *estimate, filters []sql.Expression) ([]equiClass, []sql.Expression) {
	parent := map[colKey]colKey{}
	cols := map[colKey]*expression.GetField{}
	var find func(k colKey) colKey
	find = func(k colKey) colKey {
		for parent[k] != k {
			k = parent[k]
		}
		return k
	}
	var rest []sql.Expression
	for _, f := range filters {
		a, b, ok := crossEquality(l, r, f)
		if !ok {
			rest = append(rest, f)
			continue
		}
		for _, gf := range []*expression.GetField{a, b} {
			if _, ok := parent[keyOf(gf)]; !ok {
				parent[keyOf(gf)] = keyOf(gf)
				cols[keyOf(gf)] = gf
			}
		}
		parent[find(keyOf(a))] = find(keyOf(b))
	}
	byRoot := map[colKey]int{}
	var classes []equiClass
	for k, gf := range cols {
		root := find(k)
		i, ok := byRoot[root]
		if !ok {
			i = len(classes)
			byRoot[root] = i
			classes = append(classes, equiClass{})
		}
		classes[i].cols = append(classes[i].cols, gf)
	}
	return classes, rest
}

// crossEquality matches a = b with a a column of one side and b of the
// other.
func crossEquality(l, r *estimate, f sql.Expression) (*expression.GetField, *expression.GetField, bool) {
	eq, ok := f.(*expression.Equals)
	if !ok {
		return nil, nil, false
	}
	a, okA := eq.Left().(*expression.GetField)
	b, okB := eq.Right().(*expression.GetField)
	if !okA || !okB {
		return nil, nil, false
	}
	if l.reads(a) && r.reads(b) || l.reads(b) && r.reads(a) {
		return a, b, true
	}
	return nil, nil, false
}
