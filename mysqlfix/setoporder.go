package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// GMS v0.20.0 keeps a set operation's ORDER BY, LIMIT and OFFSET inside
// its SetOp node, and its executor skips the OFFSET rows before it sorts
// and applies the LIMIT before the ORDER BY when there is no OFFSET … in
// the wrong order: `SELECT n FROM t UNION ALL SELECT n FROM t ORDER BY 1
// LIMIT 3 OFFSET 2` skipped two unsorted rows and sorted the rest.
// setOpOrder moves them out into Sort, Offset and Limit nodes above the
// SetOp, which run in MySQL's order: sort the whole result, skip OFFSET
// rows, keep LIMIT rows. (It also lets collatedDistinct replace the bare
// set operation without carrying them along.)

// setOpOrder is the analyzer rule.
func setOpOrder(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		s, ok := n.(*plan.SetOp)
		if !ok || (len(s.SortFields) == 0 && s.Limit == nil && s.Offset == nil) {
			return n, transform.SameTree, nil
		}
		return hoistSetOpOrder(s), transform.NewTree, nil
	})
}

// hoistSetOpOrder is s without its ORDER BY, LIMIT and OFFSET, under the
// nodes that apply them.
func hoistSetOpOrder(s *plan.SetOp) sql.Node {
	bare := *s
	bare.SortFields, bare.Limit, bare.Offset = nil, nil, nil
	var out sql.Node = &bare
	if len(s.SortFields) > 0 {
		out = plan.NewSort(s.SortFields, out)
	}
	if s.Offset != nil {
		out = plan.NewOffset(s.Offset, out)
	}
	if s.Limit != nil {
		out = plan.NewLimit(s.Limit, out)
	}
	return out
}
