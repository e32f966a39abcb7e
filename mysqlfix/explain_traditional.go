package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS v0.20.0 answers a plain EXPLAIN (MySQL's traditional format) with
// one placeholder row whose integer and float columns (id's neighbours
// rows and filtered) hold the text "NULL": PyMySQL fails to convert it and
// the connection is left out of step. MySQL answers one row per table
// access with real NULLs. TraditionalExplain builds those rows from the analysed
// plan: each table in plan order with its row count, "Using where" under
// a filter, and "No tables used" for a statement without tables. EXPLAIN
// FORMAT=TREE and EXPLAIN PLAN keep GMS's plan text.

// TraditionalExplain is an exec builder that answers plain EXPLAIN
// MySQL's way.
type TraditionalExplain struct{ Inner sql.NodeExecBuilder }

func (b TraditionalExplain) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	d, ok := n.(*plan.DescribeQuery)
	if !ok || d.Format.Plan || d.Format.Analyze {
		return b.Inner.Build(ctx, n, r)
	}
	return sql.RowsToRowIter(explainRows(ctx, d.Query())...), nil
}

// explainRows is one row of plan.DescribeSchema per table access.
func explainRows(ctx *sql.Context, n sql.Node) []sql.Row {
	var rows []sql.Row
	var visit func(n sql.Node, filtered bool)
	visit = func(n sql.Node, filtered bool) {
		transform.Inspect(n, func(n sql.Node) bool {
			switch x := n.(type) {
			case *plan.Filter:
				visit(x.Child, true)
				return false
			case *plan.TableAlias:
				rows = append(rows, explainRow(ctx, x.Name(), x.Child, filtered))
				return false
			case *plan.ResolvedTable:
				if plan.IsDualTable(x) {
					return false // SELECT without FROM
				}
				rows = append(rows, explainRow(ctx, x.Name(), x, filtered))
				return false
			}
			return true
		})
	}
	visit(n, false)
	if len(rows) == 0 {
		return []sql.Row{{uint64(1), "SIMPLE", nil, nil, nil, nil, nil, nil, nil, nil, nil, "No tables used"}}
	}
	return rows
}

func explainRow(ctx *sql.Context, name string, n sql.Node, filtered bool) sql.Row {
	var count any
	if rt, ok := n.(*plan.ResolvedTable); ok {
		if st, ok := rt.UnderlyingTable().(sql.StatisticsTable); ok {
			if c, exact, err := st.RowCount(ctx); err == nil && exact {
				count = c
			}
		}
	}
	extra := ""
	if filtered {
		extra = "Using where"
	}
	return sql.Row{uint64(1), "SIMPLE", name, nil, "ALL", nil, nil, nil, nil, count, 100.0, extra}
}
