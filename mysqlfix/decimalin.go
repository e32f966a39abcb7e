package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// MySQL 8 compares `x IN (a, b, …)` of integers and DECIMALs as DECIMALs,
// by value ("Comparison Functions and Operators": "if all values are
// constants, they are evaluated according to the type of expr" … of
// numbers, compared as DECIMAL when one is), so (3.0 + 0.001) IN (0.5,
// 3.0) is false. GMS v0.20.0 converts the values to the first element's
// type (DECIMAL(2,1)), rounding 3.001 to 3.0. Found by difftest against
// MariaDB.

// exactDecimalIn rewrites in, when it compares integers and DECIMALs (at
// least one a DECIMAL), with every element converted to one DECIMAL that
// holds all the values: GMS then compares in that type, exactly. (A list stays
// an InTuple, so GMS's hashed IN and its operand checks still apply.)
func exactDecimalIn(in *expression.InTuple) (sql.Expression, bool) {
	list, ok := in.Right().(expression.Tuple)
	if !ok {
		return nil, false
	}
	if _, row := in.Left().(expression.Tuple); row {
		return nil, false
	}
	all := append([]sql.Expression{in.Left()}, list...)
	nDec, scale := 0, 0
	for _, e := range all {
		if lit, ok := e.(*expression.Literal); ok && lit.Value() == nil {
			continue
		}
		_, s, ok := digitsOf(e)
		if _, _, exact := exactDigits(e.Type()); !ok || !exact {
			return nil, false
		}
		if types.IsDecimal(e.Type()) {
			nDec++
		}
		if hasQuotient(e) {
			s = types.DecimalTypeMaxScale // a quotient carries digits past its scale
		}
		scale = max(scale, s)
	}
	if nDec == 0 || converted(list, max(scale, 1)) || !inLossy(in.Left(), list) {
		return nil, false
	}
	conv := func(e sql.Expression) sql.Expression {
		return expression.NewConvertWithLengthAndScale(e, expression.ConvertToDecimal, types.DecimalTypeMaxPrecision, max(scale, 1)) // scale 0 would be GMS's unbounded type
	}
	out := make(expression.Tuple, len(list))
	for i, e := range list {
		out[i] = conv(e)
	}
	// The left operand stays as it is (a bare column keeps its pruning and
	// vectorised filter): GMS compares in the first element's type, which
	// now holds every value.
	return expression.NewInTuple(in.Left(), out), true
}

// converted reports whether every element is already a DECIMAL(65,scale),
// as exactDecimalIn leaves them.
func converted(all []sql.Expression, scale int) bool {
	for _, e := range all {
		d, ok := e.Type().(sql.DecimalType)
		if !ok || d.Precision() != types.DecimalTypeMaxPrecision || int(d.Scale()) != scale {
			return false
		}
	}
	return true
}

// inLossy reports whether GMS's conversion of the values to the left
// operand's or the first element's type can lose digits; an IN list that
// already compares exactly stays as it is (and vectorised).
func inLossy(left sql.Expression, list expression.Tuple) bool {
	for _, e := range list {
		if lossy(left, e) || lossy(e, left) || lossy(list[0], e) || hasQuotient(e) {
			return true
		}
	}
	return hasQuotient(left)
}
