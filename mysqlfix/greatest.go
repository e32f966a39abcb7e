package mysqlfix

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// GMS v0.20.0's GREATEST and LEAST compare numbers as float64 (BIGINTs
// past 2^53 tie), refuse a DECIMAL value (1105 "unsupported type for
// greatest/least argument: decimal.Decimal", so GREATEST(FLOOR(1.5), 2)
// fails) and type the extreme of DATEs as DATETIME(6). MySQL aggregates
// the arguments' types (Item_func_min_max): integers compare as BIGINT,
// with a DECIMAL as DECIMAL, with a DOUBLE as DOUBLE; DATEs as DATE, with
// a DATETIME as DATETIME. Arguments of other mixes (strings) keep GMS's.

// Extreme is GREATEST (greatest) or LEAST of numeric or of temporal
// arguments, compared and returned in their aggregated type.
type Extreme struct {
	sql.Expression // GMS's *function.Greatest or *function.Least
	args           []sql.Expression
	greatest       bool
	typ            sql.Type
}

var _ sql.Expression = (*Extreme)(nil)

// NewExtreme replaces GMS's e when its arguments aggregate to a numeric
// or temporal type.
func NewExtreme(e sql.Expression) (*Extreme, bool) {
	x := &Extreme{Expression: e}
	switch g := e.(type) {
	case *function.Greatest:
		x.args, x.greatest = g.Args, true
	case *function.Least:
		x.args = g.Args
	default:
		return nil, false
	}
	t, ok := extremeType(x.args)
	if !ok {
		return nil, false
	}
	x.typ = t
	return x, true
}

// extremeType aggregates the arguments' types, or reports false for a
// mix it leaves to GMS (strings, NULL literals, unsigned with signed).
func extremeType(args []sql.Expression) (sql.Type, bool) {
	var nInt, nUnsigned, nDec, nFloat, nDate, nDatetime, scale, prec int
	for _, a := range args {
		t := a.Type()
		switch {
		case isInt(t):
			nInt++
			if types.IsUnsigned(t) {
				nUnsigned++
			}
		case types.IsDecimal(t):
			nDec++
			d := t.(sql.DecimalType)
			scale = max(scale, int(d.Scale()))
		case types.IsFloat(t):
			nFloat++
		case t.Type() == sqltypes.Date:
			nDate++
		case t.Type() == sqltypes.Datetime || t.Type() == sqltypes.Timestamp:
			nDatetime++
			prec = max(prec, t.(sql.DatetimeType).Precision())
		default:
			return nil, false
		}
	}
	n := len(args)
	switch {
	case n == 0:
		return nil, false
	case nDate+nDatetime == n && nDatetime == 0:
		return types.Date, true
	case nDate+nDatetime == n:
		return types.MustCreateDatetimeType(sqltypes.Datetime, prec), true
	case nDate+nDatetime > 0, nUnsigned > 0 && nUnsigned < nInt:
		return nil, false
	case nFloat > 0:
		return types.Float64, true
	case nDec > 0:
		// The widest precision: GMS's types of DECIMAL arithmetic
		// understate it, and a value the type cannot hold fails (1264).
		return types.MustCreateDecimalType(65, uint8(min(scale, 30))), true
	case nUnsigned > 0:
		return types.Uint64, true
	}
	return types.Int64, true
}

// Type is the aggregated type; a DECIMAL as a column type, so that the
// value (the argument's own, as in MySQL, whose digits a quotient over it
// divides) is printed at the type's scale.
func (x *Extreme) Type() sql.Type {
	if d, ok := x.typ.(sql.DecimalType); ok {
		return decimalOf(int(d.Precision()), int(d.Scale()))
	}
	return x.typ
}

// Eval is NULL when any argument is, else the extreme argument converted
// to the aggregated type.
func (x *Extreme) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var best any
	for i, a := range x.args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		v, _, err = x.typ.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			best = v
			continue
		}
		c, err := x.typ.Compare(ctx, v, best)
		if err != nil {
			return nil, err
		}
		if (x.greatest && c > 0) || (!x.greatest && c < 0) {
			best = v
		}
	}
	return best, nil
}

// WithChildren keeps the replacement.
func (x *Extreme) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := x.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if n, ok := NewExtreme(e); ok {
		return n, nil
	}
	return e, nil
}

// String is GMS's rendering.
func (x *Extreme) String() string {
	args := make([]string, len(x.args))
	for i, a := range x.args {
		args[i] = a.String()
	}
	name := "least"
	if x.greatest {
		name = "greatest"
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(args, ","))
}
