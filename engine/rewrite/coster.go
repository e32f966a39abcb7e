package rewrite

import (
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/memo"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/stats"

	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/provider"
)

// SysVarStatsCoster turns the statistics-driven join costing on or off
// for a session: OFF plans joins with GMS's own cardinality guesses,
// which is how the tests compare answers under both plans.
const SysVarStatsCoster = "lakesql_stats_coster"

// Cost factors, GMS's own (memo/coster.go), so that costs stay
// comparable with the operators this coster leaves to GMS's.
const (
	cpuCost = 0.01
	seqCost = 1
	memCost = 2
	// rescanCost is what a nested loop pays per left row to start its
	// right side again (GMS rebuilds the right iterator, which for a
	// lakesql table reopens its files): without it a one-row estimate
	// makes a nested loop look cheaper than a hash join, and a wrong one
	// makes it quadratic.
	rescanCost = 10
)

// Coster is GMS's join coster (memo.Coster) fed with the manifests'
// statistics. GMS v0.20.0 estimates a join's rows from its inputs' row
// counts alone and costs a table by its row count, whatever its filters;
// so a filtered fact table looks as large as the whole, every join looks
// like |L||R|/(0.8 max(|L|,|R|)), and multi-way joins build their large
// side into hash tables (TPC-H Q05 built lineitem and ran past 120 s at
// scale factor 0.1).
//
// Coster estimates each memo group once (estimate.go): a lakesql table's
// rows from its snapshot; a filter's selectivity from its columns'
// distinct counts and ranges (selectivity.go); a join's rows by the
// distinct counts of its key columns (joinest.go). The estimate replaces
// GMS's in the group (so EXPLAIN shows it and GMS's own costing of the
// operators left to it reads it) and prices the operators: a hash join
// reads its probe side once and builds its right side into memory, so the
// smaller input is built; a nested loop pays the product.
//
// Coster holds no per-query state (the estimates live in the memo's
// groups) and is safe for concurrent use.
type Coster struct {
	stats *provider.StatsProvider
	gms   memo.Coster
}

var _ memo.Coster = (*Coster)(nil)

// NewCoster returns a coster reading table statistics from sp.
func NewCoster(sp *provider.StatsProvider) *Coster {
	return &Coster{stats: sp, gms: memo.NewDefaultCoster()}
}

// EstimateCost implements memo.Coster: the cost of rel alone (its
// inputs' costs are added by GMS).
func (c *Coster) EstimateCost(ctx *sql.Context, rel memo.RelExpr, sp sql.StatsProvider) (float64, error) {
	if mysqlfix.ReorderLosesFilter(rel) {
		// A reordered join GMS built without some of the query's
		// conditions: never the plan, whichever coster prices the rest.
		return math.Inf(1), nil
	}
	if !switchOn(ctx, SysVarStatsCoster) {
		return c.gms.EstimateCost(ctx, rel, sp)
	}
	out := c.group(ctx, rel.Group())
	j, ok := rel.(memo.JoinRel)
	if !ok {
		return c.gms.EstimateCost(ctx, rel, sp)
	}
	jp := j.JoinPrivate()
	l := c.group(ctx, jp.Left).rows
	r := c.group(ctx, jp.Right).rows
	switch {
	case jp.Op.IsHash():
		// The right side is built into a hash table, the left probes it.
		return l*(seqCost+cpuCost) + r*(seqCost+memCost) + out.rows*cpuCost, nil
	case jp.Op.IsLookup(), jp.Op.IsMerge(), jp.Op.IsRange():
		return c.gms.EstimateCost(ctx, rel, sp)
	}
	// A nested loop: the right side is read once per left row.
	return l*r*(seqCost+cpuCost) + l*rescanCost + out.rows*cpuCost, nil
}

// groupStat is the statistic Coster leaves in a memo group: the row
// count GMS reads, and the estimate it came from.
type groupStat struct {
	*stats.Statistic
	est *estimate
}

// group returns g's estimate, computing it (and its inputs') the first
// time. Every expression of a group returns the same rows, so the first
// one estimates the group.
func (c *Coster) group(ctx *sql.Context, g *memo.ExprGroup) *estimate {
	if gs, ok := g.RelProps.GetStats().(*groupStat); ok {
		return gs.est
	}
	est := c.rel(ctx, g.First)
	g.RelProps.SetStats(&groupStat{Statistic: &stats.Statistic{RowCnt: uint64(math.Ceil(est.rows))}, est: est})
	return est
}

func (c *Coster) rel(ctx *sql.Context, rel memo.RelExpr) *estimate {
	switch x := rel.(type) {
	case memo.JoinRel:
		jp := x.JoinPrivate()
		return joinEstimate(ctx, jp.Op, c.group(ctx, jp.Left), c.group(ctx, jp.Right), jp.Filter)
	case *memo.Filter:
		return filtered(ctx, c.group(ctx, x.Child), x.Filters)
	case *memo.Project:
		return c.group(ctx, x.Child)
	case *memo.Distinct:
		return c.group(ctx, x.Child)
	case *memo.Max1Row:
		return c.group(ctx, x.Child).derive(1)
	case memo.SourceRel:
		if est, ok := c.node(ctx, x.TableIdNode()); ok {
			return est
		}
	}
	// Anything else keeps GMS's estimate.
	return opaque(rel.Group().RelProps.GetStats())
}

// opaque is the estimate of a relation Coster cannot see into.
func opaque(st sql.Statistic) *estimate {
	rows := 1.0
	if st != nil {
		rows = math.Max(1, float64(st.RowCount()))
	}
	return &estimate{rows: rows, tables: map[sql.TableId]*provider.TableStats{}, ndv: map[colKey]float64{}}
}

// node estimates a join's leaf (a table, under an alias or not, or a
// derived table), false when it cannot.
func (c *Coster) node(ctx *sql.Context, n sql.Node) (*estimate, bool) {
	switch x := n.(type) {
	case *plan.TableAlias:
		est, ok := c.node(ctx, x.Child)
		if ok {
			est = relabel(est, x.Id())
		}
		return est, ok
	case *plan.ResolvedTable:
		// A table whose statistics cannot be read keeps GMS's estimate;
		// reading it fails the query the same way.
		ts, ok, err := c.stats.TableStats(ctx, x.Database().Name(), x.UnderlyingTable())
		if err != nil || !ok {
			return nil, false
		}
		return &estimate{rows: math.Max(1, float64(ts.Rows)), tables: map[sql.TableId]*provider.TableStats{x.Id(): ts}, ndv: map[colKey]float64{}}, true
	}
	return nil, false
}

// relabel files a table's statistics under the id its alias gives it.
func relabel(e *estimate, id sql.TableId) *estimate {
	out := e.derive(e.rows)
	out.tables = map[sql.TableId]*provider.TableStats{}
	for _, ts := range e.tables {
		out.tables[id] = ts
	}
	return out
}

// Rows estimates the rows a scan returns: a lakesql table, under an
// alias or not, below any filters over it (EXPLAIN shows it; joins show
// the memo's estimate). False for any other node.
func (c *Coster) Rows(ctx *sql.Context, n sql.Node) (float64, bool) {
	est, ok := c.scan(ctx, n)
	if !ok {
		return 0, false
	}
	return est.rows, true
}

func (c *Coster) scan(ctx *sql.Context, n sql.Node) (*estimate, bool) {
	f, ok := n.(*plan.Filter)
	if !ok {
		return c.node(ctx, n)
	}
	child, ok := c.scan(ctx, f.Child)
	if !ok {
		return nil, false
	}
	return filtered(ctx, child, expression.SplitConjunction(f.Expression)), true
}

// filtered is the estimate of child's rows that pass filters. The
// filters are judged against child's columns (distinct counts capped by
// child's rows), then the rows are cut.
func filtered(ctx *sql.Context, child *estimate, filters []sql.Expression) *estimate {
	out := child.derive(child.rows)
	out.rows = math.Max(1, child.rows*selectivity(ctx, out, filters))
	return out
}
