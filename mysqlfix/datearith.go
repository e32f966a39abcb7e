package mysqlfix

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// GMS v0.20.0's DATE_ADD and DATE_SUB go a year too far when the month
// they reach is a December past the next year ('2024-03-01' + INTERVAL 21
// MONTH is 2026-12-01, MySQL 2025-12-01: its month arithmetic takes
// m % 12 == 0 as December but still adds m / 12 years), and type a
// DATETIME argument's result DATETIME(6), so DATE_ADD of a DATETIME
// prints '….000000' (MySQL: the argument's precision, unless the interval
// is in microseconds or fractional).

// DateArith is DATE_ADD or DATE_SUB over a DATE, DATETIME or TIMESTAMP
// argument, MySQL's way.
type DateArith struct {
	sql.Expression // GMS's *function.DateAdd or *function.DateSub
	date           sql.Expression
	interval       *expression.Interval
	sign           int64
	typ            sql.Type
}

var _ sql.Expression = (*DateArith)(nil)

// NewDateArith replaces GMS's e when its date argument is a temporal
// column type (text arguments keep GMS's text answers).
func NewDateArith(e sql.Expression) (*DateArith, bool) {
	d := &DateArith{Expression: e, sign: 1}
	switch x := e.(type) {
	case *function.DateAdd:
		d.date, d.interval = x.Date, x.Interval
	case *function.DateSub:
		d.date, d.interval, d.sign = x.Date, x.Interval, -1
	default:
		return nil, false
	}
	dt, ok := d.date.Type().(sql.DatetimeType)
	if !ok || d.interval == nil {
		return nil, false
	}
	d.typ = e.Type()
	if d.typ.Type() == sqltypes.Datetime && wholeInterval(d.interval) {
		d.typ = types.MustCreateDatetimeType(sqltypes.Datetime, dt.Precision())
	}
	return d, true
}

// wholeInterval reports whether the interval adds no fraction of a
// second: a unit without MICROSECOND and an integer amount.
func wholeInterval(i *expression.Interval) bool {
	return !strings.Contains(strings.ToUpper(i.Unit), "MICROSECOND") && types.IsInteger(i.Child.Type())
}

// Type is the argument's precision for a whole interval, else GMS's.
func (d *DateArith) Type() sql.Type { return d.typ }

// Eval adds year and month intervals by calendar months, clamping the day
// to the month's last as MySQL does; other intervals are GMS's.
func (d *DateArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	delta, err := d.interval.EvalDelta(ctx, row)
	if err != nil || delta == nil {
		return nil, err
	}
	months := delta.Years*12 + delta.Months
	rest := *delta
	rest.Years, rest.Months = 0, 0
	if months == 0 || rest != (expression.TimeDelta{}) {
		return d.converted(ctx, row)
	}
	v, err := d.date.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	t, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
	if err != nil {
		return d.converted(ctx, row) // GMS's warning 1292 and NULL
	}
	res := types.ValidateTime(addMonths(t.(time.Time), d.sign*months))
	if res == nil {
		return nil, nil
	}
	out, _, err := d.typ.Convert(ctx, res)
	return out, err
}

// converted is GMS's value in d's type.
func (d *DateArith) converted(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Expression.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	out, _, err := d.typ.Convert(ctx, v)
	return out, err
}

// addMonths moves t by n calendar months, the day clamped to the last of
// the month reached.
func addMonths(t time.Time, n int64) time.Time {
	total := int64(t.Year())*12 + int64(t.Month()-1) + n
	y, m := total/12, total%12
	if m < 0 {
		y, m = y-1, m+12
	}
	month := time.Month(m + 1)
	day := min(t.Day(), time.Date(int(y), month+1, 0, 0, 0, 0, 0, time.UTC).Day())
	return time.Date(int(y), month, day, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}

// Children is GMS's expression: GMS validates that an INTERVAL's parent
// is DATE_ADD, DATE_SUB or + and -.
func (d *DateArith) Children() []sql.Expression { return []sql.Expression{d.Expression} }

// WithChildren keeps the replacement (once: a rule that wraps GMS's
// expression again below this one is undone).
func (d *DateArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	if inner, ok := children[0].(*DateArith); ok {
		return inner, nil
	}
	if n, ok := NewDateArith(children[0]); ok {
		return n, nil
	}
	return children[0], nil
}

// String is GMS's rendering.
func (d *DateArith) String() string { return d.Expression.String() }
