package engine

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"github.com/lakesql/lakesql/engine/rewrite"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/scan"
)

// renderPlan renders n as MySQL 8's tree: one "-> operator" line per
// node, children indented four spaces, and under each lakesql table read
// a "scan" line. With ops (ANALYZE) each operator line ends in its
// measured time, rows and loops, or "(never executed)", and the scan
// lines come from profiles; without, the scan lines show the file
// pruning planned from the manifest.
func renderPlan(ctx *sql.Context, n sql.Node, est estimator, ops map[sql.Node]*opStats, profiles *scan.Profiles) ([]string, error) {
	r := &renderer{ctx: ctx, est: est, ops: ops, profiles: profiles}
	if err := r.node(n, 0); err != nil {
		return nil, err
	}
	return r.lines, nil
}

// estimator estimates the rows of a scan (a table below its filters),
// false for other nodes: rewrite.Coster's, the planner's own figures.
type estimator func(*sql.Context, sql.Node) (float64, bool)

type renderer struct {
	ctx      *sql.Context
	est      estimator
	ops      map[sql.Node]*opStats
	profiles *scan.Profiles
	lines    []string
	// unmeasured > 0 while rendering a subquery's plan: built inside
	// its expression, its operators are not measured.
	unmeasured int
}

func (r *renderer) node(n sql.Node, depth int) error {
	indent := strings.Repeat("    ", depth)
	switch x := n.(type) {
	case *plan.TableAlias:
		// MySQL names the scan by its alias: one line for both.
		if rt, ok := x.Child.(*plan.ResolvedTable); ok {
			if t := asProviderTable(rt.Table); t != nil {
				r.lines = append(r.lines, indent+"-> Table scan on "+x.Name()+" ("+t.String()+")"+r.estimated(n)+r.measured(n, rt))
				return r.scan(t, depth+1)
			}
		}
	case *plan.ResolvedTable:
		if t := asProviderTable(x.Table); t != nil {
			r.lines = append(r.lines, indent+"-> Table scan on "+t.String()+r.estimated(n)+r.measured(n))
			return r.scan(t, depth+1)
		}
	case rewrite.VectorScan:
		r.lines = append(r.lines, indent+"-> "+label(n)+" [vectorised]"+r.measured(n))
		if err := r.scan(x.ScanTable(), depth+1); err != nil {
			return err
		}
		return r.replacedScans(x, depth+1)
	}
	r.lines = append(r.lines, indent+"-> "+label(n)+r.estimated(n)+r.measured(n))
	for _, c := range n.Children() {
		if err := r.node(c, depth+1); err != nil {
			return err
		}
	}
	return r.subqueries(n, depth+1)
}

// subqueries renders the plans of the subqueries in n's expressions.
// They run inside the expression (once per row when correlated), built
// by the expression itself: their operators are not measured, their
// scans are (the scan lines add up every run: see "runs").
func (r *renderer) subqueries(n sql.Node, depth int) error {
	e, ok := n.(sql.Expressioner)
	if !ok {
		return nil
	}
	var err error
	for _, x := range e.Expressions() {
		transform.InspectExpr(x, func(x sql.Expression) bool {
			sq, ok := x.(*plan.Subquery)
			if !ok || err != nil {
				return false
			}
			r.lines = append(r.lines, strings.Repeat("    ", depth)+"-> Select (subquery in an expression): "+sq.QueryString)
			r.unmeasured++
			err = r.node(sq.Query, depth+1)
			r.unmeasured--
			return false // on to the next subquery (a Subquery has no child expressions)
		})
	}
	return err
}

// replacedScans shows the scans a vectorised node ran through the subtree
// it replaced (a vectorised join's build side, or a fallback to the row
// path): only under ANALYZE, and only those that ran.
func (r *renderer) replacedScans(v rewrite.VectorScan, depth int) error {
	if r.ops == nil {
		return nil
	}
	var err error
	inspect(v.Replaced(), func(n sql.Node) {
		rt, ok := n.(*plan.ResolvedTable)
		if !ok || err != nil {
			return
		}
		if t := asProviderTable(rt.Table); t != nil && t != v.ScanTable() && r.profiles.Lookup(t) != nil {
			r.lines = append(r.lines, strings.Repeat("    ", depth)+"-> Table scan on "+t.String()+" (inside the vectorised operator)")
			err = r.scan(t, depth+1)
		}
	})
	return err
}

func inspect(n sql.Node, f func(sql.Node)) {
	f(n)
	for _, c := range n.Children() {
		inspect(c, f)
	}
}

// label is an operator's one-line name: the first line of GMS's
// rendering, with its expressions.
func label(n sql.Node) string {
	head, _, _ := strings.Cut(n.String(), "\n")
	head = strings.TrimSpace(head)
	e, ok := n.(sql.Expressioner)
	if !ok || len(e.Expressions()) == 0 {
		return head
	}
	exprs := make([]string, len(e.Expressions()))
	for i, x := range e.Expressions() {
		exprs[i] = oneLine(x.String())
	}
	return head + ": " + strings.Join(exprs, ", ")
}

// oneLine drops the plan tree GMS prints inside an expression (a
// subquery's), keeping the text around it: "Subquery as (select …)".
func oneLine(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "├─") || strings.HasPrefix(t, "└─") || strings.HasPrefix(t, "│") || t == "" {
			continue
		}
		kept = append(kept, t)
	}
	return strings.ReplaceAll(strings.Join(kept, " "), " )", ")")
}

// describeStats is GMS's join node: the join planner's estimate, set
// when the node came out of it.
type describeStats interface {
	GetDescribeStatsString(sql.DescribeOptions) string
	GetEstimatedRowCount() uint64
}

// estimated is the "  (estimated rows=N)" suffix of a join, a table scan
// or a filter over one; empty for other operators and for joins the
// planner did not place.
func (r *renderer) estimated(n sql.Node) string {
	if d, ok := n.(describeStats); ok {
		if d.GetDescribeStatsString(sql.DescribeOptions{}) == "(No stats)" {
			return ""
		}
		return fmt.Sprintf("  (estimated rows=%d)", d.GetEstimatedRowCount())
	}
	if r.est == nil {
		return ""
	}
	if rows, ok := r.est(r.ctx, n); ok {
		return fmt.Sprintf("  (estimated rows=%.0f)", math.Ceil(rows))
	}
	return ""
}

// measured is the " (actual …)" suffix of an operator under ANALYZE:
// the first of nodes that was built (a table under its alias is built as
// either).
func (r *renderer) measured(nodes ...sql.Node) string {
	if r.ops == nil || r.unmeasured > 0 {
		return ""
	}
	for _, n := range nodes {
		if !hasIdentity(n) {
			continue
		}
		if st := r.ops[n]; st != nil {
			return fmt.Sprintf("  (actual time=%s rows=%d loops=%d)", ms(st.time), st.rows, st.loops)
		}
	}
	return "  (never executed)"
}

// scan renders the scan line of t: from the profile under ANALYZE, else
// the planned file pruning.
func (r *renderer) scan(t *provider.Table, depth int) error {
	indent := strings.Repeat("    ", depth)
	if r.ops == nil {
		var p scan.Profile
		if err := t.PlanScan(r.ctx, &p); err != nil {
			return err
		}
		r.lines = append(r.lines, indent+fmt.Sprintf("scan %s: files: %d, pruned %d by partition, %d by bounds (row groups, dictionaries and pages are pruned as it runs)",
			t, p.Files, p.FilesPartitionPruned, p.FilesBoundsPruned))
		return nil
	}
	p := r.profiles.Lookup(t)
	if p == nil {
		r.lines = append(r.lines, indent+"scan "+t.String()+": not read")
		return nil
	}
	path := "row path"
	if p.Vectorised {
		path = "vectorised"
	}
	r.lines = append(r.lines,
		indent+fmt.Sprintf("scan %s (%s): files: %d, pruned %d by partition, %d by bounds, %d read, %d from cache",
			t, path, p.Files, p.FilesPartitionPruned, p.FilesBoundsPruned, p.Files-p.FilesPartitionPruned-p.FilesBoundsPruned-p.FilesCached, p.FilesCached),
		indent+fmt.Sprintf("  row groups: %d, pruned %d by bounds, %d by dictionary; rows: %d read, %d skipped by page index",
			p.RowGroups, p.RowGroupsStatsPruned, p.RowGroupsDictPruned, p.RowsRead, p.RowsPageSkipped),
		indent+fmt.Sprintf("  bytes read: %s; time: %s; peak memory: %s; runs: %d",
			bytesText(p.BytesRead()), ms(p.Time), bytesText(p.PeakMemory()), p.Runs))
	return nil
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// bytesText renders n bytes with a binary unit.
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n), 0
	for v >= unit && u < 4 {
		v /= unit
		u++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[u-1])
}
