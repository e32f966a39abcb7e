package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
)

// A hash lookup on several keys converts the build side's key tuple to
// the probe tuple's types before it hashes it, element by element, so a
// DECIMAL column keyed against a literal took the literal's type: `LEFT
// JOIN b ON a.k = b.k AND b.c = -0.5` converted every b.c to DECIMAL(1,1)
// and failed with 1264 (out of range) on the first wider value.
// tupleHashKeys applies the one-key rule (mysqlHashKeys) to each element
// of such a tuple, so each element pair is compared as MySQL compares
// it and no value is squeezed into the other side's type.

// tupleHashKeys wraps the elements of the build and probe key tuples;
// false when they are not tuples of one length or no element needed it.
func tupleHashKeys(build, probe sql.Expression) (sql.Expression, sql.Expression, bool) {
	bt, ok1 := build.(expression.Tuple)
	pt, ok2 := probe.(expression.Tuple)
	if !ok1 || !ok2 || len(bt) != len(pt) {
		return nil, nil, false
	}
	nb, np := make(expression.Tuple, len(bt)), make(expression.Tuple, len(pt))
	changed := false
	for i := range bt {
		b, p, ok := mysqlHashKeys(bt[i], pt[i])
		if !ok {
			b, p = bt[i], pt[i]
		}
		nb[i], np[i] = b, p
		changed = changed || ok
	}
	return nb, np, changed
}
