package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/provider"
)

// pruneJoinColumns drops the columns no node above reads from lakesql
// tables below joins. GMS v0.20's pruneTables stops at every physical
// join (hash, lookup, merge), so a table under a HashJoin reads all its
// columns: Q04's EXISTS (SELECT * FROM lineitem …) becomes a hash join
// over a Distinct that decodes all 16 lineitem columns to use one, and
// the semi-join's left side keeps every orders column for a query that
// groups by one.
//
// The walk goes top-down with the set of columns the parent reads. A
// node that defines its output (Project, GroupBy) resets the set to what
// its expressions read; a node that passes its child's rows through
// (Filter, Sort, Limit, joins, lookups, a vectorised join's replaced
// GroupBy) adds what its expressions read.
// A Project below a node that reads columns by name drops the plain
// columns nobody reads (not under a Distinct, whose result depends on
// every column, nor where a parent reads positions: the root, a
// SubqueryAlias). Any other node keeps its subtree as it is. It runs
// after lakesql's other rules, before GMS assigns execution indexes.
func pruneJoinColumns(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if (scope != nil && !scope.IsEmpty()) || !joinRewritesOn(ctx) {
		return n, transform.SameTree, nil
	}
	out, changed, err := pruneWalk(n, colNeed{all: true}, "")
	if err != nil || !changed {
		return n, transform.SameTree, err
	}
	return out, transform.NewTree, nil
}

// colNeed is the columns a parent reads: "table.column" lower-cased, or
// "*.column" for a column read without its table; all when the parent
// reads every column (or reads them by position).
type colNeed struct {
	all  bool
	cols map[string]bool
}

func (c colNeed) has(table, col string) bool {
	col = strings.ToLower(col)
	return c.all || c.cols[strings.ToLower(table)+"."+col] || c.cols["*."+col]
}

// plus is c with the columns n's expressions read.
func (c colNeed) plus(n sql.Node) colNeed {
	if c.all {
		return c
	}
	out := colNeed{cols: make(map[string]bool, len(c.cols))}
	for k := range c.cols {
		out.cols[k] = true
	}
	addRefs(out.cols, n)
	return out
}

// readBy is the columns n's expressions read.
func readBy(n sql.Node) colNeed {
	return colNeed{}.plus(n)
}

// addRefs adds the columns n's expressions read, including those inside
// their subqueries (which may read the outer row).
func addRefs(cols map[string]bool, n sql.Node) {
	ne, ok := n.(sql.Expressioner)
	if !ok {
		return
	}
	for _, e := range ne.Expressions() {
		addExprRefs(cols, e)
	}
}

func addExprRefs(cols map[string]bool, e sql.Expression) {
	transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.GetField:
			t := strings.ToLower(x.Table())
			if t == "" {
				t = "*"
			}
			cols[t+"."+strings.ToLower(x.Name())] = true
		case *plan.Subquery:
			transform.Inspect(x.Query, func(n sql.Node) bool {
				addRefs(cols, n)
				return true
			})
		}
		return false
	})
}

// pruneWalk prunes n's subtree for a parent that reads need; alias is
// the name a TableAlias directly above gives a table.
func pruneWalk(n sql.Node, need colNeed, alias string) (sql.Node, bool, error) {
	switch x := n.(type) {
	case *plan.ResolvedTable:
		return pruneTable(x, need, alias)
	case *plan.TableAlias:
		return pruneChildren(n, need, x.Name())
	case *plan.Project:
		return pruneProject(x, need)
	case *plan.GroupBy:
		return pruneChildren(n, readBy(n), "")
	case *plan.Distinct, *plan.SubqueryAlias:
		return pruneChildren(n, colNeed{all: true}, "")
	case *plan.Filter, *plan.Having, *plan.Sort, *plan.Limit, *plan.Offset, *plan.TopN,
		*plan.JoinNode, *plan.HashLookup, *keyedLookup, *plan.StripRowNode, *vectorJoin:
		return pruneChildren(n, need.plus(n), "")
	}
	return n, false, nil
}

// pruneChildren prunes each child of n for need.
func pruneChildren(n sql.Node, need colNeed, alias string) (sql.Node, bool, error) {
	children := n.Children()
	nc := make([]sql.Node, len(children))
	changed := false
	for i, c := range children {
		var ch bool
		var err error
		if nc[i], ch, err = pruneWalk(c, need, alias); err != nil {
			return n, false, err
		}
		changed = changed || ch
	}
	if !changed {
		return n, false, nil
	}
	out, err := n.WithChildren(nc...)
	return out, err == nil, err
}

// pruneProject drops the plain columns of p that need does not hold,
// and prunes its child for what the rest reads.
func pruneProject(p *plan.Project, need colNeed) (sql.Node, bool, error) {
	exprs := p.Projections
	if !need.all {
		var kept []sql.Expression
		for _, e := range exprs {
			if gf, ok := e.(*expression.GetField); ok && !need.has(gf.Table(), gf.Name()) {
				continue
			}
			kept = append(kept, e)
		}
		if len(kept) > 0 && len(kept) < len(exprs) {
			exprs = kept
		}
	}
	np := p
	if len(exprs) < len(p.Projections) {
		cp := *p
		cp.Projections = exprs
		np = &cp
	}
	child, changed, err := pruneWalk(np.Child, readBy(np), "")
	if err != nil {
		return p, false, err
	}
	if !changed {
		return np, np != p, nil
	}
	out, err := np.WithChildren(child)
	return out, err == nil, err
}

// pruneTable projects a lakesql table to the columns need holds (at
// least one: the table still yields its rows).
func pruneTable(rt *plan.ResolvedTable, need colNeed, alias string) (sql.Node, bool, error) {
	t, ok := rt.Table.(*provider.Table)
	if !ok || need.all {
		return rt, false, nil
	}
	name := alias
	if name == "" {
		name = t.Name()
	}
	sch := t.Schema()
	if len(sch) == 0 {
		return rt, false, nil
	}
	var cols []string
	for _, c := range sch {
		// Under an alias, a column is also kept when a parent names it by
		// the table's own name: GMS's NOT IN anti-join projects the outer
		// table as t2.* above TableAlias(a) (and resolves it by position).
		if need.has(name, c.Name) || need.has(t.Name(), c.Name) {
			cols = append(cols, c.Name)
		}
	}
	if len(cols) == 0 {
		cols = []string{sch[0].Name}
	}
	if len(cols) == len(sch) {
		return rt, false, nil
	}
	nt, err := rt.WithTable(t.WithProjections(cols))
	if err != nil {
		return rt, false, err
	}
	return nt, true, nil
}
