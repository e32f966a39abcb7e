package rewrite

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// derivedQuery is the subquery's plan without its correlation: the
// aggregate grouped by the inner correlation keys,
//
//	Project(value, k1, k2 …) ← GroupBy(aggs, k1, k2 … | k1, k2 …) ← Filter(local) ← src
func (m *scalarAgg) derivedQuery() sql.Node {
	child := m.src
	if len(m.local) > 0 {
		child = plan.NewFilter(expression.JoinAnd(m.local...), child)
	}
	sel := append([]sql.Expression{}, m.gb.SelectedExprs...)
	group := make([]sql.Expression, len(m.keys))
	projs := []sql.Expression{expression.NewAlias("value", m.proj)}
	for i, k := range m.keys {
		sel = append(sel, k.inner)
		group[i] = k.inner
		projs = append(projs, expression.NewAlias(fmt.Sprintf("k%d", i+1), k.inner))
	}
	return plan.NewProject(projs, plan.NewGroupBy(sel, group, child))
}

// selfContained reports whether q reads only columns it defines: no
// outer column is left once the correlation equalities are gone.
func selfContained(q sql.Node) bool {
	refs := referencedColumns(q)
	return refs.SubsetOf(definedColumns(q))
}

// build makes the derived table, a FROM-clause subquery with fresh ids,
// and returns it with its value column and key columns (as GetFields the
// outer filter reads).
func (m *scalarAgg) build(q sql.Node, ids *idAllocator) (*plan.SubqueryAlias, sql.Expression, []sql.Expression) {
	tid := ids.tableID()
	name := fmt.Sprintf("scalarsubquery%d", tid)
	sa := plan.NewSubqueryAlias(name, m.sq.QueryString, q)
	var cols sql.ColSet
	var out []sql.Expression
	for _, c := range sa.Schema() {
		id := ids.column()
		cols.Add(id)
		out = append(out, expression.NewGetFieldWithTable(int(id), int(tid), c.Type, "", name, c.Name, true))
	}
	// No ScopeMapping: GMS would push a filter on the value (say
	// 10 < value) below the GroupBy's Project, in terms of aggregate ids
	// the Project does not output.
	sa = sa.WithColumns(cols).WithId(tid).(*plan.SubqueryAlias)
	return sa, out[0], out[1:]
}
