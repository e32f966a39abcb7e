package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// MySQL 8 gives CASE, IF, COALESCE and IFNULL over DECIMALs (and
// integers) one DECIMAL type, aggregated from every value it may return
// (Item_func::aggregate_type, "Flow Control Functions" in the manual):
// the widest integer part and the largest scale, so CASE of a
// DECIMAL(2,1) and a DECIMAL(26,2) is DECIMAL(26,2) and prints 5.40.
// GMS v0.20.0 returns whichever value comes out with its own scale (5.4),
// types IFNULL as its first argument (IFNULL(3, 2.5) is TINYINT), and
// converts CASE and COALESCE values to DECIMAL(65,10), rounding a scale
// above 10. DecimalChoice gives them MySQL's type and values.

// DecimalChoice is CASE, IF, COALESCE or IFNULL whose values are
// DECIMALs and integers, at least one a DECIMAL.
type DecimalChoice struct {
	sql.Expression // GMS's *expression.Case, *function.If, *function.Coalesce or *function.IfNull
	typ            sql.DecimalType
}

var _ sql.Expression = (*DecimalChoice)(nil)

// NewDecimalChoice replaces GMS's e when the values it chooses from
// aggregate to a DECIMAL.
func NewDecimalChoice(e sql.Expression) (*DecimalChoice, bool) {
	vals, ok := choiceValues(e)
	if !ok {
		return nil, false
	}
	intDigits, scale, nDec := 0, 0, 0
	for _, v := range vals {
		if lit, ok := v.(*expression.Literal); ok && lit.Value() == nil {
			continue // NULL takes no part in the type
		}
		t := v.Type()
		if types.IsDecimal(t) {
			nDec++
		} else if !types.IsInteger(t) || types.IsYear(t) || types.IsBit(t) {
			return nil, false
		}
		p, s, ok := decimalDigits(t)
		if !ok {
			return nil, false
		}
		intDigits, scale = max(intDigits, int(p)-int(s)), max(scale, int(s))
	}
	if nDec == 0 {
		return nil, false
	}
	return &DecimalChoice{Expression: e, typ: decimalOf(intDigits+scale, scale)}, true
}

// choiceValues are the expressions e may return.
func choiceValues(e sql.Expression) ([]sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.Case:
		var vals []sql.Expression
		for _, b := range x.Branches {
			vals = append(vals, b.Value)
		}
		if x.Else != nil {
			vals = append(vals, x.Else)
		}
		return vals, true
	case *function.If:
		return x.Children()[1:], true
	case *function.Coalesce, *function.IfNull:
		return x.Children(), true
	}
	return nil, false
}

// Type is the aggregated DECIMAL.
func (c *DecimalChoice) Type() sql.Type { return c.typ }

// Eval picks the value as GMS does (but for CASE and COALESCE, without
// their conversion).
func (c *DecimalChoice) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var v any
	var err error
	switch x := c.Expression.(type) {
	case *expression.Case:
		v, err = evalCase(ctx, x, row)
	case *function.Coalesce:
		for _, a := range x.Children() {
			if v, err = a.Eval(ctx, row); err != nil || v != nil {
				break
			}
		}
	default: // IF and IFNULL return the value as it is
		v, err = c.Expression.Eval(ctx, row)
	}
	if err != nil || v == nil {
		return nil, err
	}
	// The value keeps its own digits (a quotient over it divides those,
	// as in MySQL); the column type prints it at the aggregated scale.
	return toDecimal(ctx, c.typ, v)
}

// evalCase is GMS's Case.Eval without the conversion to its type.
func evalCase(ctx *sql.Context, c *expression.Case, row sql.Row) (any, error) {
	for _, b := range c.Branches {
		cond := b.Cond
		if c.Expr != nil {
			cond = expression.NewEquals(c.Expr, b.Cond)
		}
		res, err := sql.EvaluateCondition(ctx, cond, row)
		if err != nil {
			return nil, err
		}
		if sql.IsTrue(res) {
			return b.Value.Eval(ctx, row)
		}
	}
	if c.Else != nil {
		return c.Else.Eval(ctx, row)
	}
	return nil, nil
}

// WithChildren keeps the replacement.
func (c *DecimalChoice) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := c.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if n, ok := NewDecimalChoice(e); ok {
		return n, nil
	}
	return e, nil
}

// String is GMS's rendering.
func (c *DecimalChoice) String() string { return c.Expression.String() }
