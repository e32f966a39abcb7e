package rewrite

import (
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dateText and datetimeText are the literal spellings folded: exactly
// what MySQL reads as the column's type, nothing looser.
var (
	dateText     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	datetimeText = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,6})?)?$`)
)

// foldLiterals converts string literals compared with DATE and DATETIME
// columns into typed literals once per query. GMS would convert them for
// every row (TPC-H Q6's `l_shipdate >= DATE '1994-01-01'` was 4× slower on
// the row path), and a typed literal is also what lets pruning use file
// bounds.
func foldLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		e, same, err := transform.Expr(f.Expression, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return foldExpr(ctx, e)
		})
		if err != nil || same {
			return n, transform.SameTree, err
		}
		return plan.NewFilter(e, f.Child), transform.NewTree, nil
	})
}

func foldExpr(ctx *sql.Context, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *expression.Between:
		gf, ok := x.Val.(*expression.GetField)
		if !ok {
			return e, transform.SameTree, nil
		}
		lo, ok1 := typedLiteral(ctx, gf.Type(), x.Lower)
		hi, ok2 := typedLiteral(ctx, gf.Type(), x.Upper)
		if !ok1 || !ok2 {
			return e, transform.SameTree, nil
		}
		return expression.NewBetween(x.Val, lo, hi), transform.NewTree, nil
	case expression.Comparer:
		l, r := x.Left(), x.Right()
		if gf, ok := l.(*expression.GetField); ok {
			if lit, ok := typedLiteral(ctx, gf.Type(), r); ok {
				ne, err := x.WithChildren(l, lit)
				return ne, transform.NewTree, err
			}
		}
		if gf, ok := r.(*expression.GetField); ok {
			if lit, ok := typedLiteral(ctx, gf.Type(), l); ok {
				ne, err := x.WithChildren(lit, r)
				return ne, transform.NewTree, err
			}
		}
	}
	return e, transform.SameTree, nil
}

// typedLiteral converts a string literal to a literal of a DATE or
// DATETIME column's type, when its text is unambiguous.
func typedLiteral(ctx *sql.Context, colType sql.Type, e sql.Expression) (sql.Expression, bool) {
	lit, ok := e.(*expression.Literal)
	if !ok {
		return nil, false
	}
	s, ok := lit.Value().(string)
	if !ok {
		return nil, false
	}
	switch {
	case types.IsDateType(colType):
		if !dateText.MatchString(s) {
			return nil, false
		}
	case types.IsDatetimeType(colType):
		if !datetimeText.MatchString(s) {
			return nil, false
		}
	default:
		return nil, false
	}
	v, _, err := colType.Convert(ctx, s)
	if err != nil || v == nil {
		return nil, false
	}
	return expression.NewLiteral(v, colType), true
}
