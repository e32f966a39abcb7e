package mysqlfix

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// MySQL 8 refuses a DOUBLE result past its range and a DECIMAL result
// past its 81 digits (nine 9-digit words) with error 1690
// ER_DATA_OUT_OF_RANGE ("DOUBLE value is out of range in '…'";
// Item_func::check_float_overflow, Item_func_mul::decimal_op). GMS v0.20.0
// returns ±Inf (printed "+Inf") and a DECIMAL of any length.
// CheckedArithmetic restores the error; integer + - * are IntArithmetic's
// (intarith.go).

// decimalMaxIntDigits is the integer digits MySQL's DECIMAL buffer holds.
const decimalMaxIntDigits = 81

// CheckedArithmetic is + - * or / whose result is a DOUBLE, + - * of
// DECIMALs, or DIV of non-integers.
type CheckedArithmetic struct {
	sql.Expression // GMS's *expression.Arithmetic or *expression.Div
}

var _ sql.Expression = (*CheckedArithmetic)(nil)

// NewCheckedArithmetic wraps GMS's e when its result can leave its type's
// range.
func NewCheckedArithmetic(e sql.Expression) (*CheckedArithmetic, bool) {
	switch x := e.(type) {
	case *expression.Arithmetic:
		switch x.Op {
		case "+", "-", "*":
		default:
			return nil, false
		}
		if t := x.Type(); !types.IsFloat(t) && !types.IsDecimal(t) {
			return nil, false
		}
	case *expression.Div:
		if !types.IsFloat(x.Type()) {
			return nil, false
		}
	case *expression.IntDiv:
		// Of a DECIMAL or a DOUBLE (IntDivision takes integers): GMS's
		// error for a quotient past BIGINT is 1105.
	default:
		return nil, false
	}
	return &CheckedArithmetic{Expression: e}, true
}

// Type is GMS's, but for DECIMALs MySQL's digits (mysqlDigits) as a
// column type, so a value is printed at its scale: over a quotient it
// carries more digits (decimaldiv.go).
func (c *CheckedArithmetic) Type() sql.Type {
	t := c.Expression.Type()
	if !types.IsDecimal(t) {
		return t
	}
	if i, s, ok := mysqlDigits(c.Expression); ok {
		return decimalOf(i+s, s)
	}
	return t
}

// Arithmetic is the wrapped + - * (nil for a division), for the
// vectorised path.
func (c *CheckedArithmetic) Arithmetic() *expression.Arithmetic {
	a, _ := c.Expression.(*expression.Arithmetic)
	return a
}

// Eval is GMS's value, or error 1690 when it is out of range.
func (c *CheckedArithmetic) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.Expression.Eval(ctx, row)
	if expression.ErrIntDivDataOutOfRange.Is(err) {
		return nil, mysql.NewSQLError(1690, "22003", "BIGINT value is out of range in '%s'", c.String())
	}
	if err != nil || v == nil {
		return v, err
	}
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) {
			return nil, mysql.NewSQLError(1690, "22003", "DOUBLE value is out of range in '%s'", c.String())
		}
	case float32:
		if math.IsInf(float64(x), 0) {
			return nil, mysql.NewSQLError(1690, "22003", "DOUBLE value is out of range in '%s'", c.String())
		}
	case decimal.Decimal:
		if intDigits(x) > decimalMaxIntDigits {
			return nil, mysql.NewSQLError(1690, "22003", "DECIMAL value is out of range in '%s'", c.String())
		}
	}
	return v, nil
}

// intDigits is the number of digits of d's integer part.
func intDigits(d decimal.Decimal) int {
	n := len(d.Coefficient().Text(10)) + int(d.Exponent())
	if d.Coefficient().Sign() < 0 {
		n--
	}
	return max(n, 0)
}

// WithChildren keeps the replacement.
func (c *CheckedArithmetic) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := c.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if n, ok := NewCheckedArithmetic(e); ok {
		return n, nil
	}
	return e, nil
}

// String is GMS's rendering.
func (c *CheckedArithmetic) String() string { return c.Expression.String() }

// operands are a division's dividend and divisor, or false for + - *.
func (c *CheckedArithmetic) operands() (sql.Expression, sql.Expression, bool) {
	switch x := c.Expression.(type) {
	case *expression.Div:
		return x.LeftChild, x.RightChild, true
	case *expression.IntDiv:
		return x.LeftChild, x.RightChild, true
	}
	return nil, nil, false
}
