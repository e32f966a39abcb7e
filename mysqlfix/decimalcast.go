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

// NewDecimalCast returns MySQL's CAST for a CAST to a DECIMAL of scale
// 0, or false for any other conversion.
func NewDecimalCast(c *expression.Convert) (sql.Expression, bool) {
	p, ok := integerDecimalCast(c)
	if !ok {
		return nil, false
	}
	t, err := types.CreateColumnDecimalType(p, 0)
	if err != nil {
		return nil, false
	}
	return &decimalCast{conv: c, typ: t}, true
}

// integerDecimalCast reports whether c is a CAST to DECIMAL(M,0) and its
// M, or false for any other conversion.
func integerDecimalCast(c *expression.Convert) (uint8, bool) {
	if c.Type() != types.InternalDecimalType {
		return 0, false
	}
	v := reflect.ValueOf(c).Elem()
	to, length, scale := v.FieldByName("castToType"), v.FieldByName("typeLength"), v.FieldByName("typeScale")
	if !to.IsValid() || !length.IsValid() || !scale.IsValid() || to.String() != expression.ConvertToDecimal || scale.Int() != 0 {
		return 0, false
	}
	// Length 0 is GMS's own conversion (a UNION's columns are unified
	// with CAST AS DECIMAL and no length, meaning its widest type); the
	// user's CAST AS DECIMAL says DECIMAL(10) by now (decimalCastLength).
	if m := length.Int(); m > 0 && m <= types.DecimalTypeMaxPrecision {
		return uint8(m), true
	}
	return 0, false
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

// decimalCast is a CAST to DECIMAL(M,0) as MySQL evaluates it: GMS's
// Convert gives the exact value, which is rounded to an integer and
// kept within M digits.
type decimalCast struct {
	conv *expression.Convert
	typ  sql.DecimalType
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
	return &decimalCast{conv: c.(*expression.Convert), typ: d.typ}, nil
}

func (d *decimalCast) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.conv.Eval(ctx, row)
	if v == nil || err != nil {
		return v, err
	}
	dec, ok := v.(decimal.Decimal)
	if !ok {
		return nil, fmt.Errorf("mysqlfix: CAST AS DECIMAL gave %T", v)
	}
	dec = dec.Round(0)
	limit := decimal.New(1, int32(d.typ.Precision())).Sub(decimal.New(1, 0))
	if dec.Abs().GreaterThan(limit) {
		ctx.Warn(1264, "Out of range value for column '%s' at row 1", d.String())
		if dec.Sign() < 0 {
			return limit.Neg(), nil
		}
		return limit, nil
	}
	return dec, nil
}
