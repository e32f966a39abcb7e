package mysqlfix

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// hashKeys fixes GMS v0.20's hash-join keys where its map keys differ
// from MySQL's equality (mysqlHashKeys). First, one DECIMAL key. The
// build side of a hash join (plan.HashLookup) is a Go map keyed by the
// key's value converted to the probe key's type; a DECIMAL value is a
// decimal.Decimal holding a *big.Int, so a probe never finds a build row
// with an equal value: only the first left row, whose probe runs while
// the map is built and sees every right row, gets its matches, and the
// join loses all others (a JOIN b ON a.dec = b.int answered 1 row of 4).
// A key of several columns is hashed by its text and works.
//
// The rule wraps both keys of such a lookup in decimalKey, whose value is
// the canonical text of the number converted to the probe key's type, so
// that equal numbers are equal map keys. The join still evaluates its
// whole condition on each candidate pair.
func hashKeys(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		hl, ok := n.(*plan.HashLookup)
		if !ok {
			return n, transform.SameTree, nil
		}
		build, probe, ok := mysqlHashKeys(hl.RightEntryKey, hl.LeftProbeKey)
		if !ok {
			return n, transform.SameTree, nil
		}
		out, err := hl.WithExpressions(build, probe)
		return out, transform.NewTree, err
	})
}

// mysqlHashKeys wraps a lookup's build and probe keys so that equal map
// keys mean MySQL calls the values equal: a DECIMAL probe by the
// number's canonical text (decimalKey), a number against a string as two
// DOUBLEs (doubleKey, hashmixed.go). It reports false when GMS's keys
// are right as they are (or were wrapped already).
func mysqlHashKeys(build, probe sql.Expression) (sql.Expression, sql.Expression, bool) {
	if _, done := probe.(*decimalKey); done {
		return nil, nil, false
	}
	if to, ok := probe.Type().(sql.DecimalType); ok {
		return &decimalKey{e: build, to: to}, &decimalKey{e: probe, to: to}, true
	}
	if numberAndString(probe.Type(), build.Type()) {
		return &doubleKey{e: build}, &doubleKey{e: probe}, true
	}
	return tupleHashKeys(build, probe)
}

// decimalKey is a hash-join key over a DECIMAL expression: the number's
// canonical text (no trailing zeros), NULL for NULL. A DECIMAL value is
// not converted to the probe's type: a build value wider than it (an IN
// subquery's DECIMAL(26,2) against a DECIMAL(2,1) probe) failed the join
// with 1264 (out of range).
type decimalKey struct {
	e  sql.Expression
	to sql.DecimalType
}

var _ sql.Expression = (*decimalKey)(nil)

// outOfRangeKey is the key of a non-DECIMAL value outside the probe's
// DECIMAL type; canonical numbers never spell it.
const outOfRangeKey = "out of range"

func (k *decimalKey) Resolved() bool             { return k.e.Resolved() }
func (k *decimalKey) IsNullable() bool           { return k.e.IsNullable() }
func (k *decimalKey) Type() sql.Type             { return types.LongText }
func (k *decimalKey) Children() []sql.Expression { return []sql.Expression{k.e} }
func (k *decimalKey) String() string             { return k.e.String() }
func (k *decimalKey) DebugString() string        { return fmt.Sprintf("decimalKey(%s)", sql.DebugString(k.e)) }
func (k *decimalKey) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (k *decimalKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &decimalKey{e: children[0], to: k.to}, nil
}

func (k *decimalKey) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := k.e.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	if d, ok := v.(decimal.Decimal); ok {
		// Exact, whatever the two sides' precision and scale.
		return d.String(), nil
	}
	c, _, err := k.to.Convert(ctx, v)
	if types.ErrConvertToDecimalLimit.Is(err) {
		// Beyond the probe key's type: equal to no probe value (never
		// NULL, which an anti join would count).
		return outOfRangeKey, nil
	}
	if err != nil {
		return nil, err
	}
	d, ok := c.(decimal.Decimal)
	if !ok {
		return nil, fmt.Errorf("decimal hash key: %T from %s", c, k.to)
	}
	return d.String(), nil
}
