package engine

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/rowexec"

	"github.com/lakesql/lakesql/engine/bounded"
	"github.com/lakesql/lakesql/engine/rewrite"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

var _ mysqlfix.Explainer = (*Session)(nil)

// Explain implements mysqlfix.Explainer: EXPLAIN FORMAT=TREE plans query
// and renders the plan with each scan's file pruning (from the manifest);
// EXPLAIN ANALYZE also runs it to the end, discarding its rows, and
// renders each operator's rows, loops and time and each scan's files,
// row groups, rows, bytes, time and memory (explain_render.go). A
// statement that changes data is refused under ANALYZE
// (mysqlfix.ErrExplainWrites).
func (s *Session) Explain(ctx *sql.Context, query string, analyze bool) ([]string, error) {
	node, err := s.e.gms.AnalyzeQuery(ctx, query)
	if err != nil {
		return nil, err
	}
	if !analyze {
		return renderPlan(ctx, node, s.e.estimator(), nil, nil)
	}
	if !node.IsReadOnly() {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: %s", mysqlfix.ErrExplainWrites, query))
	}
	profiles := scan.NewProfiles()
	rctx := ctx.WithContext(scan.WithProfiles(ctx.Context, profiles))
	ops, err := runInstrumented(rctx, node, s.e.cfg.SpillDir)
	if err != nil {
		return nil, err
	}
	return renderPlan(ctx, node, s.e.estimator(), ops, profiles)
}

// opStats is what one plan operator did: the times it was built (loops),
// the rows it returned and the time spent building it and in its Next
// and Close calls (its children's included).
type opStats struct {
	loops, rows int64
	time        time.Duration
}

// instrument is GMS's override hook that measures every operator its
// builder builds. GMS builds a plan on one goroutine, children from
// inside their parent's build; an iterator built later (a join's inner
// side, once per outer row) comes back through the same builder.
type instrument struct {
	base  sql.NodeExecBuilder // the override builder instrument serves
	bound sql.NodeExecBuilder // the budget's operators, built through base
	ops   map[sql.Node]*opStats
	self  sql.Node // the node being built by base on instrument's behalf
}

// runInstrumented builds n with every operator measured, reads it to the
// end and closes it.
func runInstrumented(ctx *sql.Context, n sql.Node, spillDir string) (map[sql.Node]*opStats, error) {
	in := &instrument{ops: map[sql.Node]*opStats{}}
	in.base = rowexec.NewOverrideBuilder(in)
	in.bound = bounded.NewOverride(in.base, spillDir)
	it, err := in.base.Build(ctx, n, nil)
	if err != nil {
		return nil, err
	}
	for {
		_, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
	}
	return in.ops, it.Close(ctx)
}

// Build implements sql.NodeExecBuilder as GMS's override: it builds n
// through base (which asks Build again for n itself: answered by the
// budget's operators, or nil, so GMS builds it; and again for each
// child) and wraps the iterator to measure it. Nodes that are not
// comparable (no identity) are built unmeasured.
func (in *instrument) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	if in.self != nil && sameNode(in.self, n) || !hasIdentity(n) {
		in.self = nil
		return in.bound.Build(ctx, n, r) // nil: GMS builds n
	}
	st := in.ops[n]
	if st == nil {
		st = &opStats{}
		in.ops[n] = st
	}
	st.loops++
	t0 := time.Now()
	in.self = n
	it, err := in.base.Build(ctx, n, r)
	in.self = nil
	st.time += time.Since(t0)
	if err != nil {
		return nil, err
	}
	return &measuredIter{it: it, st: st}, nil
}

// hasIdentity reports whether n can key the measurements: its dynamic
// type is comparable (a pointer, for GMS's nodes).
func hasIdentity(n sql.Node) bool {
	return n != nil && reflect.TypeOf(n).Comparable()
}

func sameNode(a, b sql.Node) bool {
	return hasIdentity(a) && hasIdentity(b) && a == b
}

// measuredIter counts an operator's rows and the time its calls take.
type measuredIter struct {
	it sql.RowIter
	st *opStats
}

func (m *measuredIter) Next(ctx *sql.Context) (sql.Row, error) {
	t0 := time.Now()
	r, err := m.it.Next(ctx)
	m.st.time += time.Since(t0)
	if err == nil {
		m.st.rows++
	}
	return r, err
}

func (m *measuredIter) Close(ctx *sql.Context) error {
	t0 := time.Now()
	err := m.it.Close(ctx)
	m.st.time += time.Since(t0)
	return err
}

// estimator is the row estimate EXPLAIN shows for scans: the join
// coster's, nil when GMS's own coster plans.
func (e *Engine) estimator() estimator {
	if c, ok := e.gms.Analyzer.Coster.(*rewrite.Coster); ok {
		return c.Rows
	}
	return nil
}
