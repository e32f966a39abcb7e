package bounded

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/budget"
)

// buildWindow runs GMS's window operator (aggregation.WindowIter) within
// the budget. GMS reads its whole input into memory, and each window
// definition keeps its own sorted copy of the rows (with an ordinal),
// plus the output order; it cannot spill. So the input is charged as it
// is read — the row, and per window definition a copy's header — and
// past the budget the query fails. GMS builds the operator itself over a
// windowInput node, which this builder turns into the charging reader;
// the charge lasts until the window's iterator is closed.
func (o *override) buildWindow(ctx *sql.Context, n *plan.Window, row sql.Row) (sql.RowIter, error) {
	if _, ok := n.Child.(*windowInput); ok {
		return nil, nil // our own copy: GMS builds it
	}
	charge := budget.From(ctx).NewCharge("window function")
	w := *n
	w.UnaryNode = plan.UnaryNode{Child: &windowInput{UnaryNode: plan.UnaryNode{Child: n.Child}, charge: charge, copies: windowDefinitions(n)}}
	it, err := o.base.Build(ctx, &w, row)
	if err != nil {
		charge.Close()
		return nil, err
	}
	return &chargedIter{RowIter: it, charge: charge}, nil
}

// windowDefinitions counts the window's distinct partitionings: GMS
// keeps a copy of the input for each.
func windowDefinitions(n *plan.Window) int64 {
	ids := map[uint64]bool{}
	for _, e := range n.SelectExprs {
		if a, ok := e.(*expression.Alias); ok {
			e = a.Child
		}
		var id uint64
		switch f := e.(type) {
		case sql.Aggregation:
			id, _ = f.Window().PartitionId()
		case sql.WindowAggregation:
			id, _ = f.Window().PartitionId()
		}
		ids[id] = true
	}
	return int64(max(1, len(ids)))
}

// windowInput is the window's child, marked so the builder charges the
// rows GMS's window operator reads from it.
type windowInput struct {
	plan.UnaryNode
	charge *budget.Charge
	copies int64
}

func (w *windowInput) String() string   { return w.Child.String() }
func (w *windowInput) IsReadOnly() bool { return w.Child.IsReadOnly() }
func (w *windowInput) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(w, len(children), 1)
	}
	c := *w
	c.Child = children[0]
	return &c, nil
}

func (o *override) buildWindowInput(ctx *sql.Context, n *windowInput, row sql.Row) (sql.RowIter, error) {
	child, err := o.base.Build(ctx, n.Child, row)
	if err != nil {
		return nil, err
	}
	return &windowInputIter{child: child, charge: n.charge, copies: n.copies}, nil
}

type windowInputIter struct {
	child  sql.RowIter
	charge *budget.Charge
	copies int64
	rows   int
}

func (w *windowInputIter) Next(ctx *sql.Context) (sql.Row, error) {
	if w.rows++; w.rows%checkEvery == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	r, err := w.child.Next(ctx)
	if err != nil {
		return nil, err
	}
	// The row; per copy a row header with one more value, the ordinal
	// and the output order's int; the buffer's slot.
	size := rowSize(r) + ifaceSize + w.copies*(rowHeader+ifaceSize*int64(len(r)+1)+2*boxedWord)
	if err := w.charge.Grow(size); err != nil {
		return nil, err
	}
	return r, nil
}

func (w *windowInputIter) Close(ctx *sql.Context) error { return w.child.Close(ctx) }

// chargedIter gives an operator's charge back when it is closed.
type chargedIter struct {
	sql.RowIter
	charge *budget.Charge
}

func (c *chargedIter) Close(ctx *sql.Context) error {
	c.charge.Close()
	return c.RowIter.Close(ctx)
}
