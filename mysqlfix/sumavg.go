package mysqlfix

import (
	"math/big"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// MySQL's decimal limits and the digits SUM and AVG add
// (DECIMAL_LONGLONG_DIGITS and div_precision_increment's default).
const (
	maxPrecision = 65
	maxScale     = 30
	sumDigits    = 22
	avgDigits    = 4
)

// GMS v0.20.0 types SUM and AVG as DOUBLE whatever they aggregate (the
// planner hardcodes it) and sums integers in float64. MySQL answers
// DECIMAL for SUM and AVG of integers and DECIMALs, exactly:
//
//	SUM(DECIMAL(p,s)) → DECIMAL(min(p+22,65), s)
//	AVG(DECIMAL(p,s)) → DECIMAL(min(p+4,65), min(s+4,30))
//	SUM(int)          → DECIMAL(digits+22, 0)
//	AVG(int)          → DECIMAL(digits+4, 4)
//
// where digits is the integer type's decimal precision (BIGINT 19,
// BIGINT UNSIGNED 20, ...). Other arguments (floats, strings, dates) stay
// DOUBLE, as in MySQL.

// SumType is MySQL's type of SUM over t, and false when it is DOUBLE
// (GMS's own SUM is then right).
func SumType(t sql.Type) (sql.DecimalType, bool) {
	p, s, ok := decimalDigits(t)
	if !ok {
		return nil, false
	}
	return types.MustCreateDecimalType(min(p+sumDigits, maxPrecision), s), true
}

// AvgType is MySQL's type of AVG over t, and false when it is DOUBLE.
func AvgType(t sql.Type) (sql.DecimalType, bool) {
	p, s, ok := decimalDigits(t)
	if !ok {
		return nil, false
	}
	return types.MustCreateDecimalType(min(p+avgDigits, maxPrecision), min(s+avgDigits, maxScale)), true
}

// decimalDigits is the precision and scale MySQL gives a value of type t
// (Item::decimal_precision), for integers and DECIMALs only.
func decimalDigits(t sql.Type) (uint8, uint8, bool) {
	if d, ok := t.(sql.DecimalType); ok {
		return d.Precision(), d.Scale(), true
	}
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Uint8:
		return 3, 0, true
	case sqltypes.Int16, sqltypes.Uint16:
		return 5, 0, true
	case sqltypes.Int24, sqltypes.Uint24:
		return 8, 0, true
	case sqltypes.Int32, sqltypes.Uint32:
		return 10, 0, true
	case sqltypes.Int64:
		return 19, 0, true
	case sqltypes.Uint64:
		return 20, 0, true
	}
	return 0, 0, false
}

// Sum is SUM as MySQL types it: an exact DECIMAL over integers and
// DECIMALs, else DOUBLE (GMS's buffer), and NULL over no rows. It keeps
// GMS's Sum (its name, id and children) and changes only the type,
// nullability and buffer.
type Sum struct {
	*aggregation.Sum
	typ sql.Type
}

// Avg is AVG as MySQL types it: an exact DECIMAL over integers and DECIMALs
// rounded half away from zero to the type's scale, as MySQL divides; else
// DOUBLE (GMS's buffer).
type Avg struct {
	*aggregation.Avg
	typ sql.Type
}

var (
	_ sql.Aggregation = (*Sum)(nil)
	_ sql.Aggregation = (*Avg)(nil)
)

// NewSum returns MySQL's SUM for s, as an aggregate or a window function
// (sumavg_window.go); SUM(DISTINCT …) OVER keeps GMS's.
func NewSum(s *aggregation.Sum) (*Sum, bool) {
	if s.Window() != nil && isDistinct(s.Child) {
		return nil, false
	}
	if t, ok := SumType(s.Child.Type()); ok {
		return &Sum{Sum: s, typ: t}, true
	}
	return &Sum{Sum: s, typ: types.Float64}, true
}

// NewAvg returns MySQL's AVG for a, as an aggregate or a window function
// (sumavg_window.go); AVG(DISTINCT …) OVER keeps GMS's.
func NewAvg(a *aggregation.Avg) (*Avg, bool) {
	if a.Window() != nil && isDistinct(a.Child) {
		return nil, false
	}
	if t, ok := AvgType(a.Child.Type()); ok {
		return &Avg{Avg: a, typ: t}, true
	}
	return &Avg{Avg: a, typ: types.Float64}, true
}

func (s *Sum) Type() sql.Type   { return s.typ }
func (s *Sum) IsNullable() bool { return true }
func (s *Sum) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := s.Sum.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &Sum{Sum: c.(*aggregation.Sum), typ: s.typ}, nil
}
func (s *Sum) WithId(id sql.ColumnId) sql.IdExpression {
	return &Sum{Sum: s.Sum.WithId(id).(*aggregation.Sum), typ: s.typ}
}
func (s *Sum) NewBuffer() (sql.AggregationBuffer, error) {
	child, err := transform.Clone(s.Child)
	if err != nil {
		return nil, err
	}
	if d, ok := s.typ.(sql.DecimalType); ok {
		return &decimalBuffer{expr: child, scale: int32(d.Scale())}, nil
	}
	return aggregation.NewSumBuffer(child), nil
}

func (a *Avg) Type() sql.Type { return a.typ }
func (a *Avg) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := a.Avg.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &Avg{Avg: c.(*aggregation.Avg), typ: a.typ}, nil
}
func (a *Avg) WithId(id sql.ColumnId) sql.IdExpression {
	return &Avg{Avg: a.Avg.WithId(id).(*aggregation.Avg), typ: a.typ}
}
func (a *Avg) NewBuffer() (sql.AggregationBuffer, error) {
	child, err := transform.Clone(a.Child)
	if err != nil {
		return nil, err
	}
	if d, ok := a.typ.(sql.DecimalType); ok {
		return &decimalBuffer{expr: child, scale: int32(d.Scale()), avg: true}, nil
	}
	return aggregation.NewAvgBuffer(child), nil
}

// decimalBuffer sums exactly; AVG divides once, at the end.
type decimalBuffer struct {
	expr  sql.Expression
	scale int32
	avg   bool
	sum   decimal.Decimal
	n     int64
}

func (b *decimalBuffer) Update(ctx *sql.Context, row sql.Row) error {
	v, err := b.expr.Eval(ctx, row)
	if err != nil || v == nil {
		return err
	}
	d, err := toDecimal(ctx, b.expr.Type(), v)
	if err != nil {
		return err
	}
	b.sum = b.sum.Add(d)
	b.n++
	return nil
}

func (b *decimalBuffer) Eval(*sql.Context) (any, error) {
	if b.n == 0 {
		return nil, nil
	}
	return DecimalResult(b.sum, b.n, b.scale, b.avg), nil
}

func (b *decimalBuffer) Dispose() { expression.Dispose(b.expr) }

// DecimalResult is SUM (avg false) or AVG of values summing to sum over n
// rows, at the result type's scale: the one rounding both the row path and
// the vectorised path apply, so they answer the same value.
func DecimalResult(sum decimal.Decimal, n int64, scale int32, avg bool) decimal.Decimal {
	if avg {
		if digits := divScale(frac(sum), 0); digits < scale {
			// MySQL divides to whole 9-digit words (decimaldiv.go), fewer
			// digits than the scale when the sum has fewer than its type.
			q, _ := sum.QuoRem(decimal.NewFromInt(n), digits)
			return q.Round(scale)
		}
		sum = sum.DivRound(decimal.NewFromInt(n), scale)
	}
	return sum.Round(scale)
}

// toDecimal converts one argument value exactly.
func toDecimal(ctx *sql.Context, t sql.Type, v any) (decimal.Decimal, error) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, nil
	case int64:
		return decimal.NewFromInt(x), nil
	case int32:
		return decimal.NewFromInt(int64(x)), nil
	case int16:
		return decimal.NewFromInt(int64(x)), nil
	case int8:
		return decimal.NewFromInt(int64(x)), nil
	case int:
		return decimal.NewFromInt(int64(x)), nil
	case uint64:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(x), 0), nil
	case uint32:
		return decimal.NewFromInt(int64(x)), nil
	case uint16:
		return decimal.NewFromInt(int64(x)), nil
	case uint8:
		return decimal.NewFromInt(int64(x)), nil
	case uint:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(uint64(x)), 0), nil
	}
	// A DECIMAL literal can evaluate to its text; anything else converts
	// the way GMS's DECIMAL type does.
	c, _, err := types.InternalDecimalType.Convert(ctx, v)
	if err != nil {
		return decimal.Decimal{}, err
	}
	return c.(decimal.Decimal), nil
}
