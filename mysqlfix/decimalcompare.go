package mysqlfix

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// MySQL compares a DECIMAL with a DECIMAL or an integer by value. GMS
// v0.20.0 converts both sides to the left DECIMAL's type (or the right's,
// when only it is one), so `c < 0.001` for a DECIMAL(2,1) c compares c
// with 0.0 (0.0 < 0.001 is false), `c = 0.04` matches 0.0, and `c = 100`
// fails with 1264 (out of range). BETWEEN compares with its bounds on the
// left, so `v BETWEEN 0.001 AND 0.5` converts v to the bounds' types.
// Found by difftest against MariaDB.
//
// exactDecimalComparisons converts the left operand of such a comparison
// to a DECIMAL that holds both sides exactly, which GMS then uses for
// both. Comparisons where the chosen type already holds the other side
// are left alone, so a filter like `price < 24` keeps its bare column for
// pruning and the vectorised paths.
func exactDecimalComparisons(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return exprsWithSubqueries(n, exactDecimalExpr)
}

func exactDecimalExpr(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	switch x := e.(type) {
	case *expression.Between:
		// GMS evaluates Lower <= Val AND Upper >= Val (the bounds' types
		// win), and its analyzer may later spell it Val >= Lower AND Val
		// <= Upper (the value's type wins): exact only if neither loses.
		// Spelled out with the value on the left, each half is an ordinary
		// comparison, made exact below.
		if !lossy(x.Lower, x.Val) && !lossy(x.Upper, x.Val) && !lossy(x.Val, x.Lower) && !lossy(x.Val, x.Upper) {
			return e, transform.SameTree, nil
		}
		lo := exactComparison(expression.NewGreaterThanOrEqual(x.Val, x.Lower))
		hi := exactComparison(expression.NewLessThanOrEqual(x.Val, x.Upper))
		return expression.NewAnd(lo, hi), transform.NewTree, nil
	case expression.Comparer:
		if isJoinKey(x) || !lossy(x.Left(), x.Right()) {
			return e, transform.SameTree, nil
		}
		return exactComparison(x), transform.NewTree, nil
	}
	return e, transform.SameTree, nil
}

// isJoinKey reports whether c is an equality between columns of
// different tables on its two sides, which GMS may plan as hash join
// keys: its HashLookup matches an INT key with a DECIMAL one, but not a
// converted DECIMAL with another (f.k = d.w lost rows), so those stay as
// GMS has them. A side over a table the other side uses too (ROUND(c, 0)
// = c) is no join key.
func isJoinKey(c expression.Comparer) bool {
	switch c.(type) {
	case *expression.Equals, *expression.NullSafeEquals:
		l, r := columnTables(c.Left()), columnTables(c.Right())
		if len(l) == 0 || len(r) == 0 {
			return false
		}
		for t := range l {
			if r[t] {
				return false
			}
		}
		return true
	}
	return false
}

// columnTables are the tables (by name) of e's columns.
func columnTables(e sql.Expression) map[string]bool {
	out := map[string]bool{}
	transform.InspectExpr(e, func(e sql.Expression) bool {
		if gf, ok := e.(*expression.GetField); ok {
			out[strings.ToLower(gf.Table())] = true
		}
		return false
	})
	return out
}

// exactComparison converts c's left operand to a DECIMAL holding both
// operands (65 digits, the larger scale).
func exactComparison(c expression.Comparer) sql.Expression {
	if !lossy(c.Left(), c.Right()) {
		return c
	}
	_, ls, _ := digitsOf(c.Left())
	_, rs, _ := digitsOf(c.Right())
	// The widest DECIMAL of the larger scale: GMS's types of arithmetic
	// results understate their integer digits (it types 3.0 * 100 so
	// that a DECIMAL of its digits cannot hold 300.0), and a CAST out of
	// range gives 0.
	scale := max(ls, rs, 1) // GMS's CAST AS DECIMAL(p,0) is its unbounded internal type
	left := expression.NewConvertWithLengthAndScale(c.Left(), expression.ConvertToDecimal, types.DecimalTypeMaxPrecision, scale)
	out, err := c.WithChildren(left, c.Right())
	if err != nil {
		return c
	}
	return out
}

// lossy reports whether GMS's comparison of l with r converts one side
// to a DECIMAL type that cannot hold the other: GMS picks l's type when it
// is a DECIMAL, else r's. Only DECIMAL–DECIMAL and DECIMAL–integer pairs
// count; MySQL compares a DECIMAL with a float or a string as doubles.
//
// The binder gives a literal compared with a DECIMAL column the column's
// type but keeps its value (0.001 typed DECIMAL(2,1)), so a literal counts
// with the digits of its value.
func lossy(l, r sql.Expression) bool {
	target, other := l, r
	if !types.IsDecimal(l.Type()) {
		target, other = r, l
	}
	if !types.IsDecimal(target.Type()) {
		return false
	}
	ti, ts, _ := cmpDigits(target.Type())
	if vi, vs, _ := digitsOf(target); vi > ti || vs > ts {
		return true // a literal its own type cannot hold
	}
	oi, os, ok := digitsOf(other)
	return ok && (oi > ti || os > ts)
}

// digitsOf is cmpDigits of e's type, or of its value for a DECIMAL literal.
func digitsOf(e sql.Expression) (intDigits, scale int, ok bool) {
	if lit, isLit := e.(*expression.Literal); isLit {
		if d, isDec := lit.Value().(decimal.Decimal); isDec {
			scale = max(0, int(-d.Exponent()))
			if ip := d.Abs().Truncate(0); !ip.IsZero() {
				intDigits = len(ip.String())
			}
			return intDigits, scale, true
		}
	}
	return cmpDigits(e.Type())
}

// cmpDigits is the integer digits and scale a DECIMAL or integer type
// holds (decimalDigits, as MySQL types them); ok is false for other types.
func cmpDigits(t sql.Type) (intDigits, scale int, ok bool) {
	p, sc, ok := decimalDigits(t)
	return int(p) - int(sc), int(sc), ok
}
