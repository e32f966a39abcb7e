package mysqlfix

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GMS v0.20's hash joins of a number with a string
// (JOIN t0 ON t0.varchar_col = t1.int_col). GMS converts every build key
// to the probe key's type, so a build value 'a' against an INT probe
// fails the query with 1366 in strict mode, and '1.5' is cut to 1, while
// the same join as a nested loop answers: MySQL compares a number with a
// string as two DOUBLEs, the string read by its longest numeric prefix
// ('a' is 0, '2abc' is 2). hashKeys (hashdecimal.go) keys both
// sides by that DOUBLE.

// numberAndString reports whether one key is a number and the other a
// string.
func numberAndString(a, b sql.Type) bool {
	num := func(t sql.Type) bool { return types.IsNumber(t) && !types.IsBit(t) }
	return num(a) && types.IsText(b) || types.IsText(a) && num(b)
}

// doubleKey is a hash-join key compared as MySQL compares a number with
// a string: a DOUBLE, NULL for NULL.
type doubleKey struct{ e sql.Expression }

var _ sql.Expression = (*doubleKey)(nil)

func (k *doubleKey) Resolved() bool             { return k.e.Resolved() }
func (k *doubleKey) IsNullable() bool           { return k.e.IsNullable() }
func (k *doubleKey) Type() sql.Type             { return types.Float64 }
func (k *doubleKey) Children() []sql.Expression { return []sql.Expression{k.e} }
func (k *doubleKey) String() string             { return k.e.String() }

func (k *doubleKey) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (k *doubleKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &doubleKey{e: children[0]}, nil
}

func (k *doubleKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.e.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	switch s := v.(type) {
	case string:
		return stringToDouble(s), nil
	case []byte:
		return stringToDouble(string(s)), nil
	}
	f, _, err := types.Float64.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// numericPrefix is the longest prefix of a string MySQL reads as a number.
var numericPrefix = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?`)

// stringToDouble reads s as MySQL does when it compares s with a number.
func stringToDouble(s string) float64 {
	p := numericPrefix.FindString(strings.TrimLeft(s, " \t\n\r"))
	f, _ := strconv.ParseFloat(p, 64) // "" is 0; out of range is ±Inf
	return f
}
