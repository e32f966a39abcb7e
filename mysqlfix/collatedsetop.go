package mysqlfix

import (
	"bytes"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// GMS's INTERSECT and EXCEPT match rows by a hash of their text, so under
// a case- or accent-insensitive collation (or a PAD SPACE one) 'a' and
// 'A' never match where MySQL calls them equal: `SELECT s FROM t EXCEPT
// SELECT 'A'` kept 'a'. weightSetOp replaces such a set operation, only
// where its result holds a string of such a collation, with one that keys
// each row by weightKey (collateddistinct.go). Each left row is looked up
// among the right rows' keys: INTERSECT keeps it when some right row
// matches, EXCEPT when none does; the DISTINCT forms keep the first left
// row of each class once, the ALL forms keep min(m, n) and max(m - n, 0)
// of a class's m left and n right rows, as MySQL 8.0.31 does.

// weightSetOp is INTERSECT or EXCEPT [ALL | DISTINCT] with MySQL's string
// equality. It has no ORDER BY, LIMIT or OFFSET (setOpOrder moved them).
type weightSetOp struct {
	left, right sql.Node
	except      bool
	distinct    bool
	exec        sql.NodeExecBuilder
}

var _ sql.ExecSourceRel = (*weightSetOp)(nil)

// newWeightSetOp replaces s, an INTERSECT or EXCEPT without ORDER BY,
// LIMIT or OFFSET.
func newWeightSetOp(s *plan.SetOp, exec sql.NodeExecBuilder) *weightSetOp {
	return &weightSetOp{
		left:     s.Left(),
		right:    s.Right(),
		except:   s.SetOpType == plan.ExceptType,
		distinct: s.Distinct,
		exec:     exec,
	}
}

func (o *weightSetOp) name() string {
	n := "Intersect"
	if o.except {
		n = "Except"
	}
	if !o.distinct {
		n += " all"
	}
	return n
}

func (o *weightSetOp) String() string {
	p := sql.NewTreePrinter()
	_ = p.WriteNode("%s", o.name())
	_ = p.WriteChildren(o.Left().String(), o.Right().String())
	return p.String()
}

// Schema is the left side's: a set operation's result takes the first
// query's column names, and GMS gave both sides its merged types.
func (o *weightSetOp) Schema() sql.Schema { return o.Left().Schema() }

func (o *weightSetOp) IsReadOnly() bool { return o.Left().IsReadOnly() && o.Right().IsReadOnly() }

func (o *weightSetOp) Left() sql.Node  { return o.left }
func (o *weightSetOp) Right() sql.Node { return o.right }

func (o *weightSetOp) Resolved() bool { return o.left.Resolved() && o.right.Resolved() }

func (o *weightSetOp) Children() []sql.Node { return []sql.Node{o.left, o.right} }

func (o *weightSetOp) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(o, len(children), 2)
	}
	cp := *o
	cp.left, cp.right = children[0], children[1]
	return &cp, nil
}

func (o *weightSetOp) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, o.Left())
}

func (o *weightSetOp) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	sch := o.Schema()
	typs := make([]sql.Type, len(sch))
	for i, c := range sch {
		typs[i] = c.Type
	}
	right, err := o.exec.Build(ctx, o.Right(), row)
	if err != nil {
		return nil, err
	}
	counts, err := weightCounts(ctx, right, typs)
	if err != nil {
		return nil, err
	}
	left, err := o.exec.Build(ctx, o.Left(), row)
	if err != nil {
		return nil, err
	}
	return &weightSetOpIter{left: left, typs: typs, right: counts, except: o.except, distinct: o.distinct, seen: map[string]struct{}{}}, nil
}

// weightCounts drains it (and closes it) into the number of its rows of
// each key.
func weightCounts(ctx *sql.Context, it sql.RowIter, typs []sql.Type) (map[string]int, error) {
	counts := map[string]int{}
	var buf bytes.Buffer
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			return counts, it.Close(ctx)
		}
		if err != nil {
			_ = it.Close(ctx)
			return nil, err
		}
		buf.Reset()
		if err := weightKey(ctx, &buf, typs, r); err != nil {
			_ = it.Close(ctx)
			return nil, err
		}
		counts[buf.String()]++
	}
}

type weightSetOpIter struct {
	left     sql.RowIter
	typs     []sql.Type
	right    map[string]int      // right rows per key, used up by ALL
	seen     map[string]struct{} // keys already returned (DISTINCT)
	except   bool
	distinct bool
	buf      bytes.Buffer
}

func (it *weightSetOpIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		r, err := it.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		it.buf.Reset()
		if err := weightKey(ctx, &it.buf, it.typs, r); err != nil {
			return nil, err
		}
		if it.keep(it.buf.String()) {
			return r, nil
		}
	}
}

// keep decides a left row by its key k.
func (it *weightSetOpIter) keep(k string) bool {
	if it.distinct {
		if _, dup := it.seen[k]; dup {
			return false
		}
		if (it.right[k] > 0) == it.except {
			return false
		}
		it.seen[k] = struct{}{}
		return true
	}
	n := it.right[k]
	if n > 0 {
		it.right[k] = n - 1
	}
	return (n > 0) != it.except
}

func (it *weightSetOpIter) Close(ctx *sql.Context) error {
	it.right, it.seen = nil, nil
	return it.left.Close(ctx)
}
