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

// vectorizeJoin replaces GroupBy(Filter?(inner equi-join)) at the top
// scope, where one side is a lakesql table (under an optional alias and
// Filter), with a vectorJoin: the other side (the build) runs on GMS's
// row path into a hash table, and the table's files are probed and
// aggregated in scan's vectorised pipeline. Anything the pipeline cannot
// compute exactly as the row path does leaves the plan unchanged.
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

// joinSide is one input of a join, seen as a possible probe.
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
	child := gb.Child
	var above []sql.Expression
	filtered := false
	if f, ok := child.(*plan.Filter); ok {
		above, child, filtered = expression.SplitConjunction(f.Expression), f.Child, true
	}
	j, ok := child.(*plan.JoinNode)
	if !ok || !innerJoin(j.Op) || j.Filter == nil || j.ScopeLen != 0 {
		return nil, false
	}
	left, right := sideOf(ctx, j.Left()), sideOf(ctx, j.Right())
	buildRight := true
	switch {
	case left.table != nil && right.table != nil:
		buildRight = left.rows(ctx) >= right.rows(ctx)
	case right.table != nil:
		buildRight = false
	case left.table == nil:
		return nil, false
	}
	probe, build := left, right
	if !buildRight {
		probe, build = right, left
	}
	if !singleTable(build.node) {
		return nil, false
	}
	js, ok := newJoinScope(probe, build.node.Schema())
	if !ok {
		return nil, false
	}
	filters := probe.filters
	for _, e := range above {
		if !js.probeOnly(e) {
			return nil, false
		}
		filters = append(filters, e)
	}
	var probeKeys, buildKeys []int
	for _, e := range expression.SplitConjunction(j.Filter) {
		p, b, ok := js.equality(e)
		if !ok {
			return nil, false
		}
		probeKeys, buildKeys = append(probeKeys, p), append(buildKeys, b)
	}
	groupBy, aggs, out, ok := js.aggregation(gb)
	if !ok {
		return nil, false
	}
	p, ok := scan.CompileJoinAggregate(js.probe, js.buildTypes, filters, probeKeys, buildKeys, groupBy, aggs)
	if !ok {
		return nil, false
	}
	return &vectorJoin{
		schema: gb.Schema(), table: probe.table, plan: p, out: out,
		buildIdx: js.buildIdx, buildSchema: js.buildSchema(),
		path: joinPath{filtered: filtered, buildRight: buildRight}, orig: gb,
	}, true
}

// joinScope resolves the columns a join aggregation references to the
// probe table's fields or to build columns (the build side's output
// columns it needs, numbered in first-use order).
type joinScope struct {
	probeName  string
	probe      *schema.Schema
	build      sql.Schema
	buildIdx   []int // build output column per build column
	buildTypes []schema.Type
}

func newJoinScope(probe joinSide, build sql.Schema) (*joinScope, bool) {
	if probe.name == "" {
		return nil, false
	}
	for _, c := range build { // a name both sides answer to is ambiguous
		if strings.EqualFold(c.Source, probe.name) {
			return nil, false
		}
	}
	return &joinScope{probeName: probe.name, probe: probe.table.CatalogSchema(), build: build}, true
}

// col resolves a column reference.
func (js *joinScope) col(e sql.Expression) (scan.JoinCol, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok || gf.Table() == "" {
		return scan.JoinCol{}, false
	}
	if strings.EqualFold(gf.Table(), js.probeName) {
		c, ok := js.probe.Column(gf.Name())
		return scan.JoinCol{ID: c.ID}, ok
	}
	idx := -1
	for i, c := range js.build {
		if strings.EqualFold(c.Source, gf.Table()) && strings.EqualFold(c.Name, gf.Name()) {
			if idx >= 0 {
				return scan.JoinCol{}, false
			}
			idx = i
		}
	}
	if idx < 0 {
		return scan.JoinCol{}, false
	}
	for k, i := range js.buildIdx {
		if i == idx {
			return scan.JoinCol{Build: true, ID: k}, true
		}
	}
	t, ok := buildType(js.build[idx].Type)
	if !ok {
		return scan.JoinCol{}, false
	}
	js.buildIdx = append(js.buildIdx, idx)
	js.buildTypes = append(js.buildTypes, t)
	return scan.JoinCol{Build: true, ID: len(js.buildIdx) - 1}, true
}

// buildType is the storage type of a build column of GMS type t: a type
// scan holds exactly, strings only under a binary collation (scan
// compares them byte-wise).
func buildType(t sql.Type) (schema.Type, bool) {
	ct, _, err := provider.CatalogType(t)
	if err != nil {
		return schema.Type{}, false
	}
	switch ct.Kind {
	case schema.Bool, schema.Binary, schema.Time, schema.JSON:
		return schema.Type{}, false
	case schema.String:
		st, ok := t.(sql.StringType)
		if !ok || !strings.HasSuffix(st.Collation().Name(), "_bin") {
			return schema.Type{}, false
		}
	}
	return ct, true
}

// probeOnly reports whether every column e references is the probe's.
func (js *joinScope) probeOnly(e sql.Expression) bool {
	return !transform.InspectExpr(e, func(x sql.Expression) bool {
		gf, ok := x.(*expression.GetField)
		return ok && !strings.EqualFold(gf.Table(), js.probeName)
	})
}

// equality reads probeColumn = buildColumn (either way round).
func (js *joinScope) equality(e sql.Expression) (probeID, buildCol int, ok bool) {
	eq, ok := e.(*expression.Equals)
	if !ok {
		return 0, 0, false
	}
	l, lok := js.col(eq.Left())
	r, rok := js.col(eq.Right())
	if !lok || !rok || l.Build == r.Build {
		return 0, 0, false
	}
	if l.Build {
		l, r = r, l
	}
	return l.ID, r.ID, true
}

// aggregation translates gb's grouping and selected expressions; out is
// the result column of each selected expression.
func (js *joinScope) aggregation(gb *plan.GroupBy) (groupBy []scan.JoinCol, aggs []scan.JoinAggSpec, out []int, ok bool) {
	keyIndex := map[scan.JoinCol]int{}
	for _, e := range gb.GroupByExprs {
		c, ok := js.col(e)
		if !ok {
			return nil, nil, nil, false
		}
		keyIndex[c] = len(groupBy)
		groupBy = append(groupBy, c)
	}
	out = make([]int, len(gb.SelectedExprs))
	for i, e := range gb.SelectedExprs {
		if al, ok := e.(*expression.Alias); ok {
			e = al.Child
		}
		if _, isField := e.(*expression.GetField); isField {
			c, ok := js.col(e)
			k, isKey := keyIndex[c]
			if !ok || !isKey {
				return nil, nil, nil, false // a non-grouped column: GMS picks any row's
			}
			out[i] = k
			continue
		}
		spec, ok := js.aggSpec(e)
		if !ok {
			return nil, nil, nil, false
		}
		out[i] = len(groupBy) + len(aggs)
		aggs = append(aggs, spec)
	}
	return groupBy, aggs, out, true
}

// aggSpec translates one aggregate over a column of either side or an
// arithmetic expression of probe columns.
func (js *joinScope) aggSpec(e sql.Expression) (scan.JoinAggSpec, bool) {
	kind, child, ok := aggKind(e)
	if !ok || kind == scan.AggCountStar {
		return scan.JoinAggSpec{Kind: kind}, ok
	}
	scale := resultScale(e)
	if c, ok := js.col(child); ok {
		return scan.JoinAggSpec{Kind: kind, Col: c, Scale: scale}, true
	}
	if !js.probeOnly(child) {
		return scan.JoinAggSpec{}, false
	}
	x, ok := scan.CompileExpr(js.probe, child)
	return scan.JoinAggSpec{Kind: kind, Expr: x, Scale: scale}, ok
}

// buildSchema is the catalog schema of the build record.
func (js *joinScope) buildSchema() *schema.Schema {
	s := &schema.Schema{}
	for k, t := range js.buildTypes {
		s.Columns = append(s.Columns, schema.Column{ID: k + 1, Name: fmt.Sprintf("b%d", k), Type: t, Nullable: true})
	}
	return s
}

// joinPath locates the build side in the replaced GroupBy, which GMS
// rewrites (exec indexes) after planning.
type joinPath struct {
	filtered   bool // a Filter between the GroupBy and the join
	buildRight bool
}

func (jp joinPath) build(orig sql.Node) (sql.Node, error) {
	gb, ok := orig.(*plan.GroupBy)
	if !ok {
		return nil, fmt.Errorf("vectorised join: replaced plan is a %T", orig)
	}
	n := gb.Child
	if f, ok := n.(*plan.Filter); ok && jp.filtered {
		n = f.Child
	}
	j, ok := n.(*plan.JoinNode)
	if !ok {
		return nil, fmt.Errorf("vectorised join: join is a %T", n)
	}
	side := j.Left()
	if jp.buildRight {
		side = j.Right()
	}
	if hl, ok := side.(*plan.HashLookup); ok {
		side = hl.Child
	}
	return side, nil
}

// vectorJoin is a GroupBy over an inner equi-join computed by scan's
// vectorised join aggregation. Its child is the GroupBy replaced: GMS's
// later rules (exec indexes) reach it, the build side runs from it, and
// it runs whole when the build side is too large or the data needs the
// row path.
type vectorJoin struct {
	schema      sql.Schema
	table       *provider.Table // the probe side
	plan        *scan.JoinAggPlan
	out         []int
	buildIdx    []int // build-side output column per build column
	buildSchema *schema.Schema
	path        joinPath
	orig        sql.Node
	exec        sql.NodeExecBuilder
}

var _ sql.ExecSourceRel = (*vectorJoin)(nil)

func (v *vectorJoin) Resolved() bool       { return true }
func (v *vectorJoin) Schema() sql.Schema   { return v.schema }
func (v *vectorJoin) Children() []sql.Node { return []sql.Node{v.orig} }
func (v *vectorJoin) IsReadOnly() bool     { return true }

// String shows the replaced plan too: it runs the build side, and runs
// whole on fallback.
func (v *vectorJoin) String() string {
	tp := sql.NewTreePrinter()
	_ = tp.WriteNode("VectorJoinAggregate(probe %s)", v.table)
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

// RowIter builds the hash table, probes the table and aggregates, or
// runs the replaced plan when the build side is too large, holds a value
// scan would not store exactly, or the data needs the row path
// (scan.ErrOverflow).
func (v *vectorJoin) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	build, ok, err := v.buildRecord(ctx, row, joinBuildRows(ctx))
	if err != nil {
		return nil, err
	}
	if !ok {
		return v.exec.Build(ctx, v.orig, row)
	}
	defer build.Release()
	in, err := v.table.AggInput(ctx)
	if err != nil {
		return nil, err
	}
	rows, st, err := v.plan.Run(ctx, in, build)
	v.table.ReportScan(ctx, st)
	if errors.Is(err, scan.ErrOverflow) {
		return v.exec.Build(ctx, v.orig, row)
	}
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(project(rows, v.out)...), nil
}

// buildRecord runs the build side on the row path and collects the build
// columns, or reports false when it has more than limit rows or a value
// the build record would not hold exactly.
func (v *vectorJoin) buildRecord(ctx *sql.Context, row sql.Row, limit int64) (arrow.Record, bool, error) {
	n, err := v.path.build(v.orig)
	if err != nil {
		return nil, false, err
	}
	iter, err := v.exec.Build(ctx, n, row)
	if err != nil {
		return nil, false, fmt.Errorf("vectorised join build side: %w", err)
	}
	defer iter.Close(ctx)
	rb := provider.NewRowBuilder(v.buildSchema)
	defer rb.Release()
	vals := make(sql.Row, len(v.buildIdx))
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
		for k, i := range v.buildIdx {
			vals[k] = r[i]
			if !holdsExactly(v.buildSchema.Columns[k].Type, r[i]) {
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
