package rewrite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

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
	// distinct: node is a Distinct (over the plain columns of a Project):
	// GMS's plan for EXISTS and IN, an inner join with distinct rows.
	// Without it, node may still be such a Project.
	distinct bool
}

// sideOf reads n as a join input; without ctx, table stays nil.
func sideOf(ctx *sql.Context, n sql.Node) joinSide {
	if hl, ok := n.(*plan.HashLookup); ok {
		n = hl.Child
	}
	s := joinSide{node: n}
	if d, ok := n.(*plan.Distinct); ok {
		s.distinct, n = true, d.Child
	}
	if p, ok := n.(*plan.Project); ok {
		n = p.Child
	}
	if f, ok := n.(*plan.Filter); ok {
		s.filters, n = expression.SplitConjunction(f.Expression), f.Child
	}
	if ctx != nil {
		s.table = baseTable(ctx, n)
	}
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

// singleTable reports whether n is one table under an optional alias,
// Filter without subqueries, Project of plain columns and Distinct: a
// build side that is itself a join could be far larger than the probe.
func singleTable(n sql.Node) bool {
	if d, ok := n.(*plan.Distinct); ok {
		n = d.Child
	}
	if p, ok := n.(*plan.Project); ok {
		for _, e := range p.Projections {
			if _, ok := e.(*expression.GetField); !ok {
				return false
			}
		}
		n = p.Child
	}
	if f, ok := n.(*plan.Filter); ok {
		if hasSubquery(f.Expression) {
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
	in, ok := joinAggInput(gb)
	t := &joinTree{}
	if !ok || !joinBelow(in.child) || !flattenJoins(ctx, in.child, in.path, t) || len(t.leaves) < 2 {
		return nil, false
	}
	probe, rows := -1, int64(-1)
	for i, l := range t.leaves {
		if l.table == nil || l.kind != scan.JoinInner || l.distinct {
			continue
		}
		if r := l.rows(ctx); probe < 0 || r > rows {
			probe, rows = i, r
		}
	}
	if probe < 0 {
		return nil, false
	}
	filters, edges, post, ok := t.classify(probe)
	if !ok {
		return nil, false
	}
	order, ok := t.buildOrder(probe, edges)
	if !ok {
		return nil, false
	}
	js := newJoinScope(t, probe, order)
	builds, ok := js.builds(edges)
	if !ok {
		return nil, false
	}
	js.registerColumns(post)
	groupBy, aggs, out, ok := js.aggregation(in)
	if !ok || !roundedOnly(builds, js.sides, groupBy, aggs) {
		return nil, false
	}
	filter, ok := js.postFilter(post)
	if !ok {
		return nil, false
	}
	for s := range builds { // the columns resolved since
		builds[s].Types = js.sides[s].types
		builds[s].Kind = t.leaves[js.sides[s].leaf].kind
		l := t.leaves[js.sides[s].leaf]
		if l.distinct && builds[s].Kind == scan.JoinInner && allKeys(builds[s]) && len(js.sides[s].idx) == len(l.node.Schema()) {
			builds[s].Kind = scan.JoinSemi // one match, as distinct rows of key columns give
		}
	}
	pl := t.leaves[probe]
	p, ok := scan.CompileJoinAggregate(pl.table.CatalogSchema(), builds, append(pl.filters, filters...), groupBy, aggs)
	if !ok || len(post) > 0 && !p.SetFilter(filter) {
		return nil, false
	}
	v := &vectorJoin{schema: gb.Schema(), table: pl.table, plan: p, out: out, orig: gb, valueCols: valueCols(groupBy, aggs), intKeys: intKeys(in.groupBy, groupBy)}
	for s, sd := range js.sides {
		l := t.leaves[sd.leaf]
		cols := make([]sql.Column, len(sd.idx))
		for k, i := range sd.idx {
			cols[k] = *l.node.Schema()[i]
		}
		v.builds = append(v.builds, joinBuildSide{path: l.path, cols: cols, schema: sd.schema(), table: l.table, collect: collectPlan(l, sd, builds[s]), round: sd.round, derived: sd.derived})
	}
	return v, true
}

// allKeys reports whether every column of a build side is one of its
// keys.
func allKeys(b scan.JoinBuild) bool {
	for c := range b.Types {
		if !slices.Contains(b.Keys, c) {
			return false
		}
	}
	return true
}

// collectPlan reads a build side that is a lakesql table on column
// vectors, or is nil when its filters or columns need the row path (or
// its Distinct does: build rows are then distinct).
func collectPlan(l joinLeaf, sd buildCols, b scan.JoinBuild) *scan.CollectPlan {
	if l.table == nil || l.distinct && b.Kind != scan.JoinSemi || slices.ContainsFunc(sd.round, func(d roundDir) bool { return d != roundNone }) {
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
	// valueCols are the result columns that are a column's values (group
	// keys, MIN and MAX), by result position.
	valueCols map[int]scan.JoinCol
	// intKeys are the group keys computed per tuple whose GMS expression
	// returns Go's int (EXTRACT), which scan computes as int64.
	intKeys []int
}

// joinBuildSide is one build side of a vectorJoin.
type joinBuildSide struct {
	path []int // from the replaced GroupBy to its node
	// cols are the node's output columns read, by build column: found by
	// name when it runs, since pruneJoinColumns may narrow the node's
	// rows after the rule.
	cols   []sql.Column
	schema *schema.Schema
	// collect, if set, reads the side (table, a lakesql table) on column
	// vectors with its filters instead of running its node.
	table   *provider.Table
	collect *scan.CollectPlan
	// round, by build column, rounds its values as a residual needs
	// (residualType; such a side is read on the row path).
	round []roundDir
	// derived are computed from the record's columns and appended.
	derived []derivedCol
}

var _ sql.ExecSourceRel = (*vectorJoin)(nil)

func (v *vectorJoin) Resolved() bool       { return true }
func (v *vectorJoin) Schema() sql.Schema   { return v.schema }
func (v *vectorJoin) Children() []sql.Node { return []sql.Node{v.orig} }

// SameRowsAsChild: the rows are the replaced plan's.
func (v *vectorJoin) SameRowsAsChild() {}
func (v *vectorJoin) IsReadOnly() bool { return true }

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
		name := "?"
		if n, err := b.node(v.orig); err == nil {
			s, _ := leafSide(nil, n)
			name = s.name
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
// runs the replaced plan when a build side holds a value scan would not
// store exactly, or the data needs the row path (scan.ErrOverflow). The
// build sides are charged to the query's memory budget: those read on
// vectors that do not fit and share one key (Q21's l2 and l3 on
// l1.l_orderkey) are joined a hash partition at a time
// (scan.RunPartitioned); any other that does not fit runs the replaced
// plan, whose row-path joins spill or fail within the budget.
func (v *vectorJoin) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	builds := make([]arrow.Record, len(v.builds))
	defer func() {
		for _, b := range builds {
			if b != nil {
				b.Release()
			}
		}
	}()
	// Each side's record and index are charged while it is built; the
	// index is given back before Run, which charges it again.
	var charges []*budget.Charge
	defer func() {
		for _, c := range charges {
			c.Close()
		}
	}()
	index := budget.From(ctx).NewCharge("hash join build")
	defer index.Close()
	var parted []int                                 // sides joined a partition at a time
	goTypes := make([][]reflect.Type, len(v.builds)) // of each side's derived columns
	for s, b := range v.builds {
		charge := budget.From(ctx).NewCharge("hash join build")
		charges = append(charges, charge)
		rec, ok, err := v.buildRecord(ctx, b, row, charge)
		if err == nil && ok && len(b.derived) > 0 {
			rec, goTypes[s], ok, err = b.deriveCharged(ctx, rec, charge)
		}
		if err == nil && ok {
			if err = index.Grow(scan.BuildIndexBytes * rec.NumRows()); err != nil {
				rec.Release()
				charge.Close()
			}
		}
		switch {
		case errors.Is(err, budget.ErrExceeded) && v.partitionable(parted, s):
			parted = append(parted, s)
			continue
		case errors.Is(err, budget.ErrExceeded):
			return v.exec.Build(ctx, v.orig, row)
		case err != nil:
			return nil, err
		case !ok:
			return v.exec.Build(ctx, v.orig, row)
		}
		builds[s] = rec
	}
	index.Close()
	in, err := v.table.AggInput(ctx)
	if err != nil {
		return nil, err
	}
	var rows []sql.Row
	var st scan.Stats
	if parted == nil {
		rows, st, err = v.plan.Run(ctx, in, builds)
	} else {
		rows, st, err = v.plan.RunPartitioned(ctx, in, builds, parted, 2, v.partLoader(ctx))
	}
	v.table.ReportScan(ctx, st)
	if errors.Is(err, scan.ErrOverflow) {
		return v.exec.Build(ctx, v.orig, row)
	}
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	v.restoreKeyTypes(rows, goTypes)
	return sql.RowsToRowIter(project(rows, v.out)...), nil
}

// partitionable reports whether build side s, beyond the budget, may be
// joined a partition at a time with the sides parted: it is read on
// vectors and keyed as they are.
func (v *vectorJoin) partitionable(parted []int, s int) bool {
	if v.builds[s].collect == nil || len(v.builds[s].derived) > 0 || !v.plan.Partitionable(s) {
		return false
	}
	return len(parted) == 0 || v.plan.SameKey(parted[0], s)
}

// partLoader reads partitions of build sides read on vectors.
func (v *vectorJoin) partLoader(ctx *sql.Context) scan.PartLoader {
	return func(_ context.Context, s int, q scan.JoinPart, charge *budget.Charge) (arrow.Record, error) {
		b := v.builds[s]
		cp, ok := b.collect.Partition(v.plan, s, q)
		if !ok {
			return nil, fmt.Errorf("vectorised join: build side %d cannot be partitioned", s)
		}
		in, err := b.table.AggInput(ctx)
		if err != nil {
			return nil, err
		}
		rec, st, ok, err := cp.Collect(ctx, in, charge)
		b.table.ReportScan(ctx, st)
		if err == nil && !ok {
			err = fmt.Errorf("%w: a build column's files differ in type", scan.ErrOverflow)
		}
		return rec, err
	}
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

// columns finds the build columns in the schema of the side's node.
func (b joinBuildSide) columns(sch sql.Schema) ([]int, bool) {
	idx := make([]int, len(b.cols))
	for k, c := range b.cols {
		idx[k] = -1
		for i, x := range sch {
			if strings.EqualFold(x.Source, c.Source) && strings.EqualFold(x.Name, c.Name) {
				idx[k] = i
				break
			}
		}
		if idx[k] < 0 {
			return nil, false
		}
	}
	return idx, true
}

// buildRecord reads a build side (on vectors, or on the row path) and
// collects its build columns, charged to charge, or reports false when
// it holds a value the build record would not hold exactly. A side
// beyond the budget is the budget's error.
func (v *vectorJoin) buildRecord(ctx *sql.Context, b joinBuildSide, row sql.Row, charge *budget.Charge) (arrow.Record, bool, error) {
	if b.collect != nil {
		in, err := b.table.AggInput(ctx)
		if err != nil {
			return nil, false, err
		}
		rec, st, ok, err := b.collect.Collect(ctx, in, charge)
		b.table.ReportScan(ctx, st)
		return rec, ok, err
	}
	n, err := b.node(v.orig)
	if err != nil {
		return nil, false, err
	}
	idx, ok := b.columns(n.Schema())
	if !ok || !leafNode(n) { // the plan changed shape after the rule
		return nil, false, nil
	}
	iter, err := v.exec.Build(ctx, n, row)
	if err != nil {
		return nil, false, fmt.Errorf("vectorised join build side: %w", err)
	}
	defer iter.Close(ctx)
	rb := provider.NewRowBuilder(b.schema)
	defer rb.Release()
	// Rows are charged as they come, at a flat width, then the record
	// at its size.
	rows := budget.From(ctx).NewCharge("hash join build")
	defer rows.Close()
	vals := make(sql.Row, len(idx))
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil { // KILL QUERY
				return nil, false, err
			}
			if err := rows.Grow(1024 * buildValueBytes * int64(len(idx))); err != nil {
				return nil, false, err
			}
		}
		r, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			rec := rb.Record()
			rows.Close()
			if err := charge.Grow(scan.RecordBytes(rec)); err != nil {
				rec.Release()
				return nil, false, err
			}
			return rec, true, nil
		}
		if err != nil {
			return nil, false, err
		}
		for k, i := range idx {
			vals[k] = b.round[k].apply(r[i], b.schema.Columns[k].Type.Scale)
			if !holdsExactly(b.schema.Columns[k].Type, vals[k]) {
				return nil, false, nil
			}
		}
		if err := rb.Append(vals); err != nil {
			return nil, false, nil // not stored exactly: the row path decides
		}
	}
}

// buildValueBytes is what a row-path build side's value is charged while
// it is collected: a fixed-width value and its share of bitmaps and
// offsets.
const buildValueBytes = 16

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
