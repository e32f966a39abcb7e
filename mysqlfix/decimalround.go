package mysqlfix

import (
	"context"
	"fmt"
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// MySQL 8 types FLOOR, CEILING, ROUND and TRUNCATE of a DECIMAL exactly
// (Item_func_int_val, Item_func_round::resolve_type): FLOOR and CEILING
// give BIGINT when the argument has few enough integer digits and a
// DECIMAL of scale 0 otherwise; ROUND(d, n) and TRUNCATE(d, n) with a
// constant n give a DECIMAL of scale n (clamped to 0..30), with a
// variable n the argument's scale. GMS v0.20.0 types FLOOR/CEILING/ROUND
// of any DECIMAL as INT and clamps wide values to the int32 range, keeps
// ROUND(d, n) at the argument's scale, and has no TRUNCATE at all (1105
// "function: 'truncate' not found"). Found by difftest against MariaDB.

// roundOp is which of the four functions a Rounding is.
type roundOp uint8

const (
	opFloor roundOp = iota + 1
	opCeiling
	opRound
	opTruncate
)

var roundNames = map[roundOp]string{opFloor: "floor", opCeiling: "ceiling", opRound: "round", opTruncate: "truncate"}

// Rounding is FLOOR, CEILING, ROUND or TRUNCATE as MySQL 8 types and
// evaluates it: of a DECIMAL always, and TRUNCATE of any argument.
type Rounding struct {
	op     roundOp
	arg    sql.Expression
	places sql.Expression // ROUND, TRUNCATE: nil means 0
}

var (
	_ sql.FunctionExpression = (*Rounding)(nil)
	_ sql.CollationCoercible = (*Rounding)(nil)
)

// TruncateFunction is MySQL's TRUNCATE(X, D), registered as a built-in.
var TruncateFunction = sql.Function2{Name: "truncate", Fn: func(x, d sql.Expression) sql.Expression {
	return &Rounding{op: opTruncate, arg: x, places: d}
}}

// NewRounding replaces GMS's FLOOR, CEILING or ROUND of a DECIMAL.
func NewRounding(e sql.Expression) (*Rounding, bool) {
	var r *Rounding
	switch x := e.(type) {
	case *function.Floor:
		r = &Rounding{op: opFloor, arg: x.Child}
	case *function.Ceil:
		r = &Rounding{op: opCeiling, arg: x.Child}
	case *function.Round:
		r = &Rounding{op: opRound, arg: x.LeftChild, places: x.RightChild}
	default:
		return nil, false
	}
	if !types.IsDecimal(r.arg.Type()) {
		return nil, false
	}
	return r, true
}

func (r *Rounding) FunctionName() string { return roundNames[r.op] }
func (r *Rounding) Description() string  { return "rounds a number as MySQL 8 does" }
func (r *Rounding) Resolved() bool {
	return r.arg.Resolved() && (r.places == nil || r.places.Resolved())
}
func (r *Rounding) IsNullable() bool {
	return r.arg.IsNullable() || (r.places != nil && r.places.IsNullable())
}

func (r *Rounding) Children() []sql.Expression {
	if r.places == nil {
		return []sql.Expression{r.arg}
	}
	return []sql.Expression{r.arg, r.places}
}

func (r *Rounding) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(r.Children()) {
		return nil, sql.ErrInvalidChildrenNumber.New(r, len(children), len(r.Children()))
	}
	n := &Rounding{op: r.op, arg: children[0]}
	if len(children) == 2 {
		n.places = children[1]
	}
	if n.op == opTruncate || types.IsDecimal(n.arg.Type()) {
		return n, nil
	}
	// No longer of a DECIMAL: GMS's own function.
	switch n.op {
	case opFloor:
		return function.NewFloor(n.arg), nil
	case opCeiling:
		return function.NewCeil(n.arg), nil
	}
	return function.NewRound(n.Children()...)
}

func (r *Rounding) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (r *Rounding) String() string {
	if r.places == nil {
		return fmt.Sprintf("%s(%s)", r.FunctionName(), r.arg)
	}
	return fmt.Sprintf("%s(%s,%s)", r.FunctionName(), r.arg, r.places)
}

// constPlaces is n when places is a constant (a literal, or minus one).
func (r *Rounding) constPlaces() (int64, bool) {
	if r.places == nil {
		return 0, true
	}
	e := r.places
	neg := false
	if m, ok := e.(*expression.UnaryMinus); ok {
		e, neg = m.Child, true
	}
	lit, ok := e.(*expression.Literal)
	if !ok || lit.Value() == nil {
		return 0, false
	}
	v, _, err := types.Int64.Convert(context.Background(), lit.Value())
	if err != nil {
		return 0, false
	}
	if neg {
		return -v.(int64), true
	}
	return v.(int64), true
}

// Type is MySQL's: see the file comment.
func (r *Rounding) Type() sql.Type {
	t := r.arg.Type()
	switch {
	case types.IsDecimal(t):
		return r.decimalType(t.(sql.DecimalType), r.arg)
	case types.IsFloat(t), !types.IsNumber(t):
		return types.Float64
	case types.IsUnsigned(t) && !isLiteral(r.arg):
		return types.Uint64 // GMS types a literal above 127 unsigned; MySQL does not
	}
	return types.Int64
}

func isLiteral(e sql.Expression) bool {
	_, ok := e.(*expression.Literal)
	return ok
}

// decimalDigitsLonglong is MySQL's DECIMAL_LONGLONG_DIGITS: FLOOR and
// CEILING of a DECIMAL whose display width less its scale reaches
// DECIMAL_LONGLONG_DIGITS - 2 are DECIMAL, narrower ones BIGINT.
const decimalDigitsLonglong = 22

func (r *Rounding) decimalType(d sql.DecimalType, arg sql.Expression) sql.Type {
	p, s := int(d.Precision()), int(d.Scale())
	if i, sc, ok := mysqlDigits(arg); ok && sc == s {
		p = min(i+sc, types.DecimalTypeMaxPrecision)
	}
	switch r.op {
	case opFloor, opCeiling:
		width := p + 1 // the sign
		if s > 0 {
			width++ // the point
		}
		if width-s < decimalDigitsLonglong-2 {
			return types.Int64
		}
		return decimalOf(p-s+1, 0)
	}
	n, ok := r.constPlaces()
	if !ok {
		return decimalOf(p, s) // the argument's type; values rounded to n
	}
	dec := int(min(max(n, 0), types.DecimalTypeMaxScale))
	delta := s - dec
	grow := 0
	if delta > 0 && r.op == opRound {
		grow = 1 // 9.5 rounds to 10
	}
	return decimalOf(p-delta+grow, dec)
}

// decimalOf is DECIMAL(p,s), p kept within 1..65 and at least s.
func decimalOf(p, s int) sql.DecimalType {
	p = min(max(p, s, 1), types.DecimalTypeMaxPrecision)
	t, err := types.CreateColumnDecimalType(uint8(p), uint8(s))
	if err != nil {
		return types.MustCreateDecimalType(types.DecimalTypeMaxPrecision, uint8(s))
	}
	return t
}

// Eval computes the value in the result type.
func (r *Rounding) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := r.arg.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	var n int64
	if r.places != nil {
		p, err := r.places.Eval(ctx, row)
		if err != nil || p == nil {
			return nil, err
		}
		pv, _, err := types.Int64.Convert(ctx, p)
		if err != nil {
			return nil, err
		}
		n = pv.(int64)
	}
	switch t := r.Type(); {
	case types.IsFloat(t):
		f, _, err := types.Float64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		return roundFloat(f.(float64), n, r.op == opTruncate), nil
	case types.IsDecimal(t) || types.IsDecimal(r.arg.Type()):
		d, ok := v.(decimal.Decimal)
		if !ok {
			return nil, fmt.Errorf("mysqlfix: %s of a DECIMAL gave %T", r.FunctionName(), v)
		}
		return r.decimalValue(d, n, t), nil
	case types.IsUnsigned(t):
		u, _, err := types.Uint64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		return truncUint(u.(uint64), n), nil
	default:
		i, _, err := types.Int64.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		return truncInt(i.(int64), n), nil
	}
}

// decimalValue is d rounded as r's function does, in type t.
func (r *Rounding) decimalValue(d decimal.Decimal, n int64, t sql.Type) any {
	n = min(max(n, -decimalMaxDigits), decimalMaxDigits)
	switch r.op {
	case opFloor:
		d = d.Floor()
	case opCeiling:
		d = d.Ceil()
	case opRound:
		d = d.Round(int32(n))
	default:
		d = d.Shift(int32(n)).Truncate(0).Shift(-int32(n))
	}
	dt, ok := t.(sql.DecimalType)
	if !ok {
		return d.IntPart() // FLOOR/CEILING typed BIGINT: at most 18 digits
	}
	return d.Round(int32(dt.Scale())) // printed at the type's scale
}

// decimalMaxDigits bounds a place count: MySQL's DECIMAL has 81 digits.
const decimalMaxDigits = 81

// roundFloat is MySQL's my_double_round.
func roundFloat(v float64, n int64, truncate bool) float64 {
	neg := n < 0
	abs := n
	if neg {
		abs = -n
	}
	tmp := math.Pow(10, float64(abs))
	mul := v * tmp
	switch {
	case neg && math.IsInf(tmp, 0):
		return 0
	case !neg && math.IsInf(mul, 0):
		return v
	case truncate:
		f := math.Floor
		if v < 0 {
			f = math.Ceil
		}
		if neg {
			return f(v/tmp) * tmp
		}
		return f(mul) / tmp
	case neg:
		return math.RoundToEven(v/tmp) * tmp
	}
	return math.RoundToEven(mul) / tmp
}

// truncInt is TRUNCATE of a signed integer: n ≥ 0 keeps it, n < 0 zeroes
// its last -n digits (toward zero, so it cannot overflow).
func truncInt(v, n int64) int64 {
	if n >= 0 {
		return v
	}
	if n < -18 {
		return 0
	}
	p := int64(math.Pow10(int(-n)))
	return v / p * p
}

func truncUint(v uint64, n int64) uint64 {
	if n >= 0 {
		return v
	}
	if n < -19 {
		return 0
	}
	p := uint64(1)
	for range -n {
		p *= 10
	}
	return v / p * p
}

// RegisterFunctions adds the functions GMS lacks to a's catalog (TRUNCATE).
func RegisterFunctions(ctx *sql.Context, a *analyzer.Analyzer) {
	a.Catalog.RegisterFunction(ctx, TruncateFunction)
}

// mysqlDigits is the integer digits and scale MySQL gives e's DECIMAL
// type (Item_func_plus/minus/mul::result_precision): GMS understates the
// precision of arithmetic (DECIMAL(15,4) * INT is not 25 digits), and
// FLOOR and CEILING pick BIGINT or DECIMAL by it.
func mysqlDigits(e sql.Expression) (intDigits, scale int, ok bool) {
	switch x := e.(type) {
	case *CheckedArithmetic:
		return mysqlDigits(x.Expression)
	case *Extreme:
		// Typed DECIMAL(65,s) so that any value fits; MySQL's precision
		// is its arguments' widest.
		if !types.IsDecimal(x.typ) {
			break
		}
		for _, a := range x.args {
			ai, as, ok := mysqlDigits(a)
			if !ok {
				return 0, 0, false
			}
			intDigits, scale = max(intDigits, ai), max(scale, as)
		}
		return intDigits, scale, true
	case *expression.Arithmetic:
		li, ls, ok1 := mysqlDigits(x.LeftChild)
		ri, rs, ok2 := mysqlDigits(x.RightChild)
		if !ok1 || !ok2 {
			break
		}
		switch x.Op {
		case "+", "-":
			return min(max(li, ri)+1, types.DecimalTypeMaxPrecision), max(ls, rs), true
		case "*":
			return min(li+ri, types.DecimalTypeMaxPrecision), min(ls+rs, types.DecimalTypeMaxScale), true
		}
	}
	p, s, ok := decimalDigits(e.Type())
	return int(p) - int(s), int(s), ok
}
