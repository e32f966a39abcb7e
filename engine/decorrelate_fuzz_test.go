package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
	"github.com/lakesql/lakesql/engine/rewrite"
)

// TestFuzzDecorrelate_SameAnswers runs seeded random SELECTs (queryGen's,
// and decorrelateSelect's: the shapes the rule looks for, over every kind
// of join) with the decorrelating rewrite on and off: each
// statement must return the same rows, or fail both ways. It counts the
// statements the rule rewrote, so that the test provably exercises it.
func TestFuzzDecorrelate_SameAnswers(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range genSchema() {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rewritten, rowPathFails := 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		q := newQueryGen(seed).Select()
		if seed%2 == 1 {
			q = decorrelateSelect(seed)
		}
		on, onErr := answer(ctx, conn, true, q)
		off, offErr := answer(ctx, conn, false, q)
		planOn, _ := answer(ctx, conn, true, "EXPLAIN FORMAT=TREE "+q)
		if onErr == nil && offErr != nil {
			// GMS's per-row subquery fails on some operand types the
			// joined value does not ("invalid type: int32").
			rowPathFails++
			continue
		}
		if (onErr == nil) != (offErr == nil) {
			t.Errorf("seed %d: with the rewrite err=%v, without err=%v\n%s", seed, onErr, offErr, q)
			continue
		}
		if on != off {
			t.Errorf("seed %d: answers differ\n%s\nwith the rewrite:\n%s\nwithout:\n%s", seed, q, on, off)
		}
		if onErr == nil && strings.Contains(planOn, "scalarsubquery") {
			rewritten++
		}
	}
	t.Logf("%d statements: %d rewritten and compared; skipped %d the row path fails on", n, rewritten, rowPathFails)
	if rewritten < n/50 {
		t.Errorf("only %d of %d statements were rewritten: the test barely exercises the rule", rewritten, n)
	}
}

// answer runs q with the rewrite on or off and renders its rows sorted
// (value and Go type), or returns its error.
func answer(ctx context.Context, conn *engine.Conn, on bool, q string) (string, error) {
	if err := conn.Exec(ctx, fmt.Sprintf("SET %s = %t", rewrite.SysVarDecorrelate, on)); err != nil {
		return "", err
	}
	r, err := conn.QueryOne(ctx, q)
	if err != nil {
		return "", err
	}
	lines := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		lines[i] = fmt.Sprintf("%T%v", row, row)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), nil
}

// decorrelateSelect is a random SELECT whose WHERE compares an expression
// with a scalar aggregate subquery correlated on one or two outer columns
// (or none), beside other conjuncts, over queryGen's join trees.
func decorrelateSelect(seed uint64) string {
	g := newQueryGen(seed)
	g.depth = 1
	from, s := g.from()
	var corr []string
	for i := g.r.IntN(3); i > 0; i-- {
		corr = append(corr, fmt.Sprintf("z.%s = %s", g.pick("a", "b"), g.numCol(s)))
	}
	if g.r.IntN(2) == 0 {
		corr = append(corr, g.pick("z.b > 0", "z.c <> 'x'", "z.d IS NOT NULL"))
	}
	where := ""
	if len(corr) > 0 {
		where = " WHERE " + strings.Join(corr, " AND ")
	}
	sub := fmt.Sprintf("(SELECT %s(z.%s)%s FROM %s AS z%s)", g.pick("MAX", "MIN", "SUM", "AVG", "COUNT"), g.pick("b", "d"),
		g.pick("", " * 0.5", " + 1"), genTables[g.r.IntN(len(genTables))], where)
	cmp := g.expr(s, 1) + g.pick(" = ", " < ", " > ", " <> ", " <=> ", " >= ") + sub
	if g.r.IntN(3) == 0 {
		cmp = sub + g.pick(" = ", " < ", " > ") + g.expr(s, 1)
	}
	if g.r.IntN(2) == 0 {
		cmp += " AND " + g.cond(s, 1)
	}
	return fmt.Sprintf("SELECT %s AS x0, %s AS x1 FROM %s WHERE %s", g.expr(s, 1), g.col(s), from, cmp)
}
