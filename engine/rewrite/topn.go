package rewrite

import (
	"errors"
	"fmt"
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// pushLimits rewrites LIMITs over a lakesql table at the top scope:
//
//   - ORDER BY plain columns … LIMIT n [OFFSET m] (GMS's Limit over a
//     TopN, or over a Project of a Sort), over an optional Filter the
//     vector kernels evaluate exactly, becomes a topNScan: a bounded heap
//     per worker over the sort columns in scan, and the other columns
//     read for the winners only;
//   - a bare LIMIT n [OFFSET m] over the table (or over a Filter of it)
//     tells the table that n+m rows are all the query reads.
//
// Anything else (an expression key, a string key that does not compare
// byte-wise, a non-literal limit, SQL_CALC_FOUND_ROWS) is left as it is.
func pushLimits(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope != nil && !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	return transform.NodeWithCtx(n, nil, func(tc transform.Context) (sql.Node, transform.TreeIdentity, error) {
		l, ok := tc.Node.(*plan.Limit)
		if _, done := tc.Parent.(*topNScan); !ok || done || l.CalcFoundRows {
			return tc.Node, transform.SameTree, nil
		}
		if v, ok := topNFor(ctx, l); ok {
			v.exec = a.ExecBuilder
			return v, transform.NewTree, nil
		}
		return limitTable(ctx, l)
	})
}

// limitOffset reads Limit(Offset?(child)) with literal counts.
func limitOffset(l *plan.Limit) (limit, offset int64, child sql.Node, ok bool) {
	limit, ok = literalCount(l.Limit)
	child = l.Child
	if o, isOffset := child.(*plan.Offset); isOffset && ok {
		offset, ok = literalCount(o.Offset)
		child = o.Child
	}
	return limit, offset, child, ok
}

func literalCount(e sql.Expression) (int64, bool) {
	lit, ok := e.(*expression.Literal)
	if !ok {
		return 0, false
	}
	switch v := lit.Value().(type) {
	case int8:
		return int64(v), v >= 0
	case int16:
		return int64(v), v >= 0
	case int32:
		return int64(v), v >= 0
	case int64:
		return v, v >= 0
	case int:
		return int64(v), v >= 0
	case uint8:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint32:
		return int64(v), true
	case uint64:
		return int64(v), v <= math.MaxInt64
	}
	return 0, false
}

// maxTopN bounds the rows a pushed-down top-N holds: beyond it the row
// path's sort is as good.
const maxTopN = 1 << 16

// topNFor compiles Limit(Offset?(TopN|Sort|Project(Sort)(Filter?(Table)))),
// or reports false.
func topNFor(ctx *sql.Context, l *plan.Limit) (*topNScan, bool) {
	limit, offset, child, ok := limitOffset(l)
	if !ok || limit+offset > maxTopN {
		return nil, false
	}
	var proj []sql.Expression
	if p, ok := child.(*plan.Project); ok {
		proj, child = p.Projections, p.Child
	}
	var fields sql.SortFields
	switch x := child.(type) {
	case *plan.TopN:
		if x.CalcFoundRows {
			return nil, false
		}
		fields, child = x.Fields, x.Child
	case *plan.Sort:
		fields, child = x.SortFields, x.Child
	default:
		return nil, false
	}
	var filters []sql.Expression
	if f, ok := child.(*plan.Filter); ok {
		filters, child = expression.SplitConjunction(f.Expression), f.Child
	}
	t := baseTable(ctx, child)
	if t == nil {
		return nil, false
	}
	s := t.CatalogSchema()
	if proj == nil {
		for _, c := range child.Schema() {
			proj = append(proj, expression.NewGetField(0, c.Type, c.Name, c.Nullable))
		}
	}
	var out []int
	for _, e := range proj {
		if al, ok := e.(*expression.Alias); ok {
			e = al.Child
		}
		col, ok := tableColumn(s, e)
		if !ok {
			return nil, false
		}
		out = append(out, col.ID)
	}
	var keys []scan.TopNKey
	for _, sf := range fields {
		col, ok := tableColumn(s, sf.Column)
		if !ok || !sortsLikeStorage(sf.Column.Type(), col) {
			return nil, false
		}
		desc := sf.Order == sql.Descending
		// GMS's Sorter swaps the operands of a DESC key before placing
		// NULLs, so NullsFirst puts NULLs last there (as MySQL does).
		keys = append(keys, scan.TopNKey{FieldID: col.ID, Desc: desc, NullsFirst: (sf.NullOrdering == sql.NullsFirst) != desc})
	}
	p, ok := scan.CompileTopN(s, filters, keys, out, limit, offset)
	if !ok {
		return nil, false
	}
	return &topNScan{schema: l.Schema(), table: t, plan: p, orig: l}, true
}

func tableColumn(s *schema.Schema, e sql.Expression) (schema.Column, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok {
		return schema.Column{}, false
	}
	return s.Column(gf.Name())
}

// sortsLikeStorage reports whether GMS orders values of type t as scan
// orders the column's stored values: strings only under a collation
// whose weights are code points (byte order of UTF-8).
func sortsLikeStorage(t sql.Type, col schema.Column) bool {
	if col.Type.Kind != schema.String {
		return true
	}
	st, ok := t.(sql.StringType)
	return ok && st.Collation() == sql.Collation_utf8mb4_0900_bin
}

// limitTable tells the table under a bare Limit(Offset?(Filter?(Table)))
// how many of its rows (of those passing the Filter) the query reads at
// most, so its readers stop, or read lazily, instead of decoding ahead.
func limitTable(ctx *sql.Context, l *plan.Limit) (sql.Node, transform.TreeIdentity, error) {
	limit, offset, child, ok := limitOffset(l)
	if !ok || limit > math.MaxInt64-offset || limit+offset == 0 {
		return l, transform.SameTree, nil
	}
	if f, ok := child.(*plan.Filter); ok {
		child = f.Child
	}
	if ta, ok := child.(*plan.TableAlias); ok {
		child = ta.Child
	}
	rt, ok := child.(*plan.ResolvedTable)
	if !ok {
		return l, transform.SameTree, nil
	}
	t, ok := rt.Table.(*provider.Table)
	if !ok || t.Limit() > 0 {
		return l, transform.SameTree, nil
	}
	nt, err := rt.WithTable(t.WithLimit(limit + offset))
	if err != nil {
		return l, transform.SameTree, err
	}
	return transform.Node(l, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if n == sql.Node(rt) {
			return nt, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

// topNScan is an ORDER BY … LIMIT computed by scan's top-N. Its child is
// the plan it replaced, run when the data needs the row path (see
// scan.ErrTopNRowPath); GMS's later rules (exec indexes) reach it as a
// child.
type topNScan struct {
	schema sql.Schema
	table  *provider.Table
	plan   *scan.TopNPlan
	orig   sql.Node
	exec   sql.NodeExecBuilder
}

var _ sql.ExecSourceRel = (*topNScan)(nil)

func (v *topNScan) Resolved() bool       { return true }
func (v *topNScan) String() string       { return fmt.Sprintf("TopNScan(%s)", v.table) }
func (v *topNScan) Schema() sql.Schema   { return v.schema }
func (v *topNScan) Children() []sql.Node { return []sql.Node{v.orig} }

// SameRowsAsChild: the rows are the replaced plan's.
func (v *topNScan) SameRowsAsChild() {}
func (v *topNScan) IsReadOnly() bool { return true }
func (v *topNScan) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(v, len(children), 1)
	}
	cp := *v
	cp.orig = children[0]
	return &cp, nil
}

// RowIter runs the top-N, or the replaced plan when the data needs it.
func (v *topNScan) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	in, err := v.table.TopNInput(ctx)
	if err != nil {
		return nil, err
	}
	rows, st, err := v.plan.Run(ctx, in)
	v.table.ReportScan(ctx, st)
	if errors.Is(err, scan.ErrTopNRowPath) {
		return v.exec.Build(ctx, v.orig, row)
	}
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(rows...), nil
}
