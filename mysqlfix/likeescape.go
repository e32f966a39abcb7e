package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GMS's filter simplification turns `x LIKE p` into `x = p` when it
// counts no wildcard in the pattern p, and it counts by text: in the
// pattern a\\% (an escaped backslash, then a wildcard) it takes the % for
// escaped, and the equality compares with the escapes left in. So
// `s LIKE 'a\\\\%'` became s = 'a\\\\%', and, now that string literals
// keep MySQL's \_ (literaltext.go), `s LIKE 'a\_b'` became s = 'a\_b'.
// GMS leaves a LIKE with an ESCAPE clause alone; likeEscape gives each
// LIKE whose literal pattern holds a backslash the explicit ESCAPE '\\'
// that is MySQL's default, so LIKE itself matches such a pattern.

// likeEscape is the analyzer rule.
func likeEscape(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return exprsWithSubqueries(n, likeEscapeExpr)
}

func likeEscapeExpr(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *expression.Like:
		lit, ok := x.RightChild.(*expression.Literal)
		if !ok || x.Escape != nil {
			return e, transform.SameTree, nil
		}
		if s, ok := lit.Value().(string); !ok || !strings.Contains(s, `\`) {
			return e, transform.SameTree, nil
		}
		return expression.NewLike(x.LeftChild, x.RightChild, expression.NewLiteral(`\`, types.LongText)), transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}
