package mysqlfix

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GMS's SELECT DISTINCT, UNION and COUNT(DISTINCT …) tell values apart by
// a hash of their text, so under a case- or accent-insensitive collation
// 'a', 'A' and 'á' count as three values where MySQL (and GMS's own GROUP
// BY, which hashes collation weights) sees one. collatedDistinct replaces
// those operators, only where a string of such a collation is compared, with
// versions that key each row by its collation weight strings; INTERSECT and
// EXCEPT the same way (collatedsetop.go).

// collatedDistinct is the analyzer rule.
func collatedDistinct(_ *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.Distinct:
			if !collatedSchema(x.Child.Schema()) {
				return n, transform.SameTree, nil
			}
			return &distinctByWeight{UnaryNode: plan.UnaryNode{Child: x.Child}, exec: a.ExecBuilder}, transform.NewTree, nil
		case *plan.SetOp:
			if !collatedSchema(x.Schema()) {
				return n, transform.SameTree, nil
			}
			if x.SetOpType != plan.UnionType {
				return newWeightSetOp(x, a.ExecBuilder), transform.NewTree, nil
			}
			if !x.Distinct {
				return n, transform.SameTree, nil
			}
			all := *x
			all.Distinct = false
			return &distinctByWeight{UnaryNode: plan.UnaryNode{Child: &all}, exec: a.ExecBuilder}, transform.NewTree, nil
		case *plan.GroupBy:
			return transform.NodeExprs(n, countDistinctByWeight)
		}
		return n, transform.SameTree, nil
	})
}

func countDistinctByWeight(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	cd, ok := e.(*aggregation.CountDistinct)
	if !ok || cd.Window() != nil {
		return e, transform.SameTree, nil
	}
	for _, c := range cd.Children() {
		if weighted(c.Type()) {
			return &CountDistinct{CountDistinct: cd}, transform.NewTree, nil
		}
	}
	return e, transform.SameTree, nil
}

// weighted reports whether t is a string type whose collation makes
// different bytes equal: anything but a binary NO PAD collation.
// utf8mb4_bin is PAD SPACE in MySQL 8 ('a ' and 'a' are one value),
// utf8mb4_0900_bin and binary are NO PAD.
func weighted(t sql.Type) bool {
	st, ok := t.(sql.StringType)
	if !ok {
		return false
	}
	c := st.Collation()
	if c == sql.Collation_binary {
		return false
	}
	return !strings.HasSuffix(c.Name(), "_bin") || c.PadAttribute() == "PAD SPACE"
}

func collatedSchema(s sql.Schema) bool {
	for _, c := range s {
		if weighted(c.Type) {
			return true
		}
	}
	return false
}

// weightKey appends to buf a key equal for two rows exactly when MySQL
// calls them equal: strings by their collation's weights (trailing spaces
// dropped under PAD SPACE collations), other values by their text. Each
// value is length-prefixed, so no two rows share a key by concatenation.
func weightKey(ctx *sql.Context, buf *bytes.Buffer, typs []sql.Type, row sql.Row) error {
	var one bytes.Buffer
	for i, v := range row {
		if v == nil {
			buf.WriteByte(0)
			continue
		}
		one.Reset()
		var t sql.Type = types.LongText
		if i < len(typs) {
			t = typs[i]
		}
		if err := writeWeight(ctx, &one, t, v); err != nil {
			return err
		}
		buf.WriteByte(1)
		var n [binary.MaxVarintLen64]byte
		buf.Write(n[:binary.PutUvarint(n[:], uint64(one.Len()))])
		buf.Write(one.Bytes())
	}
	return nil
}

func writeWeight(ctx *sql.Context, w io.Writer, t sql.Type, v any) error {
	v, err := sql.UnwrapAny(ctx, v)
	if err != nil {
		return err
	}
	if st, ok := t.(sql.StringType); ok && weighted(t) {
		s, err := types.ConvertToString(ctx, v, st, nil)
		if err != nil {
			return err
		}
		c := st.Collation()
		if c.PadAttribute() == "PAD SPACE" {
			s = strings.TrimRight(s, " ")
		}
		return c.WriteWeightString(w, s)
	}
	_, err = fmt.Fprintf(w, "%v", v)
	return err
}

// CountDistinct is COUNT(DISTINCT …) with MySQL's string equality.
type CountDistinct struct {
	*aggregation.CountDistinct
}

var _ sql.Aggregation = (*CountDistinct)(nil)

func (c *CountDistinct) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	n, err := c.CountDistinct.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &CountDistinct{CountDistinct: n.(*aggregation.CountDistinct)}, nil
}

func (c *CountDistinct) WithId(id sql.ColumnId) sql.IdExpression {
	return &CountDistinct{CountDistinct: c.CountDistinct.WithId(id).(*aggregation.CountDistinct)}
}

func (c *CountDistinct) NewBuffer() (sql.AggregationBuffer, error) {
	exprs := make([]sql.Expression, len(c.Children()))
	typs := make([]sql.Type, len(exprs))
	for i, e := range c.Children() {
		cl, err := transform.Clone(e)
		if err != nil {
			return nil, err
		}
		exprs[i], typs[i] = cl, e.Type()
	}
	return &weightSetBuffer{exprs: exprs, typs: typs, seen: map[string]struct{}{}}, nil
}

// weightSetBuffer counts the distinct keys of rows with no NULL argument.
type weightSetBuffer struct {
	exprs []sql.Expression
	typs  []sql.Type
	seen  map[string]struct{}
	buf   bytes.Buffer
}

func (b *weightSetBuffer) Update(ctx *sql.Context, row sql.Row) error {
	vals := make(sql.Row, len(b.exprs))
	for i, e := range b.exprs {
		v, err := e.Eval(ctx, row)
		if err != nil {
			return err
		}
		if v == nil {
			return nil
		}
		vals[i] = v
	}
	b.buf.Reset()
	if err := weightKey(ctx, &b.buf, b.typs, vals); err != nil {
		return err
	}
	b.seen[b.buf.String()] = struct{}{}
	return nil
}

func (b *weightSetBuffer) Eval(*sql.Context) (any, error) { return int64(len(b.seen)), nil }

func (b *weightSetBuffer) Dispose() {
	for _, e := range b.exprs {
		expression.Dispose(e)
	}
}

// distinctByWeight is SELECT DISTINCT (or UNION's duplicate removal) with
// MySQL's string equality: the first row of each class, in input order.
type distinctByWeight struct {
	plan.UnaryNode
	exec sql.NodeExecBuilder
}

var _ sql.ExecSourceRel = (*distinctByWeight)(nil)

func (d *distinctByWeight) String() string {
	p := sql.NewTreePrinter()
	_ = p.WriteNode("Distinct")
	_ = p.WriteChildren(d.Child.String())
	return p.String()
}

func (d *distinctByWeight) IsReadOnly() bool { return d.Child.IsReadOnly() }

func (d *distinctByWeight) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	cp := *d
	cp.Child = children[0]
	return &cp, nil
}

func (d *distinctByWeight) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, d.Child)
}

func (d *distinctByWeight) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	it, err := d.exec.Build(ctx, d.Child, row)
	if err != nil {
		return nil, err
	}
	sch := d.Child.Schema()
	typs := make([]sql.Type, len(sch))
	for i, c := range sch {
		typs[i] = c.Type
	}
	return &weightDistinctIter{child: it, typs: typs, seen: map[string]struct{}{}}, nil
}

type weightDistinctIter struct {
	child sql.RowIter
	typs  []sql.Type
	seen  map[string]struct{}
	buf   bytes.Buffer
}

func (it *weightDistinctIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		r, err := it.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		it.buf.Reset()
		if err := weightKey(ctx, &it.buf, it.typs, r); err != nil {
			return nil, err
		}
		if _, dup := it.seen[it.buf.String()]; dup {
			continue
		}
		it.seen[it.buf.String()] = struct{}{}
		return r, nil
	}
}

func (it *weightDistinctIter) Close(ctx *sql.Context) error {
	it.seen = nil
	return it.child.Close(ctx)
}
