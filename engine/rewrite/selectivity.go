package rewrite

import (
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// Selectivities used where the statistics say nothing (System R's
// classic guesses): an equality with a value, a range, anything else.
const (
	guessEq    = 0.1
	guessRange = 1.0 / 3
	guessOther = 0.5
)

// selectivity estimates the fraction of e's rows that satisfy the
// conjunction of filters, and pins the distinct counts the filters
// imply (a column equal to a value has one). Range conditions on one
// column combine into one interval (a date range is not two independent
// halves).
func selectivity(ctx *sql.Context, e *estimate, filters []sql.Expression) float64 {
	s := 1.0
	ranges := map[colKey]*interval{}
	var order []colKey
	for _, f := range filters {
		if gf, frac, upper, ok := rangeBound(ctx, e, f); ok {
			k := keyOf(gf)
			iv := ranges[k]
			if iv == nil {
				iv = &interval{lo: 0, hi: 1, notNull: notNullFrac(e.column(gf))}
				ranges[k] = iv
				order = append(order, k)
			}
			if upper {
				iv.hi = math.Min(iv.hi, frac)
			} else {
				iv.lo = math.Max(iv.lo, frac)
			}
			continue
		}
		s *= condSel(ctx, e, f)
		if eq, ok := f.(*expression.Equals); ok {
			if gf, _, ok := colAndValue(ctx, eq.Left(), eq.Right()); ok && e.reads(gf) {
				e.pin(gf, 1)
			}
		}
	}
	for _, k := range order {
		iv := ranges[k]
		s *= iv.notNull * math.Max(0, iv.hi-iv.lo)
	}
	return clamp01(s)
}

// interval is the fraction of a column's range that range conditions
// keep: from lo to hi, of the non-null values.
type interval struct {
	lo, hi, notNull float64
}

// rangeBound matches a column compared with a value by <, <=, > or >=
// where the column's range places the value: frac is the fraction of the
// values below it, upper whether the condition keeps those below.
func rangeBound(ctx *sql.Context, e *estimate, f sql.Expression) (gf *expression.GetField, frac float64, upper, ok bool) {
	var a, b sql.Expression
	switch x := f.(type) {
	case *expression.LessThan:
		a, b, upper = x.Left(), x.Right(), true
	case *expression.LessThanOrEqual:
		a, b, upper = x.Left(), x.Right(), true
	case *expression.GreaterThan:
		a, b = x.Left(), x.Right()
	case *expression.GreaterThanOrEqual:
		a, b = x.Left(), x.Right()
	default:
		return nil, 0, false, false
	}
	gf, v, ok := colAndValue(ctx, a, b)
	if !ok {
		return nil, 0, false, false
	}
	if _, colLeft := a.(*expression.GetField); !colLeft {
		upper = !upper // value < column: the column is greater
	}
	c := e.column(gf)
	if !c.hasStat {
		return nil, 0, false, false
	}
	frac, ok = c.stat.Below(v)
	return gf, frac, upper, ok
}

// condSel is one condition's selectivity over e's rows.
func condSel(ctx *sql.Context, e *estimate, f sql.Expression) float64 {
	switch x := f.(type) {
	case *expression.And:
		return condSel(ctx, e, x.LeftChild) * condSel(ctx, e, x.RightChild)
	case *expression.Or:
		l, r := condSel(ctx, e, x.LeftChild), condSel(ctx, e, x.RightChild)
		return l + r - l*r
	case *expression.Not:
		return 1 - condSel(ctx, e, x.Child)
	case *expression.Equals:
		return eqSel(ctx, e, x.Left(), x.Right())
	case *expression.NullSafeEquals:
		return eqSel(ctx, e, x.Left(), x.Right())
	case *expression.LessThan:
		return rangeSel(ctx, e, x.Left(), x.Right(), true)
	case *expression.LessThanOrEqual:
		return rangeSel(ctx, e, x.Left(), x.Right(), true)
	case *expression.GreaterThan:
		return rangeSel(ctx, e, x.Left(), x.Right(), false)
	case *expression.GreaterThanOrEqual:
		return rangeSel(ctx, e, x.Left(), x.Right(), false)
	case *expression.Between:
		lo := rangeSel(ctx, e, x.Val, x.Lower, false)
		hi := rangeSel(ctx, e, x.Val, x.Upper, true)
		return clamp01(lo + hi - 1)
	case *expression.InTuple:
		return inSel(ctx, e, x.Left(), x.Right())
	case *expression.HashInTuple:
		return inSel(ctx, e, x.Left(), x.Right())
	case *expression.IsNull:
		return nullSel(e, x.Child)
	case *expression.Like:
		if lit, ok := constValue(ctx, x.RightChild); ok {
			if s, ok := lit.(string); ok && !strings.ContainsAny(s, "%_") {
				return eqSel(ctx, e, x.LeftChild, x.RightChild)
			}
		}
		return guessEq
	case *expression.Literal:
		if v, err := sql.ConvertToBool(ctx, x.Value()); err == nil && !v {
			return 0
		}
		return 1
	}
	return guessOther
}

// eqSel is the selectivity of a = b: 1/distinct for a column and a
// value (0 when the value lies outside the column's range), 1/max of
// the distinct counts for two columns.
func eqSel(ctx *sql.Context, e *estimate, a, b sql.Expression) float64 {
	if gf, v, ok := colAndValue(ctx, a, b); ok {
		c := e.column(gf)
		if c.hasStat && c.stat.Outside(v) {
			return 0
		}
		return notNullFrac(c) * inverse(c.distinct, guessEq)
	}
	ga, okA := a.(*expression.GetField)
	gb, okB := b.(*expression.GetField)
	if okA && okB {
		d := math.Max(e.column(ga).distinct, e.column(gb).distinct)
		return inverse(d, guessEq)
	}
	return guessEq
}

// rangeSel is the selectivity of a < b (less) or a > b (!less), by
// linear interpolation over the column's range.
func rangeSel(ctx *sql.Context, e *estimate, a, b sql.Expression, less bool) float64 {
	gf, v, ok := colAndValue(ctx, a, b)
	if !ok {
		return guessRange
	}
	if _, colLeft := a.(*expression.GetField); !colLeft {
		less = !less // value < column: the column is greater
	}
	c := e.column(gf)
	if !c.hasStat {
		return guessRange
	}
	below, ok := c.stat.Below(v)
	if !ok {
		return guessRange
	}
	if !less {
		below = 1 - below
	}
	return notNullFrac(c) * below
}

// inSel is the selectivity of col IN (values).
func inSel(ctx *sql.Context, e *estimate, left, right sql.Expression) float64 {
	gf, ok := left.(*expression.GetField)
	tup, okT := right.(expression.Tuple)
	if !ok || !okT {
		return guessOther
	}
	c := e.column(gf)
	n := 0.0
	for _, x := range tup {
		v, ok := constValue(ctx, x)
		if ok && c.hasStat && c.stat.Outside(v) {
			continue
		}
		n++
	}
	return clamp01(notNullFrac(c) * n * inverse(c.distinct, guessEq))
}

func nullSel(e *estimate, x sql.Expression) float64 {
	gf, ok := x.(*expression.GetField)
	if !ok {
		return guessEq
	}
	c := e.column(gf)
	if !c.hasStat || c.stat.Rows == 0 {
		return guessEq
	}
	return float64(c.stat.Nulls) / float64(c.stat.Rows)
}

func notNullFrac(c column) float64 {
	if !c.hasStat || c.stat.Rows == 0 {
		return 1
	}
	return 1 - float64(c.stat.Nulls)/float64(c.stat.Rows)
}

// colAndValue matches a column compared with a constant, in either
// order, and returns the constant's value.
func colAndValue(ctx *sql.Context, a, b sql.Expression) (*expression.GetField, any, bool) {
	if gf, ok := a.(*expression.GetField); ok {
		if v, ok := constValue(ctx, b); ok {
			return gf, v, true
		}
	}
	if gf, ok := b.(*expression.GetField); ok {
		if v, ok := constValue(ctx, a); ok {
			return gf, v, true
		}
	}
	return nil, nil, false
}

// constValue evaluates an expression that reads no column, subquery or
// variable (a literal, date arithmetic on literals, a cast): the value a
// filter compares with. Planning has not folded such expressions yet.
func constValue(ctx *sql.Context, x sql.Expression) (any, bool) {
	if lit, ok := x.(*expression.Literal); ok {
		return lit.Value(), lit.Value() != nil
	}
	constant := true
	transform.InspectExpr(x, func(x sql.Expression) bool {
		switch x.(type) {
		case *expression.GetField, *plan.Subquery, *expression.BindVar, *expression.UserVar,
			*expression.SystemVar, *expression.ProcedureParam, sql.Aggregation, sql.WindowAggregation:
			constant = false
		}
		return !constant
	})
	if !constant {
		return nil, false
	}
	v, err := x.Eval(ctx, nil)
	if err != nil || v == nil {
		return nil, false
	}
	return v, true
}

func inverse(d, unknown float64) float64 {
	if d <= 0 {
		return unknown
	}
	return 1 / d
}

func clamp01(x float64) float64 {
	return math.Min(1, math.Max(0, x))
}
