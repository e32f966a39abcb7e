package rewrite

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// vectorize replaces GroupBy(Filter?(Table)) over a lakesql table, at the
// top scope, with a vectorAgg node that runs the whole aggregation in
// scan's vectorised pipeline (pruned files and row groups, selection
// vectors, typed hash GROUP BY) and returns only the result rows. Any
// part the pipeline cannot compute exactly as the row path does (another
// expression, function, type, DISTINCT other than COUNT(DISTINCT x), a
// literal outside the column's domain) leaves the plan unchanged.
func vectorize(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope == nil || scope.IsEmpty() {
		n = dropUnread(n)
	}
	return replaceGroupBys(n, scope, func(gb *plan.GroupBy) (sql.Node, bool) {
		v, ok := vectorAggFor(ctx, gb)
		if !ok {
			return nil, false
		}
		v.exec = a.ExecBuilder
		return v, true
	})
}

// replaceGroupBys replaces each GroupBy at the top scope with what
// compile makes of it, if anything; a GroupBy already kept as the
// fallback child of a vectorised node stays. (Rows inside subqueries
// carry an outer-scope prefix the vectorised nodes do not produce.)
func replaceGroupBys(n sql.Node, scope *plan.Scope, compile func(*plan.GroupBy) (sql.Node, bool)) (sql.Node, transform.TreeIdentity, error) {
	if scope != nil && !scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	return transform.NodeWithCtx(n, nil, func(tc transform.Context) (sql.Node, transform.TreeIdentity, error) {
		gb, ok := tc.Node.(*plan.GroupBy)
		switch tc.Parent.(type) {
		case *vectorAgg, *vectorJoin:
			ok = false
		}
		if !ok {
			return tc.Node, transform.SameTree, nil
		}
		if v, ok := compile(gb); ok {
			return v, transform.NewTree, nil
		}
		return tc.Node, transform.SameTree, nil
	})
}

// project picks the columns out of each result row of a vectorised node.
func project(rows []sql.Row, out []int) []sql.Row {
	res := make([]sql.Row, len(rows))
	for i, r := range rows {
		o := make(sql.Row, len(out))
		for j, k := range out {
			o[j] = r[k]
		}
		res[i] = o
	}
	return res
}

// vectorAggFor compiles gb, or reports false.
func vectorAggFor(ctx *sql.Context, gb *plan.GroupBy) (*vectorAgg, bool) {
	child := gb.Child
	var filters []sql.Expression
	if f, ok := child.(*plan.Filter); ok {
		filters = expression.SplitConjunction(f.Expression)
		child = f.Child
	}
	t := baseTable(ctx, child)
	if t == nil {
		return nil, false
	}
	s := t.CatalogSchema()
	fieldOf := func(e sql.Expression) (int, string, bool) {
		gf, ok := e.(*expression.GetField)
		if !ok {
			return 0, "", false
		}
		c, ok := s.Column(gf.Name())
		return c.ID, strings.ToLower(gf.Name()), ok
	}
	var groupBy []int
	keyIndex := map[string]int{}
	for _, e := range gb.GroupByExprs {
		id, name, ok := fieldOf(e)
		if !ok {
			return nil, false
		}
		keyIndex[name] = len(groupBy)
		groupBy = append(groupBy, id)
	}
	var aggs []scan.AggSpec
	out := make([]int, len(gb.SelectedExprs)) // result column per selected expression
	for i, e := range gb.SelectedExprs {
		if al, ok := e.(*expression.Alias); ok {
			e = al.Child
		}
		if _, name, ok := fieldOf(e); ok {
			k, isKey := keyIndex[name]
			if !isKey {
				return nil, false // a non-grouped column: GMS picks any row's
			}
			out[i] = k
			continue
		}
		spec, ok := aggSpec(e, s, fieldOf)
		if !ok {
			return nil, false
		}
		out[i] = len(groupBy) + len(aggs)
		aggs = append(aggs, spec)
	}
	p, ok := scan.CompileAggregate(s, filters, groupBy, aggs)
	if !ok {
		return nil, false
	}
	return &vectorAgg{schema: gb.Schema(), table: t, plan: p, out: out, rowPath: gb}, true
}

// aggSpec translates one aggregate over a column or an arithmetic
// expression of columns (scan.CompileExpr decides which it computes
// exactly).
func aggSpec(e sql.Expression, s *schema.Schema, fieldOf func(sql.Expression) (int, string, bool)) (scan.AggSpec, bool) {
	kind, child, ok := aggKind(e)
	if !ok || kind == scan.AggCountStar {
		return scan.AggSpec{Kind: kind}, ok
	}
	scale := resultScale(e)
	if id, _, ok := fieldOf(child); ok {
		return scan.AggSpec{Kind: kind, FieldID: id, Scale: scale}, true
	}
	x, ok := scan.CompileExpr(s, child)
	return scan.AggSpec{Kind: kind, Expr: x, Scale: scale}, ok
}

// resultScale is the scale of an aggregate's DECIMAL result (an exact SUM
// or AVG), 0 for any other.
func resultScale(e sql.Expression) int32 {
	if d, ok := e.Type().(sql.DecimalType); ok {
		return int32(d.Scale())
	}
	return 0
}

// aggKind classifies an aggregate the vectorised paths compute, with the
// expression it aggregates (nil for COUNT(*) and COUNT of a non-NULL
// literal); window aggregates and others report false.
//
// GMS writes COUNT(DISTINCT x, ...) as a CountDistinct of its arguments
// and any other DISTINCT aggregate (SUM(DISTINCT x), ...) as the plain
// aggregate of a DistinctExpression: only COUNT(DISTINCT x) of one
// argument is vectorised, and a DistinctExpression argument is refused
// here rather than left to fail to compile.
func aggKind(e sql.Expression) (scan.AggKind, sql.Expression, bool) {
	type windowed interface{ Window() *sql.WindowDefinition }
	if w, ok := e.(windowed); ok && w.Window() != nil {
		return 0, nil, false
	}
	if cd, ok := e.(*aggregation.CountDistinct); ok {
		return countDistinctKind(cd)
	}
	for _, c := range e.Children() {
		if _, distinct := c.(*expression.DistinctExpression); distinct {
			return 0, nil, false
		}
	}
	switch x := e.(type) {
	case *aggregation.Count:
		switch c := x.Child.(type) {
		case *expression.Star:
			return scan.AggCountStar, nil, true
		case *expression.Literal:
			return scan.AggCountStar, nil, c.Value() != nil
		}
		return scan.AggCount, x.Child, true
	case *aggregation.Sum: // over floats: mysqlfix.Sum takes integers and DECIMALs
		return scan.AggSum, x.Child, types.IsFloat(x.Child.Type())
	case *aggregation.Avg:
		return scan.AggAvg, x.Child, types.IsFloat(x.Child.Type())
	case *mysqlfix.Sum:
		return scan.AggSum, x.Child, true
	case *mysqlfix.Avg:
		return scan.AggAvg, x.Child, true
	case *aggregation.Min:
		return scan.AggMin, x.Child, true
	case *aggregation.Max:
		return scan.AggMax, x.Child, true
	}
	return 0, nil, false
}

// countDistinctKind classifies COUNT(DISTINCT x): one argument, not *
// or a literal (CompileExpr would refuse a literal anyway).
func countDistinctKind(cd *aggregation.CountDistinct) (scan.AggKind, sql.Expression, bool) {
	args := cd.Children()
	if len(args) != 1 {
		return 0, nil, false
	}
	switch args[0].(type) {
	case *expression.Star, *expression.Literal:
		return 0, nil, false
	}
	return scan.AggCountDistinct, args[0], true
}

// vectorAgg is a GroupBy computed by scan's vectorised pipeline.
type vectorAgg struct {
	schema sql.Schema
	table  *provider.Table
	plan   *scan.AggPlan
	out    []int
	// rowPath is the GroupBy replaced, run instead when the vectorised
	// pipeline reports scan.ErrOverflow: a value outside its 128-bit range
	// (GMS's decimals are unbounded), or one the row path errors on.
	rowPath sql.Node
	exec    sql.NodeExecBuilder
}

var _ sql.ExecSourceRel = (*vectorAgg)(nil)

func (v *vectorAgg) Resolved() bool     { return true }
func (v *vectorAgg) String() string     { return fmt.Sprintf("VectorAggregate(%s)", v.table) }
func (v *vectorAgg) Schema() sql.Schema { return v.schema }

// Children is the replaced GroupBy, kept so that GMS's later passes
// (execution indexes) prepare it for the fallback; RowIter runs it only on
// scan.ErrOverflow.
func (v *vectorAgg) Children() []sql.Node { return []sql.Node{v.rowPath} }

// SameRowsAsChild marks a node whose rows are its child's (the plan it
// replaced): plans are compared by that child (bounded's shared tables).
func (v *vectorAgg) SameRowsAsChild() {}
func (v *vectorAgg) IsReadOnly() bool { return true }
func (v *vectorAgg) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(v, len(children), 1)
	}
	cp := *v
	cp.rowPath = children[0]
	return &cp, nil
}

func (v *vectorAgg) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	in, err := v.table.AggInput(ctx)
	if err != nil {
		return nil, err
	}
	rows, st, err := v.plan.Run(ctx, in)
	v.table.ReportScan(ctx, st)
	if errors.Is(err, scan.ErrOverflow) && v.exec != nil {
		return v.exec.Build(ctx, v.rowPath, row)
	}
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(project(rows, v.out)...), nil
}
