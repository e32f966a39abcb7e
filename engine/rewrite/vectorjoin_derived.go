package rewrite

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// derivedLeaf reads n as a join leaf computed on the row path and held
// as a build side: a node without joins or subquery expressions whose
// output columns all name one source (a derived table under its alias,
// as decorrelate builds for a correlated aggregate, or the grouped
// aggregate with HAVING of an IN subquery: TPC-H Q17, Q18). It reports
// that name, which the join conditions qualify its columns with. Joins
// stay out: a derived join could be far larger than the probe.
func derivedLeaf(n sql.Node) (string, bool) {
	name := ""
	for _, c := range n.Schema() {
		switch {
		case c.Source == "":
			return "", false
		case name == "":
			name = c.Source
		case !strings.EqualFold(name, c.Source):
			return "", false
		}
	}
	if name == "" {
		return "", false
	}
	complex := false
	transform.Inspect(n, func(x sql.Node) bool {
		switch x.(type) {
		case *plan.JoinNode, *keyedLookup, *vectorJoin:
			complex = true
		}
		if ex, ok := x.(sql.Expressioner); ok {
			for _, e := range ex.Expressions() {
				complex = complex || hasSubquery(e)
			}
		}
		return !complex
	})
	return name, !complex
}

// leafNode reports whether n may be a join leaf: a single table, or a
// derived leaf.
func leafNode(n sql.Node) bool {
	if singleTable(n) {
		return true
	}
	_, ok := derivedLeaf(n)
	return ok
}

// leafSide reads n as a join input: a single table (sideOf), or a
// derived leaf, which is always a build side read on the row path.
func leafSide(ctx *sql.Context, n sql.Node) (joinSide, bool) {
	if singleTable(n) {
		return sideOf(ctx, n), true
	}
	name, ok := derivedLeaf(n)
	return joinSide{node: n, name: name}, ok
}

// underLookup is n under a keyedLookup and a HashLookup (a hash join's
// right side as GMS or hashjoin.go built it), and the path from n down.
func underLookup(n sql.Node) (sql.Node, []int) {
	var path []int
	if k, ok := n.(*keyedLookup); ok {
		n, path = k.hl, append(path, 0)
	}
	if hl, ok := n.(*plan.HashLookup); ok {
		n, path = hl.Child, append(path, 0)
	}
	return n, path
}

// orderScore ranks a leaf as the next build side to probe (direct: it
// is joined to the probe itself, so its keys prune the probe scan):
// direct leaves first; among them filtered tables, which drop the most
// tuples before the later sides, then other tables, then derived leaves
// (Q17's grouped lineitem, one row per part: probed after part's
// filter, it sees a few tuples instead of every lineitem row).
func (l joinLeaf) orderScore(direct bool) int {
	score := 0
	switch {
	case l.table != nil && len(l.filters) > 0:
		score = 2
	case l.table != nil:
		score = 1
	}
	if direct {
		score += 3
	}
	return score
}
