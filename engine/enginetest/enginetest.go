// Package enginetest holds the helpers the SQL-level tests of engine and
// its sub-packages share: a fresh embedded engine, and renderings of
// results and plans to compare as text.
package enginetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/engine"
)

// Open opens an engine on a fresh warehouse in t's temporary folder, closed
// when t ends.
func Open(t testing.TB) *engine.Engine {
	t.Helper()
	return OpenWith(t, func(*engine.Config) {})
}

// OpenWith is Open with the configuration changed by set first.
func OpenWith(t testing.TB, set func(*engine.Config)) *engine.Engine {
	t.Helper()
	cfg := engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true}
	set(&cfg)
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Render runs q and renders its rows, one line each, columns joined by
// "|", NULL as NULL.
func Render(t testing.TB, conn *engine.Conn, q string) string {
	t.Helper()
	r, err := conn.QueryOne(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var lines []string
	for i := range r.Rows {
		cells := make([]string, len(r.Rows[i]))
		for j := range r.Rows[i] {
			txt, ok := r.Text(i, j)
			if !ok {
				txt = "NULL"
			}
			cells[j] = txt
		}
		lines = append(lines, strings.Join(cells, "|"))
	}
	return strings.Join(lines, "\n")
}

// Explain renders q's plan (EXPLAIN FORMAT=TREE).
func Explain(t testing.TB, conn *engine.Conn, q string) string {
	return Render(t, conn, "EXPLAIN FORMAT=TREE "+q)
}

// Typed renders a result with each value's Go type (and a decimal's
// scale), sorted unless ordered.
func Typed(t testing.TB, conn *engine.Conn, q string, ordered bool) string {
	t.Helper()
	r, err := conn.QueryOne(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	lines := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		cells := make([]string, len(row))
		for j, v := range row {
			cells[j] = fmt.Sprintf("%T:%v", v, v)
			if d, ok := v.(decimal.Decimal); ok { // the scale too, not only the value
				cells[j] = fmt.Sprintf("decimal:%se%d", d.Coefficient(), d.Exponent())
			}
		}
		lines[i] = strings.Join(cells, "|")
	}
	if !ordered {
		sort.Strings(lines)
	}
	return strings.Join(lines, "\n")
}

// SameAsRowPath checks that fast runs through a plan node named node and
// slow (the same query with a conjunct no pushdown takes) does not, and
// that both return the same values and Go types; it returns slow's
// rendering.
func SameAsRowPath(t testing.TB, conn *engine.Conn, node, fast, slow string, ordered bool) string {
	t.Helper()
	if plan := Explain(t, conn, fast); !strings.Contains(plan, node) {
		t.Errorf("not pushed down (no %s): %s\n%s", node, fast, plan)
	}
	if strings.Contains(Explain(t, conn, slow), node) {
		t.Fatalf("row-path query was pushed down: %s", slow)
	}
	got, want := Typed(t, conn, fast, ordered), Typed(t, conn, slow, ordered)
	if got != want {
		t.Errorf("%s\npushed down:\n%s\nrow path:\n%s", fast, got, want)
	}
	return want
}
