package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS's planbuilder gives a table function's columns no nullability
// (buildTableFunc makes its scope columns NOT NULL), so the column
// references above one say NOT NULL: CREATE TABLE … AS SELECT * FROM
// read_csv(…) made NOT NULL columns and failed on the first NULL. The rule
// rebuilds those references with the nullability of the columns they
// name, for every aliased table (a table function is always aliased;
// other tables' references are already right, so they are unchanged).

// tableFuncNullability is the pre-analyze rule.
func tableFuncNullability(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	nullable := map[sql.ColumnId]bool{}
	collect(n, nullable)
	if len(nullable) == 0 {
		return n, transform.SameTree, nil
	}
	out, same, err := fixNullable(n, nullable)
	if err != nil {
		return nil, transform.SameTree, err
	}
	if ct, ok := out.(*plan.CreateTable); ok && ct.Select() != nil {
		if fixed, ok := ctasNullability(ct); ok {
			return fixed, transform.NewTree, nil
		}
	}
	return out, same, nil
}

// ctasNullability makes the columns of a plain CREATE TABLE … AS SELECT
// (its schema taken from the SELECT when the plan was built) nullable
// where the fixed SELECT's are.
func ctasNullability(ct *plan.CreateTable) (sql.Node, bool) {
	cols, sel := ct.PkSchema().Schema, ct.Select().Schema()
	if len(cols) != len(sel) || len(ct.PkSchema().PkOrdinals) > 0 {
		return nil, false
	}
	changed := false
	out := make(sql.Schema, len(cols))
	for i, c := range cols {
		cp := *c
		if c.Name != sel[i].Name {
			return nil, false
		}
		if !c.Nullable && sel[i].Nullable {
			cp.Nullable, changed = true, true
		}
		out[i] = &cp
	}
	if !changed {
		return nil, false
	}
	return plan.NewCreateTableSelect(ct.Database(), ct.Name(), ct.IfNotExists(), ct.Temporary(), ct.Select(),
		&plan.TableSpec{Schema: sql.NewPrimaryKeySchema(out)}), true
}

// collect records the nullable columns of every TableAlias in n and its
// subqueries.
func collect(n sql.Node, nullable map[sql.ColumnId]bool) {
	transform.Inspect(n, func(n sql.Node) bool {
		if ta, ok := n.(*plan.TableAlias); ok {
			sch := ta.Child.Schema()
			i := 0
			ta.Columns().ForEach(func(id sql.ColumnId) {
				if i < len(sch) && sch[i].Nullable {
					nullable[id] = true
				}
				i++
			})
		}
		if ex, ok := n.(sql.Expressioner); ok {
			for _, e := range ex.Expressions() {
				transform.InspectExpr(e, func(e sql.Expression) bool {
					if sq, ok := e.(*plan.Subquery); ok {
						collect(sq.Query, nullable)
					}
					return false
				})
			}
		}
		return true
	})
}

func fixNullable(n sql.Node, nullable map[sql.ColumnId]bool) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *expression.GetField:
			if x.IsNullable() || !nullable[x.Id()] {
				return e, transform.SameTree, nil
			}
			gf := expression.NewGetFieldWithTable(x.Index(), int(x.TableId()), x.Type(), x.Database(), x.Table(), x.Name(), true)
			return gf.WithId(x.Id()).(sql.Expression), transform.NewTree, nil
		case *plan.Subquery:
			q, same, err := fixNullable(x.Query, nullable)
			if err != nil || same {
				return e, transform.SameTree, err
			}
			return x.WithQuery(q), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}
