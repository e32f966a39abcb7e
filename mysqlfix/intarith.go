package mysqlfix

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// GMS v0.20.0 computes + - * of integers in Go's wrapping arithmetic and
// types a mix of signed and unsigned operands as signed BIGINT, so
// 18446744073709551615 + 0 converts the left operand to int64 (clamping
// it to 9223372036854775807) and 9223372036854775807 + 1 wraps to
// -9223372036854775808. MySQL 8 (Item_func_plus/minus/mul::int_op) types
// the result BIGINT UNSIGNED when either operand is unsigned, computes it
// exactly and refuses a result outside the type with error 1690
// ER_DATA_OUT_OF_RANGE. IntArithmetic restores that.

// errOutOfRange is MySQL's ER_DATA_OUT_OF_RANGE for expression e.
func errOutOfRange(unsigned bool, e sql.Expression) error {
	t := "BIGINT"
	if unsigned {
		t = "BIGINT UNSIGNED"
	}
	return mysql.NewSQLError(1690, "22003", "%s value is out of range in '%s'", t, e.String())
}

// IntArithmetic is +, - or * of two integer operands, MySQL's way.
type IntArithmetic struct {
	*expression.Arithmetic
	unsigned bool
}

var _ sql.Expression = (*IntArithmetic)(nil)

// NewIntArithmetic replaces GMS's a when both operands are integers (not
// YEAR, BIT or a bound parameter of unknown type); otherwise it reports
// false.
func NewIntArithmetic(a *expression.Arithmetic) (*IntArithmetic, bool) {
	switch a.Op {
	case "+", "-", "*":
	default:
		return nil, false
	}
	l, r := a.LeftChild.Type(), a.RightChild.Type()
	if !isInt(l) || !isInt(r) {
		return nil, false
	}
	return &IntArithmetic{Arithmetic: a, unsigned: types.IsUnsigned(l) || types.IsUnsigned(r)}, true
}

func isInt(t sql.Type) bool {
	return types.IsInteger(t) && !types.IsYear(t) && !types.IsBit(t) && t != types.Boolean
}

// Unsigned reports whether the result is BIGINT UNSIGNED.
func (a *IntArithmetic) Unsigned() bool { return a.unsigned }

// Type is BIGINT UNSIGNED when either operand is unsigned, else BIGINT.
func (a *IntArithmetic) Type() sql.Type {
	if a.unsigned {
		return types.Uint64
	}
	return types.Int64
}

// WithChildren keeps the replacement.
func (a *IntArithmetic) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := a.Arithmetic.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if x, ok := e.(*expression.Arithmetic); ok {
		if n, ok := NewIntArithmetic(x); ok {
			return n, nil
		}
	}
	return e, nil
}

// Eval computes the exact result, or error 1690 when it does not fit.
func (a *IntArithmetic) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := a.LeftChild.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := a.RightChild.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, lok := intValue(lv)
	r, rok := intValue(rv)
	if !lok || !rok {
		return a.Arithmetic.Eval(ctx, row) // not an integer after all: GMS's conversion rules
	}
	v, ok := IntOp(a.Op[0], l, r, a.unsigned)
	if !ok {
		return nil, errOutOfRange(a.unsigned, a)
	}
	return v, nil
}

// Int is an integer operand: its value is int64(u) when neg, u otherwise
// (the sign-magnitude form keeps both halves of the 65-bit range).
type Int struct {
	U   uint64
	Neg bool
}

// IntOf is an Int of a signed value.
func IntOf(i int64) Int {
	if i < 0 {
		return Int{U: uint64(-i), Neg: true} // -MinInt64 wraps to 1<<63, its magnitude
	}
	return Int{U: uint64(i)}
}

func intValue(v any) (Int, bool) {
	switch x := v.(type) {
	case int8:
		return IntOf(int64(x)), true
	case int16:
		return IntOf(int64(x)), true
	case int32:
		return IntOf(int64(x)), true
	case int64:
		return IntOf(x), true
	case int:
		return IntOf(int64(x)), true
	case uint8:
		return Int{U: uint64(x)}, true
	case uint16:
		return Int{U: uint64(x)}, true
	case uint32:
		return Int{U: uint64(x)}, true
	case uint64:
		return Int{U: x}, true
	case uint:
		return Int{U: uint64(x)}, true
	case bool:
		if x {
			return Int{U: 1}, true
		}
		return Int{}, true
	}
	return Int{}, false
}

// IntOp is l op r ('+', '-' or '*') as MySQL computes it: a uint64 when
// unsigned, else an int64, and false when the exact result does not fit.
// The vectorised path calls it too, so both paths agree by construction.
func IntOp(op byte, l, r Int, unsigned bool) (any, bool) {
	if !l.Neg && !r.Neg && unsigned {
		return UnsignedOp(op, l.U, r.U)
	}
	x, y := l.big(), r.big()
	switch op {
	case '+':
		x.Add(x, y)
	case '-':
		x.Sub(x, y)
	case '*':
		x.Mul(x, y)
	}
	if unsigned {
		if x.Sign() < 0 || !x.IsUint64() {
			return nil, false
		}
		return x.Uint64(), true
	}
	if !x.IsInt64() {
		return nil, false
	}
	return x.Int64(), true
}

func (i Int) big() *big.Int {
	b := new(big.Int).SetUint64(i.U)
	if i.Neg {
		b.Neg(b)
	}
	return b
}

// SignedOp is IntOp for two int64s with a signed result, without
// allocating: the vectorised path's inner loop.
func SignedOp(op byte, x, y int64) (int64, bool) {
	switch op {
	case '+':
		r := x + y
		return r, (x^r)&(y^r) >= 0
	case '-':
		r := x - y
		return r, (x^y)&(x^r) >= 0
	}
	if x == 0 || y == 0 {
		return 0, true
	}
	r := x * y
	if (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) || r/y != x {
		return 0, false
	}
	return r, true
}

// UnsignedOp is IntOp for two uint64s with an unsigned result.
func UnsignedOp(op byte, x, y uint64) (uint64, bool) {
	var v, carry uint64
	switch op {
	case '+':
		v, carry = bits.Add64(x, y, 0)
	case '-':
		v, carry = bits.Sub64(x, y, 0)
	case '*':
		carry, v = bits.Mul64(x, y)
	}
	return v, carry == 0
}

// String is GMS's rendering of the expression.
func (a *IntArithmetic) String() string { return a.Arithmetic.String() }

// DebugString marks the replacement in plans.
func (a *IntArithmetic) DebugString() string {
	return fmt.Sprintf("MySQLInt(%s)", a.Arithmetic.DebugString())
}

// intArithInWrites swaps integer arithmetic for IntArithmetic in the
// values INSERT and UPDATE write (StrictWrites calls it: GMS's short
// analysis of those statements skips exactSumAvg).
func intArithInWrites(n sql.Node) (sql.Node, error) {
	swap := func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				switch x := e.(type) {
				case *expression.Arithmetic:
					if a, ok := NewIntArithmetic(x); ok {
						return a, transform.NewTree, nil
					}
				case *expression.UnaryMinus:
					if a, ok := NewIntNegation(x); ok {
						return a, transform.NewTree, nil
					}
				}
				return e, transform.SameTree, nil
			})
		})
	}
	out, _, err := transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.InsertInto:
			src, same, err := transform.NodeWithOpaque(x.Source, swap)
			if err != nil || same {
				return n, transform.SameTree, err
			}
			return x.WithSource(src), transform.NewTree, nil
		case *plan.UpdateSource:
			return swap(x)
		}
		return n, transform.SameTree, nil
	})
	return out, err
}

// IntNegation is unary minus of an integer, MySQL's way
// (Item_func_neg::int_op): the negation of an unsigned value is a signed
// BIGINT, and a result outside BIGINT (-BIGINT_MIN, or an unsigned value
// above 2^63) is error 1690. GMS v0.20.0 wraps -u8 into int8, keeps the
// unsigned type for TINYINT..MEDIUMINT UNSIGNED, turns -18446744073709551615
// into 1 and reports -BIGINT_MIN as 1264. The negation of a narrower
// signed value is one type wider (MySQL: max_length + 1, so -INT is a
// BIGINT): GMS keeps the operand's type and clamps -(-128) of a TINYINT
// to 127 and -(-2147483648) of an INT to 2147483647.
type IntNegation struct {
	*expression.UnaryMinus
	unsigned bool
	narrow   sql.Type // the wider type of a narrow signed operand (nil: 64-bit)
}

var _ sql.Expression = (*IntNegation)(nil)

// NewIntNegation replaces GMS's n when its operand is an integer.
func NewIntNegation(n *expression.UnaryMinus) (*IntNegation, bool) {
	t := n.Child.Type()
	if !isInt(t) {
		return nil, false
	}
	neg := &IntNegation{UnaryMinus: n, unsigned: types.IsUnsigned(t)}
	if !neg.unsigned {
		switch t.Type() {
		case sqltypes.Int8, sqltypes.Int16:
			neg.narrow = types.Int32
		case sqltypes.Int24, sqltypes.Int32:
			neg.narrow = types.Int64
		}
	}
	return neg, true
}

// Widened reports whether the result is typed wider than GMS typed it.
func (e *IntNegation) Widened() bool { return e.unsigned || e.narrow != nil }

// Unsigned reports whether the operand is unsigned.
func (e *IntNegation) Unsigned() bool { return e.unsigned }

// Type is BIGINT for an unsigned operand, one wider for a narrow signed
// one, GMS's (BIGINT) otherwise.
func (e *IntNegation) Type() sql.Type {
	switch {
	case e.unsigned:
		return types.Int64
	case e.narrow != nil:
		return e.narrow
	}
	return e.UnaryMinus.Type()
}

// WithChildren keeps the replacement.
func (e *IntNegation) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	x, err := e.UnaryMinus.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if u, ok := x.(*expression.UnaryMinus); ok {
		if n, ok := NewIntNegation(u); ok {
			return n, nil
		}
	}
	return x, nil
}

// Eval negates exactly, or fails with 1690.
func (e *IntNegation) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := e.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	i, ok := intValue(v)
	if !ok {
		return e.UnaryMinus.Eval(ctx, row)
	}
	r, ok := IntOp('-', Int{}, i, false)
	if !ok {
		return nil, errOutOfRange(false, e)
	}
	if e.narrow == types.Int32 {
		n, _ := r.(int64)
		return int32(n), nil // within INT: the operand was at most 16 bits
	}
	return r, nil
}

// String is GMS's rendering.
func (e *IntNegation) String() string { return e.UnaryMinus.String() }

// IntDivision is DIV or MOD (%) of two integers, MySQL's way
// (Item_func_int_div, Item_func_mod::int_op): exact in BIGINT UNSIGNED
// when either operand of DIV, or the dividend of MOD, is unsigned, else
// in BIGINT; a quotient outside the type is 1690, a zero divisor NULL
// (GMS's warning, and 1365 in strict writes). GMS v0.20.0 converts
// unsigned operands to signed for DIV (18446744073709551615 DIV 1 fails)
// and computes MOD of integers as a DECIMAL.
type IntDivision struct {
	sql.Expression // GMS's *expression.IntDiv or *expression.Mod
	left, right    sql.Expression
	mod, unsigned  bool
}

var _ sql.Expression = (*IntDivision)(nil)

// NewIntDivision replaces GMS's DIV or MOD e when both operands are
// integers.
func NewIntDivision(e sql.Expression) (*IntDivision, bool) {
	var l, r sql.Expression
	mod := false
	switch x := e.(type) {
	case *expression.IntDiv:
		l, r = x.LeftChild, x.RightChild
	case *expression.Mod:
		l, r, mod = x.LeftChild, x.RightChild, true
	default:
		return nil, false
	}
	if !isInt(l.Type()) || !isInt(r.Type()) {
		return nil, false
	}
	unsigned := types.IsUnsigned(l.Type()) || (!mod && types.IsUnsigned(r.Type()))
	return &IntDivision{Expression: e, left: l, right: r, mod: mod, unsigned: unsigned}, true
}

// Type is BIGINT UNSIGNED or BIGINT.
func (d *IntDivision) Type() sql.Type {
	if d.unsigned {
		return types.Uint64
	}
	return types.Int64
}

// WithChildren keeps the replacement.
func (d *IntDivision) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := d.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if n, ok := NewIntDivision(e); ok {
		return n, nil
	}
	return e, nil
}

// Eval divides exactly, or fails with 1690.
func (d *IntDivision) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := d.left.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := d.right.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	l, lok := intValue(lv)
	r, rok := intValue(rv)
	if !lok || !rok || r.U == 0 {
		return d.Expression.Eval(ctx, row) // a zero divisor: GMS's NULL and warning
	}
	x, y := l.big(), r.big()
	if d.mod {
		x.Rem(x, y) // the dividend's sign, as C and MySQL
	} else {
		x.Quo(x, y) // truncated toward zero
	}
	switch {
	case d.unsigned && x.Sign() >= 0 && x.IsUint64():
		return x.Uint64(), nil
	case !d.unsigned && x.IsInt64():
		return x.Int64(), nil
	}
	return nil, errOutOfRange(d.unsigned, d)
}
