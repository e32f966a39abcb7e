package bounded

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/budget"
)

// A CTE or view referenced twice is inlined twice by GMS, as two equal
// derived tables (plan.SubqueryAlias), and each is evaluated: TPC-H Q15
// aggregates lineitem once for the join and once for MAX(total_revenue).
// The override materialises such a derived table once per query: the
// first evaluation keeps its rows, charged to the budget, and the others
// replay them. Only derived tables that do not see the outer row (not
// correlated, not LATERAL) and hold nothing non-deterministic are
// shared, and only in a read-only plan that is not a stored program (a
// loop could evaluate one again after a write). A table whose rows do not
// fit the budget is not kept: every use runs it, as without sharing.

// sharesKey is the query-local key of a query's sharedTables: one per
// builder, so EXPLAIN ANALYZE's own builder finds them in the plan it
// runs (the query's first plan is the EXPLAIN).
type sharesKey struct{ o *override }

// sharedTables are the derived tables of one query that are evaluated
// once, by node.
type sharedTables struct {
	mu      sync.Mutex
	scanned bool
	tables  map[*plan.SubqueryAlias]*sharedTable
}

// sharedTable is one materialised derived table, shared by every
// SubqueryAlias equal to it.
type sharedTable struct {
	state  shareState
	rows   []sql.Row
	charge *budget.Charge
}

type shareState int

const (
	shareEmpty   shareState = iota // not evaluated yet
	shareFilling                   // the first evaluation is running
	shareFull                      // the rows are kept: replay them
	shareOff                       // did not fit, or was abandoned early: run it each time
)

// queryShares returns the query's shared derived tables, finding them in
// root when the query's first plan is built.
func (o *override) queryShares(ctx *sql.Context, root sql.Node) *sharedTables {
	v := budget.From(ctx).Local(sharesKey{o}, func() any { return &sharedTables{} })
	st, _ := v.(*sharedTables)
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.scanned {
		st.scanned = true
		st.tables = findShared(root)
	}
	return st
}

// findShared groups the shareable derived tables of root by their plan
// text and schema, and returns those of groups of two or more.
func findShared(root sql.Node) map[*plan.SubqueryAlias]*sharedTable {
	if !root.IsReadOnly() {
		return nil
	}
	groups := map[string][]*plan.SubqueryAlias{}
	program := false
	walkPlan(root, func(n sql.Node) {
		switch x := n.(type) {
		case *plan.BeginEndBlock, *plan.Block, *plan.Loop, *plan.Repeat, *plan.While, *plan.Call, *plan.TriggerExecutor:
			program = true
		case *plan.SubqueryAlias:
			if key, ok := shareKey(x); ok {
				groups[key] = append(groups[key], x)
			}
		}
	})
	if program {
		return nil
	}
	out := map[*plan.SubqueryAlias]*sharedTable{}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		t := &sharedTable{}
		for _, sa := range g {
			out[sa] = t
		}
	}
	return out
}

// gmsPlan is the package of GMS's plan nodes, whose DebugString shows
// everything that decides their rows (lakesql's vectorised nodes print a
// summary: two of them over one table may differ in what they push).
var gmsPlan = reflect.TypeOf(plan.Project{}).PkgPath()

// sameRowsAsChild is a node whose rows are its one child's (lakesql's
// vectorised nodes keep the plan they replaced as their child): the
// child's plan identifies them.
type sameRowsAsChild interface{ SameRowsAsChild() }

// snapshotted is a table read at a snapshot (lakesql's provider tables):
// equal plans over different snapshots differ.
type snapshotted interface{ SnapshotID() int64 }

// shareKey is what identifies the rows of a derived table: its plan's
// debug text (columns, indexes, types, literals), the snapshots of the
// tables it reads and its schema; false when the derived table cannot be
// shared: it sees the outer row, is LATERAL, holds a non-deterministic
// expression or a node that is not GMS's.
func shareKey(sa *plan.SubqueryAlias) (string, bool) {
	if sa.OuterScopeVisibility || sa.IsLateral {
		return "", false
	}
	var b strings.Builder
	ok := true
	walkPlan(sa.Child, func(n sql.Node) {
		// A GMS node's debug text covers its children; a replacement's
		// covers none: its child's does.
		if _, same := n.(sameRowsAsChild); !same {
			b.WriteString(sql.DebugString(n))
		}
	})
	for _, c := range sa.Schema() {
		b.WriteString("\x00" + c.Name + " " + c.Type.String())
	}
	walkPlan(sa.Child, func(n sql.Node) {
		t := reflect.TypeOf(n)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if _, same := n.(sameRowsAsChild); !same && t.PkgPath() != gmsPlan || same && len(n.Children()) != 1 {
			ok = false
		}
		if rt, isTable := n.(*plan.ResolvedTable); isTable {
			if st, snap := rt.UnderlyingTable().(snapshotted); snap {
				fmt.Fprintf(&b, "\x00snapshot %d", st.SnapshotID())
			}
		}
		if ex, isEx := n.(sql.Expressioner); isEx && !deterministic(ex) {
			ok = false
		}
	})
	return b.String(), ok
}

// deterministic: none of n's expressions is non-deterministic.
func deterministic(ex sql.Expressioner) bool {
	det := true
	for _, e := range ex.Expressions() {
		transform.InspectExpr(e, func(e sql.Expression) bool {
			if nd, ok := e.(sql.NonDeterministicExpression); ok && nd.IsNonDeterministic() {
				det = false
			}
			return !det
		})
	}
	return det
}

// walkPlan calls f for every node of n, the plans of subquery
// expressions included.
func walkPlan(n sql.Node, f func(sql.Node)) {
	if n == nil {
		return
	}
	f(n)
	if ex, ok := n.(sql.Expressioner); ok {
		for _, e := range ex.Expressions() {
			transform.InspectExpr(e, func(e sql.Expression) bool {
				if sq, ok := e.(*plan.Subquery); ok {
					walkPlan(sq.Query, f)
				}
				return false
			})
		}
	}
	for _, c := range n.Children() {
		walkPlan(c, f)
	}
}

// buildShared builds a shared derived table: the replay of its kept
// rows, or its first evaluation keeping them, or (filling elsewhere, or
// off) its plain evaluation. nil: not shared, GMS builds it.
func (o *override) buildShared(ctx *sql.Context, st *sharedTables, sa *plan.SubqueryAlias) (sql.RowIter, error) {
	st.mu.Lock()
	t := st.tables[sa]
	if t == nil {
		st.mu.Unlock()
		return nil, nil
	}
	switch t.state {
	case shareFull:
		rows := t.rows
		st.mu.Unlock()
		return sql.RowsToRowIter(rows...), nil
	case shareEmpty:
		t.state = shareFilling
		t.charge = budget.From(ctx).NewCharge("materialised CTE")
		st.mu.Unlock()
		child, err := o.base.Build(ctx, sa.Child, nil)
		if err != nil {
			st.mu.Lock()
			t.state = shareOff
			st.mu.Unlock()
			return nil, err
		}
		return &shareFillIter{st: st, t: t, child: child, keep: true}, nil
	}
	st.mu.Unlock()
	return o.base.Build(ctx, sa.Child, nil)
}

// shareFillIter passes the first evaluation's rows on and keeps them.
type shareFillIter struct {
	st    *sharedTables
	t     *sharedTable
	child sql.RowIter
	rows  []sql.Row
	keep  bool // false once the rows do not fit
	n     int
	done  bool
}

func (s *shareFillIter) Next(ctx *sql.Context) (sql.Row, error) {
	if s.n++; s.n%checkEvery == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	r, err := s.child.Next(ctx)
	if errors.Is(err, io.EOF) {
		s.finish(true)
		return nil, err
	}
	if err != nil {
		s.finish(false)
		return nil, err
	}
	if s.keep {
		if s.t.charge.Grow(rowSize(r)+ifaceSize) != nil {
			s.keep, s.rows = false, nil
			s.t.charge.Close()
		} else {
			s.rows = append(s.rows, r)
		}
	}
	return r, nil
}

// finish publishes the kept rows when the evaluation read them all.
func (s *shareFillIter) finish(complete bool) {
	if s.done {
		return
	}
	s.done = true
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if complete && s.keep {
		s.t.state, s.t.rows = shareFull, s.rows
		return
	}
	s.t.state, s.t.rows = shareOff, nil
	s.t.charge.Close()
}

func (s *shareFillIter) Close(ctx *sql.Context) error {
	s.finish(false) // closed before the end: the rows are not all there
	return s.child.Close(ctx)
}
