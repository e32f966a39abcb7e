package bounded

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// buildFilter builds WHERE (plan.Filter) and HAVING (plan.Having) as GMS
// does, but reads its child through a checkedIter: GMS's FilterIter loops
// inside one Next until a row passes, so a selective condition over rows already in
// memory (a HAVING over a million groups, TPC-H Q18's IN subquery) never
// returns to a caller that looks at the context, and KILL QUERY waited
// for the whole input.
func (o *override) buildFilter(ctx *sql.Context, name string, cond sql.Expression, childNode sql.Node, row sql.Row) (sql.RowIter, error) {
	span, ctx := ctx.Span(name)
	child, err := o.base.Build(ctx, childNode, row)
	if err != nil {
		span.End()
		return nil, err
	}
	return sql.NewSpanIter(span, plan.NewFilterIter(cond, &checkedIter{RowIter: child})), nil
}

// checkedIter passes its child's rows on and looks at the query's
// context every checkEvery rows, so a loop over it stops on KILL QUERY
// (or a client gone) however few rows it lets through.
type checkedIter struct {
	sql.RowIter
	n int
}

func (c *checkedIter) Next(ctx *sql.Context) (sql.Row, error) {
	c.n++
	if c.n%checkEvery == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return c.RowIter.Next(ctx)
}
