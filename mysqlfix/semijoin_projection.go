package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS v0.20.0's join planner panics with "index out of range [2] with
// length 2" on an IN / EXISTS subquery over an aliased table whose columns
// were pruned, when the statement is a derived table, a CTE or a view
// joined with other tables, e.g.
//
//	SELECT s.a FROM (SELECT x.a, x.c FROM t AS x WHERE x.c IN (SELECT c FROM u)) AS s JOIN v ON s.a = v.a
//
// The derived table is planned twice; the second time its tables already
// carry pruned projections, and the semi-to-inner-join alternative
// (analyzer/indexed_joins.go, convertSemiToInnerJoin) looks a column up by
// its ordinal in the full table inside the aliased table's pruned schema.
// MySQL answers these statements. The rule below runs right before
// optimizeJoins and gives the tables under the left side of a semi join
// their full schema back (the lookup then matches); exec indexes are
// assigned after it, so the plan stays consistent. The cost is that those
// tables read every column.

// ruleUnprojectSemiJoinLeft is above GMS's rule ids and lakesql's own.
const ruleUnprojectSemiJoinLeft analyzer.RuleId = 10100

// InstallSemiJoinProjectionFix adds the rule to a, in the batch that runs
// optimizeJoins, just before it. It reports whether that batch was found.
func InstallSemiJoinProjectionFix(a *analyzer.Analyzer) bool {
	for _, b := range a.Batches {
		for i, r := range b.Rules {
			if r.Id.String() != "optimizeJoins" {
				continue
			}
			rules := make([]analyzer.Rule, 0, len(b.Rules)+1)
			rules = append(rules, b.Rules[:i]...)
			rules = append(rules, analyzer.Rule{Id: ruleUnprojectSemiJoinLeft, Apply: unprojectSemiJoinLeft})
			b.Rules = append(rules, b.Rules[i:]...)
			return true
		}
	}
	return false
}

func unprojectSemiJoinLeft(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || !j.Op.IsSemi() {
			return n, transform.SameTree, nil
		}
		left, same, err := unprojectAliased(j.Left())
		if err != nil || same {
			return n, transform.SameTree, err
		}
		nj, err := j.WithChildren(left, j.Right())
		return nj, transform.NewTree, err
	})
}

// unprojectAliased clears the projections of the aliased tables in n, not
// descending into derived tables (their schemas are their own).
func unprojectAliased(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	switch x := n.(type) {
	case *plan.SubqueryAlias:
		return n, transform.SameTree, nil
	case *plan.TableAlias:
		rt, ok := x.Child.(*plan.ResolvedTable)
		if !ok {
			return n, transform.SameTree, nil
		}
		pt, ok := rt.Table.(sql.ProjectedTable)
		if !ok || len(pt.Projections()) == 0 {
			return n, transform.SameTree, nil
		}
		nrt, err := rt.WithTable(pt.WithProjections(nil))
		if err != nil {
			return n, transform.SameTree, err
		}
		na, err := x.WithChildren(nrt)
		return na, transform.NewTree, err
	}
	children := n.Children()
	if len(children) == 0 {
		return n, transform.SameTree, nil
	}
	var out []sql.Node
	for i, c := range children {
		nc, same, err := unprojectAliased(c)
		if err != nil {
			return n, transform.SameTree, err
		}
		if !same {
			if out == nil {
				out = append([]sql.Node(nil), children...)
			}
			out[i] = nc
		}
	}
	if out == nil {
		return n, transform.SameTree, nil
	}
	nn, err := n.WithChildren(out...)
	return nn, transform.NewTree, err
}
