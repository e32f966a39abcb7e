package rewrite

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// SysVarJoinBuildRows bounds the build-side rows a vectorised join holds
// in memory: beyond it the query runs on GMS's row path.
const SysVarJoinBuildRows = "lakesql_join_build_rows"

// DefaultJoinBuildRows is SysVarJoinBuildRows' default.
const DefaultJoinBuildRows = 4 << 20

// vectorizeJoin replaces GroupBy(Filter?(inner equi-join tree)) at the
// top scope, whose inputs are single tables (under an optional alias and
// Filter), the largest a lakesql table, with a vectorJoin: the other
// inputs (the build sides) run on GMS's row path into hash tables, and
// the table's files are probed through each in turn and aggregated in
// scan's vectorised pipeline. Anything the pipeline cannot compute
// exactly as the row path does leaves the plan unchanged.
func vectorizeJoin(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return replaceGroupBys(n, scope, func(gb *plan.GroupBy) (sql.Node, bool) {
		v, ok := vectorJoinFor(ctx, gb)
		if !ok {
			return nil, false
		}
		v.exec = a.ExecBuilder
		return v, true
	})
}

// joinSide is one input of a join.
type joinSide struct {
	node    sql.Node // under any HashLookup
	table   *provider.Table
	name    string // the table's name or alias, as GetFields qualify it
	filters []sql.Expression
}

func sideOf(ctx *sql.Context, n sql.Node) joinSide {
	if hl, ok := n.(*plan.HashLookup); ok {
		n = hl.Child
	}
	s := joinSide{node: n}
	if f, ok := n.(*plan.Filter); ok {
		s.filters, n = expression.SplitConjunction(f.Expression), f.Child
	}
	s.table = baseTable(ctx, n)
	if nn, ok := n.(sql.Nameable); ok {
		s.name = nn.Name()
	}
	return s
}

// rows is the table's row count from its manifest, -1 if unknown.
func (s joinSide) rows(ctx *sql.Context) int64 {
	files, err := s.table.Files(ctx)
	if err != nil {
		return -1
	}
	var n int64
	for _, f := range files {
		n += f.RecordCount
	}
	return n
}

// singleTable reports whether n is one table under an optional alias and
// Filter without subqueries: the two-table joins the rule plans for (a
// build side that is itself a join could be far larger than the probe).
func singleTable(n sql.Node) bool {
	if f, ok := n.(*plan.Filter); ok {
		if transform.InspectExpr(f.Expression, func(e sql.Expression) bool {
			_, sub := e.(*plan.Subquery)
			return sub
		}) {
			return false
		}
		n = f.Child
	}
	if ta, ok := n.(*plan.TableAlias); ok {
		n = ta.Child
	}
	_, ok := n.(*plan.ResolvedTable)
	return ok
}

// innerJoin reports whether op is an inner join whose condition is all
// it filters.
func innerJoin(op plan.JoinType) bool {
	switch op {
	case plan.JoinTypeInner, plan.JoinTypeHash, plan.JoinTypeMerge:
		return true
	}
	return false
}

// vectorJoinFor compiles gb, or reports false.
func vectorJoinFor(ctx *sql.Context, gb *plan.GroupBy) (*vectorJoin, bool) {
	t := &joinTree{}
	if _, ok := gb.Child.(*plan.JoinNode); !ok {
		f, isFilter := gb.Child.(*plan.Filter)
		if !isFilter {
			return nil, false
		}
		if _, ok := f.Child.(*plan.JoinNode); !ok {
			return nil, false
		}
	}
	if !flattenJoins(ctx, gb.Child, []int{0}, t) || len(t.leaves) < 2 {
		return nil, false
	}
	probe, rows := -1, int64(-1)
	for i, l := range t.leaves {
		if l.table == nil {
			continue
		}
		if r := l.rows(ctx); probe < 0 || r > rows {
			probe, rows = i, r
		}
	}
	if probe < 0 {
		return nil, false
	}
	filters, edges, ok := t.classify(probe)
	if !ok {
		return nil, false
	}
	order, ok := buildOrder(len(t.leaves), probe, edges)
	if !ok {
		return nil, false
	}
	js := newJoinScope(t, probe, order)
	builds, ok := js.builds(edges)
	if !ok {
		return nil, false
	}
	groupBy, aggs, out, ok := js.aggregation(gb)
	if !ok {
		return nil, false
	}
	for s := range builds { // the columns resolved since
		builds[s].Types = js.sides[s].types
	}
	pl := t.leaves[probe]
	p, ok := scan.CompileJoinAggregate(pl.table.CatalogSchema(), builds, append(pl.filters, filters...), groupBy, aggs)
	if !ok {
		return nil, false
	}
	v := &vectorJoin{schema: gb.Schema(), table: pl.table, plan: p, out: out, orig: gb}
	for _, sd := range js.sides {
		l := t.leaves[sd.leaf]
		v.builds = append(v.builds, joinBuildSide{path: l.path, idx: sd.idx, schema: sd.schema(), table: l.table, collect: collectPlan(l, sd)})
	}
	return v, true
}

// collectPlan reads a build side that is a lakesql table on column
// vectors, or is nil when its filters or columns need the row path.
func collectPlan(l joinLeaf, sd buildCols) *scan.CollectPlan {
	if l.table == nil {
		return nil
	}
	s := l.table.CatalogSchema()
	cols := l.node.Schema()
	fields := make([]int, len(sd.idx))
	for k, i := range sd.idx {
		c, ok := s.Column(cols[i].Name)
		if !ok || c.Type.Kind != sd.types[k].Kind || c.Type.Scale != sd.types[k].Scale {
			return nil
		}
		fields[k] = c.ID
	}
	cp, ok := scan.CompileCollect(s, l.filters, fields)
	if !ok {
		return nil
	}
	return cp
}

// vectorJoin is a GroupBy over a tree of inner equi-joins computed by
// scan's vectorised join aggregation. Its child is the GroupBy replaced:
// GMS's later rules (exec indexes) reach it, the build sides run from
// it, and it runs whole when a build side is too large or the data
// needs the row path.
type vectorJoin struct {
	schema sql.Schema
	table  *provider.Table // the probe side
	plan   *scan.JoinAggPlan
	out    []int
	builds []joinBuildSide // in probing order
	orig   sql.Node
	exec   sql.NodeExecBuilder
}

// joinBuildSide is one build side of a vectorJoin.
type joinBuildSide struct {
	path   []int // from the replaced GroupBy to its node
	idx    []int // the node's output column per build column
	schema *schema.Schema
	// collect, if set, reads the side (table, a lakesql table) on column
	// vectors with its filters instead of running its node.
	table   *provider.Table
	collect *scan.CollectPlan
}

var _ sql.ExecSourceRel = (*vectorJoin)(nil)

func (v *vectorJoin) Resolved() bool       { return true }
func (v *vectorJoin) Schema() sql.Schema   { return v.schema }
func (v *vectorJoin) Children() []sql.Node { return []sql.Node{v.orig} }
func (v *vectorJoin) IsReadOnly() bool     { return true }

// String shows the replaced plan too: it runs the build sides, and runs
// whole on fallback.
func (v *vectorJoin) String() string {
	tp := sql.NewTreePrinter()
	sides := make([]string, len(v.builds))
	for k, b := range v.builds {
		how := "row path"
		if b.collect != nil {
			how = "vectorised"
		}
		n, err := b.node(v.orig)
		name := "?"
		if f, ok := n.(*plan.Filter); ok && err == nil {
			n = f.Child
		}
		if nn, ok := n.(sql.Nameable); ok && err == nil {
			name = nn.Name()
		}
		sides[k] = name + " " + how
	}
	_ = tp.WriteNode("VectorJoinAggregate(probe %s, build %s)", v.table, strings.Join(sides, ", "))
	_ = tp.WriteChildren(v.orig.String())
	return tp.String()
}

func (v *vectorJoin) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(v, len(children), 1)
	}
	cp := *v
	cp.orig = children[0]
	return &cp, nil
}

// RowIter builds the hash tables, probes the table and aggregates, or
// runs the replaced plan when a build side is too large, holds a value
// scan would not store exactly, or the data needs the row path
// (scan.ErrOverflow).
func (v *vectorJoin) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	builds := make([]arrow.Record, 0, len(v.builds))
	defer func() {
		for _, b := range builds {
			b.Release()
		}
	}()
	limit := joinBuildRows(ctx)
	for _, b := range v.builds {
		rec, ok, err := v.buildRecord(ctx, b, row, limit)
		if err != nil {
			return nil, err
		}
		if !ok {
			return v.exec.Build(ctx, v.orig, row)
		}
		builds = append(builds, rec)
	}
	in, err := v.table.AggInput(ctx)
	if err != nil {
		return nil, err
	}
	rows, st, err := v.plan.Run(ctx, in, builds)
	v.table.ReportScan(ctx, st)
	if errors.Is(err, scan.ErrOverflow) {
		return v.exec.Build(ctx, v.orig, row)
	}
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(project(rows, v.out)...), nil
}

// node is the build side's node in the replaced plan.
func (b joinBuildSide) node(orig sql.Node) (sql.Node, error) {
	n := orig
	for _, i := range b.path {
		ch := n.Children()
		if i >= len(ch) {
			return nil, fmt.Errorf("vectorised join: no input %d under %T", i, n)
		}
		n = ch[i]
	}
	return n, nil
}

// buildRecord runs a build side on the row path and collects its build
// columns, or reports false when it has more than limit rows or a value
// the build record would not hold exactly.
func (v *vectorJoin) buildRecord(ctx *sql.Context, b joinBuildSide, row sql.Row, limit int64) (arrow.Record, bool, error) {
	if b.collect != nil {
		in, err := b.table.AggInput(ctx)
		if err != nil {
			return nil, false, err
		}
		rec, st, ok, err := b.collect.Collect(ctx, in, limit)
		b.table.ReportScan(ctx, st)
		if err != nil {
			return nil, false, sqlerr.Wrap(err)
		}
		return rec, ok, nil
	}
	n, err := b.node(v.orig)
	if err != nil {
		return nil, false, err
	}
	iter, err := v.exec.Build(ctx, n, row)
	if err != nil {
		return nil, false, fmt.Errorf("vectorised join build side: %w", err)
	}
	defer iter.Close(ctx)
	rb := provider.NewRowBuilder(b.schema)
	defer rb.Release()
	vals := make(sql.Row, len(b.idx))
	for {
		r, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			return rb.Record(), true, nil
		}
		if err != nil {
			return nil, false, err
		}
		if int64(rb.Len()) >= limit {
			return nil, false, nil
		}
		for k, i := range b.idx {
			vals[k] = r[i]
			if !holdsExactly(b.schema.Columns[k].Type, r[i]) {
				return nil, false, nil
			}
		}
		if err := rb.Append(vals); err != nil {
			return nil, false, nil // not stored exactly: the row path decides
		}
	}
}

// holdsExactly reports whether a value of a build column of type t
// converts to its Arrow form without rounding (the write path rounds
// DECIMALs to the column's scale).
func holdsExactly(t schema.Type, v any) bool {
	if t.Kind != schema.Decimal || v == nil {
		return true
	}
	d, ok := v.(decimal.Decimal)
	return ok && d.Equal(d.Round(int32(t.Scale)))
}

// joinBuildRows reads SysVarJoinBuildRows.
func joinBuildRows(ctx *sql.Context) int64 {
	v, err := ctx.GetSessionVariable(ctx, SysVarJoinBuildRows)
	if err != nil {
		return DefaultJoinBuildRows
	}
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case uint64:
		return int64(min(x, 1<<62))
	}
	return DefaultJoinBuildRows
}
