package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// GMS v0.20.0 types COALESCE and IFNULL of temporals of different types
// (DATETIME(6) and DATETIME, DATE and DATETIME) as TEXT, so a client gets
// '2024-01-01 00:00:00.5' as a string; MySQL aggregates them to DATETIME
// with the widest precision (DATE with DATE stays DATE).

// TemporalCoalesce is COALESCE or IFNULL of DATE, DATETIME and TIMESTAMP
// arguments, in MySQL's aggregated type.
type TemporalCoalesce struct {
	sql.Expression // GMS's *function.Coalesce or *function.IfNull
	typ            sql.Type
}

var _ sql.Expression = (*TemporalCoalesce)(nil)

// NewTemporalCoalesce replaces GMS's e when every argument is temporal
// and GMS's type is not already the aggregated one.
func NewTemporalCoalesce(e sql.Expression) (*TemporalCoalesce, bool) {
	switch e.(type) {
	case *function.Coalesce, *function.IfNull:
	default:
		return nil, false
	}
	allDate, prec := true, 0
	for _, a := range e.Children() {
		t := a.Type()
		switch t.Type() {
		case sqltypes.Date:
		case sqltypes.Datetime, sqltypes.Timestamp:
			allDate, prec = false, max(prec, t.(sql.DatetimeType).Precision())
		default:
			return nil, false
		}
	}
	typ := types.Date
	if !allDate {
		typ = types.MustCreateDatetimeType(sqltypes.Datetime, prec)
	}
	if typ.Equals(e.Type()) {
		return nil, false
	}
	return &TemporalCoalesce{Expression: e, typ: typ}, true
}

// Type is the aggregated temporal type.
func (c *TemporalCoalesce) Type() sql.Type { return c.typ }

// Eval is GMS's value in the aggregated type.
func (c *TemporalCoalesce) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.Expression.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	out, _, err := c.typ.Convert(ctx, v)
	return out, err
}

// WithChildren keeps the replacement.
func (c *TemporalCoalesce) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	x, err := c.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if n, ok := NewTemporalCoalesce(x); ok {
		return n, nil
	}
	return x, nil
}

// String is GMS's rendering.
func (c *TemporalCoalesce) String() string { return c.Expression.String() }
