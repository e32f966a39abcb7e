package bounded

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestHoldsDisposable: GROUP BY's Close walks every group's buffers only
// when a selected expression holds state to dispose (a subquery).
func TestHoldsDisposable(t *testing.T) {
	col := expression.NewGetField(0, types.Int64, "a", false)
	sub := plan.NewSubquery(plan.NewEmptyTableWithSchema(nil), "SELECT 1")
	cases := []struct {
		name  string
		exprs []sql.Expression
		want  bool
	}{
		{"column", []sql.Expression{col}, false},
		{"SUM and FIRST", []sql.Expression{aggregation.NewSum(col), aggregation.NewFirst(col)}, false},
		{"SUM of a subquery", []sql.Expression{col, aggregation.NewSum(expression.NewPlus(col, sub))}, true},
	}
	for _, c := range cases {
		if got := holdsDisposable(c.exprs); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
