package mysqlfix

import (
	"errors"
	"fmt"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// MaxNesting bounds how deeply a statement's syntax tree nests. GMS's
// planner and analyzer walk expressions recursively and recompute types
// from the leaves at every level, so their cost grows faster than
// quadratically with depth: a flat `SELECT 1+1+…` of 2,000 terms took
// 6.7 s and one of 10,000 terms about a minute, and a 32,000-term OR chain
// half as long (a chain of N binary operators nests N deep). At 1,000
// levels a statement still plans in well under a second. Lists (an IN
// list, a VALUES list, a SELECT list) do not nest and are not limited.
const MaxNesting = 1000

// ErrTooComplex refuses a statement nested deeper than MaxNesting, before
// any planning.
var ErrTooComplex = errors.New("statement too complex")

// checkNesting returns ErrTooComplex when st nests deeper than MaxNesting.
// It stops descending at the limit, so its cost is bounded by the size of
// the statement.
func checkNesting(st ast.SQLNode) error {
	if st == nil {
		return nil
	}
	if deeper(st, 0) {
		return fmt.Errorf("%w: it nests more than %d levels deep (a chain of N operators nests N deep); rewrite long OR chains as IN (…) lists or split the statement", ErrTooComplex, MaxNesting)
	}
	return nil
}

// tooDeep marks the parser's own nesting refusal (deep parentheses or
// subqueries, refused while parsing) as ErrTooComplex.
func tooDeep(err error) error {
	if err != nil && strings.Contains(err.Error(), "max nesting level reached") {
		return fmt.Errorf("%w: %v", ErrTooComplex, err)
	}
	return err
}

// deeper reports whether n, at depth d, has a descendant deeper than
// MaxNesting.
func deeper(n ast.SQLNode, d int) bool {
	if d > MaxNesting {
		return true
	}
	self := true
	found := false
	_ = ast.Walk(func(child ast.SQLNode) (bool, error) {
		if self {
			self = false // Walk visits n first, then its children
			return true, nil
		}
		if found || deeper(child, d+1) {
			found = true
			return false, errStop
		}
		return false, nil
	}, n)
	return found
}

var errStop = errors.New("stop")
