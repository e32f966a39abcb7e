package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// IntAbs is ABS of an integer, MySQL's way (Item_func_abs::int_op): exact,
// one type wider than a narrow signed operand (so ABS(-128) of a TINYINT
// is 128 and ABS(-2147483648) of an INT 2147483648), and error 1690 for
// ABS(-9223372036854775808). GMS v0.20.0 keeps the operand's type and
// returns -128 and -2147483648 unchanged.
type IntAbs struct {
	*function.AbsVal
	typ sql.Type
}

var _ sql.Expression = (*IntAbs)(nil)

// NewIntAbs replaces GMS's a when its operand is an integer.
func NewIntAbs(a *function.AbsVal) (*IntAbs, bool) {
	t := a.Child.Type()
	if !isInt(t) {
		return nil, false
	}
	typ := t
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Int16:
		typ = types.Int32
	case sqltypes.Int24, sqltypes.Int32:
		typ = types.Int64
	}
	return &IntAbs{AbsVal: a, typ: typ}, true
}

// Widened reports whether the result is typed wider than GMS typed it.
func (e *IntAbs) Widened() bool { return e.typ != e.AbsVal.Child.Type() }

// Type is the operand's type, one wider when narrow and signed.
func (e *IntAbs) Type() sql.Type { return e.typ }

// Eval is the exact absolute value, or 1690.
func (e *IntAbs) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := e.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	i, ok := intValue(v)
	if !ok || types.IsUnsigned(e.typ) {
		return e.AbsVal.Eval(ctx, row)
	}
	i.Neg = false
	r, ok := IntOp('+', Int{}, i, false)
	if !ok {
		return nil, errOutOfRange(false, e)
	}
	if e.typ == types.Int32 {
		n, _ := r.(int64)
		return int32(n), nil // within INT: the operand was at most 16 bits
	}
	return r, nil
}

// WithChildren keeps the replacement.
func (e *IntAbs) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	x, err := e.AbsVal.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if a, ok := x.(*function.AbsVal); ok {
		if n, ok := NewIntAbs(a); ok {
			return n, nil
		}
	}
	return x, nil
}

// String is GMS's rendering.
func (e *IntAbs) String() string { return e.AbsVal.String() }
