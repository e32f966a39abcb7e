package mysqlfix

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

// MySQL's CAST(x AS DECIMAL) is DECIMAL(10,0), and DECIMAL(M) is
// DECIMAL(M,0): the value rounds half away from zero to an integer
// (CAST(5.5 AS DECIMAL) is 6), and one out of range is the largest of
// the type with warning 1264. GMS v0.20.0 types every CAST to a DECIMAL
// of scale 0 as its internal DECIMAL(65,30) and keeps the value as it
// is, so CAST(5.5 AS DECIMAL) is 5.5, SUM of it answers 30 decimals, and
// CREATE TABLE … AS SELECT of it is refused (precision above 38). The fix
// gives such a cast its DECIMAL(M,0) type and value; exactSumAvg swaps it
// in and retypes the references to it. GMS keeps M only in the Convert's
// unexported typeLength, read here by reflection (the test pins that it
// is found).

// NewDecimalCast returns MySQL's CAST for a CAST to a DECIMAL(M,D) the
// user wrote, or false for any other conversion. GMS gets the type of
// D > 0 right, but gives 0 for a value out of range (MySQL: the type's
// limit, warning 1264).
func NewDecimalCast(c *expression.Convert) (sql.Expression, bool) {
	p, s, ok := userDecimalCast(c)
	if !ok {
		return nil, false
	}
	t, err := types.CreateColumnDecimalType(p, s)
	if err != nil {
		return nil, false
	}
	exact := c
	if s > 0 {
		// The value before GMS fits it to the type.
		exact = expression.NewConvert(c.Child, expression.ConvertToDecimal)
	}
	return &decimalCast{conv: c, exact: exact, typ: t}, true
}

// userDecimalCast reports whether c is a CAST to DECIMAL(M,D) and its M
// and D, or false for any other conversion.
func userDecimalCast(c *expression.Convert) (uint8, uint8, bool) {
	v := reflect.ValueOf(c).Elem()
	to, length, scale := v.FieldByName("castToType"), v.FieldByName("typeLength"), v.FieldByName("typeScale")
	if !to.IsValid() || !length.IsValid() || !scale.IsValid() || to.String() != expression.ConvertToDecimal {
		return 0, 0, false
	}
	if s := scale.Int(); s > 0 {
		d, ok := c.Type().(sql.DecimalType)
		if !ok || int64(d.Scale()) != s {
			return 0, 0, false
		}
		return d.Precision(), d.Scale(), true
	}
	if c.Type() != types.InternalDecimalType {
		return 0, 0, false
	}
	// Length 0 is GMS's own conversion (a UNION's columns are unified
	// with CAST AS DECIMAL and no length, meaning its widest type); the
	// user's CAST AS DECIMAL says DECIMAL(10) by now (decimalCastLength).
	if m := length.Int(); m > 0 && m <= types.DecimalTypeMaxPrecision {
		return uint8(m), 0, true
	}
	return 0, 0, false
}

// decimalCastLength spells every CAST(x AS DECIMAL) and CONVERT(x,
// DECIMAL) of st as MySQL reads it, DECIMAL(10), so that the plan tells
// it from the conversions GMS adds with no length.
func decimalCastLength(st ast.Statement) {
	rewriteExprs(st, true, func(e ast.Expr) (ast.Expr, bool) {
		if c, ok := e.(*ast.ConvertExpr); ok && c.Type != nil && strings.EqualFold(c.Type.Type, "decimal") && c.Type.Length == nil {
			c.Type.Length = ast.NewIntVal([]byte("10"))
		}
		return nil, false
	})
}

// decimalCast is a CAST to DECIMAL(M,D) as MySQL evaluates it: GMS's
// Convert gives the exact value, which is rounded to D decimals and kept
// within M digits.
type decimalCast struct {
	conv  *expression.Convert
	exact *expression.Convert // conv, or (D > 0) its child to GMS's exact DECIMAL
	typ   sql.DecimalType
}

var (
	_ sql.Expression         = (*decimalCast)(nil)
	_ sql.CollationCoercible = (*decimalCast)(nil)
)

func (d *decimalCast) Resolved() bool             { return d.conv.Resolved() }
func (d *decimalCast) String() string             { return d.conv.String() }
func (d *decimalCast) Type() sql.Type             { return d.typ }
func (d *decimalCast) IsNullable() bool           { return d.conv.IsNullable() }
func (d *decimalCast) Children() []sql.Expression { return d.conv.Children() }
func (d *decimalCast) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return d.conv.CollationCoercibility(ctx)
}

func (d *decimalCast) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := d.conv.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	conv := c.(*expression.Convert)
	exact := conv
	if d.typ.Scale() > 0 {
		exact = expression.NewConvert(conv.Child, expression.ConvertToDecimal)
	}
	return &decimalCast{conv: conv, exact: exact, typ: d.typ}, nil
}

func (d *decimalCast) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.exact.Eval(ctx, row)
	if v == nil || err != nil {
		return v, err
	}
	dec, ok := v.(decimal.Decimal)
	if !ok {
		return nil, fmt.Errorf("mysqlfix: CAST AS DECIMAL gave %T", v)
	}
	scale := int32(d.typ.Scale())
	dec = dec.Round(scale)
	limit := decimal.New(1, int32(d.typ.Precision())-scale).Sub(decimal.New(1, -scale))
	if dec.Abs().GreaterThan(limit) {
		ctx.Warn(1264, "Out of range value for column '%s' at row 1", d.String())
		if dec.Sign() < 0 {
			return limit.Neg(), nil
		}
		return limit, nil
	}
	return dec, nil
}
