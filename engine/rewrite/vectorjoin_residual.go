package rewrite

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
)

// innerResidual reads a condition comparing a column of the probe with
// a column of an inner build leaf (TPC-H Q17's l_quantity < the
// decorrelated 0.2 * AVG(l_quantity)) as that leaf's residual: a build
// row matches a tuple only if it holds. Exact widenings of a DECIMAL
// (GMS's CONVERT to the comparison type) are looked through.
func (t *joinTree) innerResidual(probe int, e sql.Expression) bool {
	set, ok := t.leavesOf(e)
	if !ok || len(set) != 2 || !set[probe] {
		return false
	}
	leaf := -1
	for i := range set {
		if i != probe {
			leaf = i
		}
	}
	if t.leaves[leaf].kind != scan.JoinInner {
		return false
	}
	r, ok := t.residual(leaf, widenedOperands(e))
	if !ok || t.leafOf(r.other) != probe {
		return false
	}
	t.leaves[leaf].residuals = append(t.leaves[leaf].residuals, r)
	return true
}

// widenedOperands is comparison e with each operand that is an exact
// DECIMAL widening of a column replaced by the column.
func widenedOperands(e sql.Expression) sql.Expression {
	c, ok := e.(expression.Comparer)
	if !ok {
		return e
	}
	// Compared by the flags, not by ==: an operand may be an uncomparable
	// type (expression.Tuple is a slice), and == on it panics.
	l, lok := unwiden(c.Left())
	r, rok := unwiden(c.Right())
	if !lok && !rok {
		return e
	}
	out, err := e.WithChildren(l, r)
	if err != nil {
		return e
	}
	return out
}

// unwiden is the column under CONVERT(col, DECIMAL(p,s)) when every
// value of the column converts exactly (no fewer integer or fraction
// digits) and true, else e and false.
func unwiden(e sql.Expression) (sql.Expression, bool) {
	cv, ok := e.(*expression.Convert)
	if !ok {
		return e, false
	}
	gf, ok := cv.Child.(*expression.GetField)
	if !ok {
		return e, false // CONVERT of an expression, not of a column
	}
	to, ok2 := cv.Type().(sql.DecimalType)
	from, ok3 := gf.Type().(sql.DecimalType)
	if !ok2 || !ok3 || cv.Type().Type() != from.Type() {
		return e, false
	}
	if to.Scale() < from.Scale() || to.Precision()-to.Scale() < from.Precision()-from.Scale() {
		return e, false
	}
	return gf, true
}

// residualType fits a DECIMAL build column compared by residual r (op,
// from the build column's side) with a probe DECIMAL column of another
// scale: the build values are stored rounded to the probe's scale, down
// or up as the comparison needs, so that comparing them at that scale
// decides exactly as comparing the values does (p < v iff p < ceil(v)
// for p of that scale). It reports the column's type and rounding, or
// false when none is exact (=, <>, other types).
func residualType(build, probe schema.Type, r joinResidual) (schema.Type, roundDir, bool) {
	if build.Kind != schema.Decimal || probe.Kind != schema.Decimal {
		return build, roundNone, true
	}
	if build.Scale == probe.Scale && build.Precision <= 38 {
		return build, roundNone, true
	}
	if r.not {
		return build, roundNone, false
	}
	t := schema.Type{Kind: schema.Decimal, Precision: 38, Scale: probe.Scale}
	switch r.op {
	case scan.OpLt, scan.OpGe: // v < p iff floor(v) < p; v >= p iff floor(v) >= p
		return t, roundDown, true
	case scan.OpLe, scan.OpGt: // v <= p iff ceil(v) <= p; v > p iff ceil(v) > p
		return t, roundUp, true
	}
	return build, roundNone, false
}

// roundDir is how a build column's DECIMAL values are rounded to its
// scale as they are collected.
type roundDir int8

const (
	roundNone roundDir = iota
	roundDown
	roundUp
)

// apply rounds v (a build value) to scale.
func (d roundDir) apply(v any, scale int) any {
	x, ok := v.(decimal.Decimal)
	if !ok || d == roundNone {
		return v
	}
	if d == roundDown {
		return x.RoundFloor(int32(scale))
	}
	return x.RoundCeil(int32(scale))
}

// roundedOnly reports whether every rounded build column serves only its
// residual: not a key, a group key, an aggregate or another residual's.
func roundedOnly(builds []scan.JoinBuild, sides []buildCols, groupBy []scan.JoinCol, aggs []scan.JoinAggSpec) bool {
	uses := map[scan.JoinCol]int{}
	for s, b := range builds {
		for _, k := range b.Keys {
			uses[scan.JoinCol{Build: true, Side: s, ID: k}]++
		}
		for _, r := range b.Residuals {
			uses[scan.JoinCol{Build: true, Side: s, ID: r.Build}]++
			uses[r.Other]++
		}
		for _, c := range b.On {
			uses[c]++
		}
	}
	for _, g := range groupBy {
		uses[g]++
	}
	for _, a := range aggs {
		uses[a.Col]++
	}
	for s, sd := range sides {
		for k, d := range sd.round {
			if d != roundNone && uses[scan.JoinCol{Build: true, Side: s, ID: k}] != 1 {
				return false
			}
		}
	}
	return true
}

// fitResidual gives build column mine the type and rounding its residual
// r with other needs (residualType), or reports false. Rounding needs
// a probe column on the other side.
func (js *joinScope) fitResidual(mine, other scan.JoinCol, r joinResidual) bool {
	bc := &js.sides[mine.Side]
	var ot schema.Type
	if other.Build {
		o := js.sides[other.Side]
		ot = o.types[other.ID]
	} else {
		c, ok := js.pschem.ByID(other.ID)
		if !ok {
			return false
		}
		ot = c.Type
	}
	t, d, ok := residualType(bc.types[mine.ID], ot, r)
	if !ok || d != roundNone && (other.Build || bc.round[mine.ID] != roundNone) {
		return false
	}
	bc.types[mine.ID], bc.round[mine.ID] = t, d
	return true
}
