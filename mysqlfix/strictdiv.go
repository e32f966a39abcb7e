package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// GMS v0.20.0 evaluates a division by zero to NULL with a warning
// everywhere. MySQL 8 in its default (strict) mode refuses it in the
// values an INSERT or UPDATE writes: error 1365 "Division by 0", nothing
// written. lakesql takes strict mode (STRICT_TRANS_TABLES or
// STRICT_ALL_TABLES) to include ERROR_FOR_DIVISION_BY_ZERO, as MySQL 8's
// default sql_mode does; SELECT keeps NULL and the warning, as in MySQL.

// ErrDivisionByZero is MySQL's ER_DIVISION_BY_ZERO.
func errDivisionByZero() error {
	return mysql.NewSQLError(1365, "22012", "Division by 0")
}

// strictDivision is a division (/, DIV, MOD) that fails on a zero
// divisor.
type strictDivision struct {
	sql.Expression
	left, right sql.Expression
}

func (d *strictDivision) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Expression.Eval(ctx, row)
	if err != nil || v != nil {
		return v, err
	}
	// NULL: a NULL operand, or a zero divisor.
	l, err := d.left.Eval(ctx, row)
	if err != nil || l == nil {
		return nil, err
	}
	r, err := d.right.Eval(ctx, row)
	if err != nil || r == nil {
		return nil, err
	}
	if f, _, cerr := types.Float64.Convert(ctx, r); cerr == nil && f.(float64) == 0 {
		return nil, errDivisionByZero()
	}
	return nil, nil
}

func (d *strictDivision) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := d.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if s, ok := strict(e); ok {
		return s, nil
	}
	return e, nil
}

// strict wraps a division; any other expression is returned as is.
// strict returns e as a strictDivision if it is a division. It reports
// whether it was rather than comparing expressions: some (a Tuple) are
// slices, and comparing them panics.
func strict(e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.Div:
		return &strictDivision{Expression: x, left: x.LeftChild, right: x.RightChild}, true
	case *expression.IntDiv:
		return &strictDivision{Expression: x, left: x.LeftChild, right: x.RightChild}, true
	case *expression.Mod:
		return &strictDivision{Expression: x, left: x.LeftChild, right: x.RightChild}, true
	case *IntDivision: // DIV and MOD of integers (intarith.go)
		return &strictDivision{Expression: x, left: x.left, right: x.right}, true
	case *DecimalDiv: // / of integers and DECIMALs (decimaldiv.go)
		return &strictDivision{Expression: x, left: x.LeftChild, right: x.RightChild}, true
	case *CheckedArithmetic: // / of DOUBLEs, DIV of non-integers (numoverflow.go)
		if l, r, ok := x.operands(); ok {
			return &strictDivision{Expression: x, left: l, right: r}, true
		}
	}
	return e, false
}

func strictExprs(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	return transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if _, done := e.(*strictDivision); done {
			return e, transform.SameTree, nil
		}
		if s, ok := strict(e); ok {
			return s, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// StrictWrites is an exec builder that makes the divisions in the values
// of INSERT (VALUES or SELECT) and UPDATE ... SET strict, in strict mode.
// It works on the plan as it is built rather than as an analyzer rule:
// GMS analyses single-table UPDATEs (and literal INSERTs) with a short
// batch list that skips added rules.
type StrictWrites struct{ Inner sql.NodeExecBuilder }

func (b StrictWrites) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	n, err := strictDivisions(ctx, n)
	if err != nil {
		return nil, err
	}
	// The same short analysis skips exactSumAvg's swap of integer
	// arithmetic (intarith.go), which MySQL applies in every sql_mode.
	if n, err = intArithInWrites(n); err != nil {
		return nil, err
	}
	return b.Inner.Build(ctx, n, r)
}

func strictDivisions(ctx *sql.Context, n sql.Node) (sql.Node, error) {
	mode := sql.LoadSqlMode(ctx)
	if !mode.ModeEnabled("STRICT_TRANS_TABLES") && !mode.ModeEnabled("STRICT_ALL_TABLES") {
		return n, nil
	}
	out, _, err := transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.InsertInto:
			src, same, err := transform.NodeWithOpaque(x.Source, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
				return transform.NodeExprs(n, strictExprs)
			})
			if err != nil || same {
				return n, transform.SameTree, err
			}
			return x.WithSource(src), transform.NewTree, nil
		case *plan.UpdateSource:
			return transform.NodeExprs(x, strictExprs)
		}
		return n, transform.SameTree, nil
	})
	return out, err
}
