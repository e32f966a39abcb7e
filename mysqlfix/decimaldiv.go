package mysqlfix

import (
	"github.com/shopspring/decimal"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// MySQL 8 divides integers and DECIMALs exactly to a fixed scale: the
// dividend's scale plus div_precision_increment (4), at most 30
// (Item_func_div::result_precision; "Arithmetic Operators" in the
// manual: "the result of division ... has a scale of the scale of the
// first operand plus the value of div_precision_increment"). The value is
// computed to whole 9-digit words past both scales and the increment,
// then rounded to the result's scale (decimal_div, Item_func_div::
// decimal_op), then rounded to the result's scale where it is printed
// (CAST AS CHAR, the result set), so x / 2147483647 is 0 for |x| < 2.1
// and (c / 7) / 7 divides 0.914285714, not 0.91429. GMS v0.20.0 keeps
// every digit, so 0 <> -9.9 / 2147483647 is true and CAST AS CHAR prints
// 0.007692307692307692 (MySQL 0.0076923).

// divPrecisionIncrement is MySQL's default div_precision_increment.
const divPrecisionIncrement = 4

// DecimalDiv is / of two integers or DECIMALs, MySQL's way.
type DecimalDiv struct {
	*expression.Div
	typ sql.DecimalType
}

var _ sql.Expression = (*DecimalDiv)(nil)

// NewDecimalDiv replaces GMS's d when both operands are integers or
// DECIMALs.
func NewDecimalDiv(d *expression.Div) (*DecimalDiv, bool) {
	lp, ls, ok1 := exactDigits(d.LeftChild.Type())
	_, rs, ok2 := exactDigits(d.RightChild.Type())
	if !ok1 || !ok2 {
		return nil, false
	}
	scale := min(ls+divPrecisionIncrement, types.DecimalTypeMaxScale)
	return &DecimalDiv{Div: d, typ: decimalOf(lp+rs+divPrecisionIncrement, scale)}, true
}

// exactDigits is the precision and scale of an integer or DECIMAL type.
func exactDigits(t sql.Type) (int, int, bool) {
	if !types.IsDecimal(t) && (!types.IsInteger(t) || types.IsYear(t) || types.IsBit(t)) {
		return 0, 0, false
	}
	p, s, ok := decimalDigits(t)
	return int(p), int(s), ok
}

// Type is DECIMAL of the dividend's scale plus 4.
func (d *DecimalDiv) Type() sql.Type { return d.typ }

// Eval is the rounded quotient, or NULL with warning 1365 for a zero
// divisor (GMS's and MySQL's SELECT behaviour; strictdiv.go makes writes
// fail).
func (d *DecimalDiv) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := d.LeftChild.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := d.RightChild.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, err := toDecimal(ctx, d.typ, lv)
	if err != nil {
		return nil, err
	}
	r, err := toDecimal(ctx, d.typ, rv)
	if err != nil {
		return nil, err
	}
	if r.IsZero() {
		ctx.Warn(1365, "Division by 0")
		return nil, nil
	}
	q, _ := l.QuoRem(r, divScale(frac(l), frac(r)))
	return q, nil
}

// divScale is the fractional digits MySQL's decimal_div computes for
// operands of f1 and f2 fractional digits: whole 9-digit words of both
// and the increment, the increment reduced by the words' spare digits.
func divScale(f1, f2 int32) int32 {
	w1, w2 := roundUpWord(f1), roundUpWord(f2)
	incr := max(divPrecisionIncrement-(w1-f1)-(w2-f2), 0)
	return roundUpWord(w1 + w2 + incr)
}

func roundUpWord(digits int32) int32 { return (digits + 8) / 9 * 9 }

func frac(d decimal.Decimal) int32 { return max(-d.Exponent(), 0) }

// decimalText is a DECIMAL operand of CAST AS CHAR: MySQL prints a
// DECIMAL at its type's scale, and a quotient (or an expression over
// one) carries more digits than that.
type decimalText struct {
	child sql.Expression
}

var _ sql.Expression = (*decimalText)(nil)

func (t *decimalText) Resolved() bool             { return t.child.Resolved() }
func (t *decimalText) IsNullable() bool           { return t.child.IsNullable() }
func (t *decimalText) Type() sql.Type             { return t.child.Type() }
func (t *decimalText) String() string             { return t.child.String() }
func (t *decimalText) Children() []sql.Expression { return []sql.Expression{t.child} }

func (t *decimalText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &decimalText{child: children[0]}, nil
}

// Eval rounds the value to the type's scale.
func (t *decimalText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if d, ok := v.(decimal.Decimal); ok && err == nil {
		if dt, ok := t.Type().(sql.DecimalType); ok {
			return d.Round(int32(dt.Scale())), nil
		}
	}
	return v, err
}

// textOfDecimal gives CAST(x AS CHAR) of a DECIMAL x x's printed text.
func textOfDecimal(c *expression.Convert) (sql.Expression, bool) {
	if !types.IsText(c.Type()) || !types.IsDecimal(c.Child.Type()) {
		return nil, false
	}
	if _, done := c.Child.(*decimalText); done {
		return nil, false
	}
	out, err := c.WithChildren(&decimalText{child: c.Child})
	return out, err == nil
}

// WithChildren keeps the replacement.
func (d *DecimalDiv) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := d.Div.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if x, ok := e.(*expression.Div); ok {
		if n, ok := NewDecimalDiv(x); ok {
			return n, nil
		}
	}
	return e, nil
}

// printedQuotients rounds each selected DECIMAL over a quotient to its
// type's scale, as MySQL sends (and materialises) it; inside the
// expression, and in aggregates, the quotient keeps its digits.
func printedQuotients(p *plan.Project) (sql.Node, bool) {
	exprs := make([]sql.Expression, len(p.Projections))
	changed := false
	for i, e := range p.Projections {
		exprs[i] = e
		root, alias := e, (*expression.Alias)(nil)
		if a, ok := e.(*expression.Alias); ok {
			root, alias = a.Child, a
		}
		if _, done := root.(*decimalText); done || !types.IsDecimal(root.Type()) || !hasQuotient(root) {
			continue
		}
		wrapped := sql.Expression(&decimalText{child: root})
		if alias != nil {
			if w, err := alias.WithChildren(wrapped); err == nil {
				wrapped = w
			} else {
				continue
			}
		}
		exprs[i], changed = wrapped, true
	}
	if !changed {
		return p, false
	}
	return plan.NewProject(exprs, p.Child), true
}

func hasQuotient(e sql.Expression) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		_, ok := e.(*DecimalDiv)
		return ok
	})
}
