package mysqlfix

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// GMS v0.20.0's UNIX_TIMESTAMP of a TIMESTAMP expression takes the value
// as UTC, where lakesql's TIMESTAMP values are shown in the session's
// zone (timezone.go): MySQL's answer is the stored instant, which is that
// wall clock read in the session's zone, as GMS does for a DATETIME. And
// its CONVERT_TZ is typed DATETIME(6), so '2024-01-01 12:00:00' converts
// to '2024-01-01 14:00:00.000000' (MySQL: the argument's precision, none
// here), and FROM_UNIXTIME of an integer DATETIME(6) too (MySQL: no
// fraction).

// sessionZoneFunctions gives UNIX_TIMESTAMP a TIMESTAMP argument as the
// DATETIME of its wall clock, CONVERT_TZ its argument's precision and
// FROM_UNIXTIME of an integer whole seconds.
func sessionZoneFunctions(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *function.UnixTimestamp:
			if len(x.Children()) != 1 || x.Children()[0].Type().Type() != sqltypes.Timestamp {
				return e, transform.SameTree, nil
			}
			arg := x.Children()[0]
			prec := 0
			if dt, ok := arg.Type().(sql.DatetimeType); ok {
				prec = dt.Precision()
			}
			ne, err := x.WithChildren(&retyped{Expression: arg, typ: types.MustCreateDatetimeType(sqltypes.Datetime, prec)})
			return ne, transform.NewTree, err
		case *function.FromUnixtime:
			// Of an integer: whole seconds (GMS reads any argument as
			// one), so MySQL's DATETIME, no fraction.
			if len(x.Children()) != 1 || !types.IsInteger(x.Children()[0].Type()) {
				return e, transform.SameTree, nil
			}
			return &retyped{Expression: x, typ: types.Datetime}, transform.NewTree, nil
		case *function.ConvertTz:
			prec, ok := datetimePrecision(x.Children()[0])
			if !ok {
				return e, transform.SameTree, nil
			}
			return &retyped{Expression: x, typ: types.MustCreateDatetimeType(sqltypes.Datetime, prec)}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// datetimePrecision is the fractional digits MySQL gives a DATETIME made
// of e: a temporal's own, a string literal's written digits; false when
// not known before evaluation (GMS's DATETIME(6) stays).
func datetimePrecision(e sql.Expression) (int, bool) {
	if dt, ok := e.Type().(sql.DatetimeType); ok {
		return dt.Precision(), true
	}
	l, ok := e.(*expression.Literal)
	if !ok {
		return 0, false
	}
	s, ok := l.Value().(string)
	if !ok {
		return 0, false
	}
	_, frac, found := strings.Cut(strings.TrimSpace(s), ".")
	if !found {
		return 0, true
	}
	return min(len(frac), 6), true
}

// retyped is Expression with another type and the same values: a
// TIMESTAMP read as the DATETIME of its wall clock, or a DATETIME with
// MySQL's precision.
type retyped struct {
	sql.Expression
	typ sql.Type
}

var _ sql.Expression = (*retyped)(nil)

func (r *retyped) Type() sql.Type { return r.typ }

func (r *retyped) String() string { return r.Expression.String() }

func (r *retyped) Children() []sql.Expression { return []sql.Expression{r.Expression} }

func (r *retyped) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(r, len(children), 1)
	}
	if inner, ok := children[0].(*retyped); ok {
		return &retyped{Expression: inner.Expression, typ: r.typ}, nil
	}
	return &retyped{Expression: children[0], typ: r.typ}, nil
}

func (r *retyped) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return r.Expression.Eval(ctx, row)
}

// DebugString names the retyping in EXPLAIN's debug form.
func (r *retyped) DebugString() string {
	return fmt.Sprintf("retyped(%s as %s)", sql.DebugString(r.Expression), r.typ)
}
