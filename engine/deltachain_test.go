package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestTimeTravel_DeltaChainsMatchConsolidated runs one random workload
// (inserts, deletes, updates, compactions, rollbacks) on an engine writing
// a consolidated manifest per commit and on one writing delta chains, and
// compares, at every snapshot, the rows, the `t$files` totals and the
// change feed; the chains verify clean and leave no orphan.
func TestTimeTravel_DeltaChainsMatchConsolidated(t *testing.T) {
	full := embedded(t, enginetest.OpenWith(t, func(cfg *engine.Config) {
		cfg.ManifestChain = catalogstore.ChainPolicy{Off: true}
	}))
	delta := embedded(t, enginetest.OpenWith(t, deltaEverywhere))
	both := func(q string) []string {
		t.Helper()
		a, errA := full(q)
		b, errB := delta(q)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("%s: consolidated error %v, delta chains %v", q, errA, errB)
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("%s:\nconsolidated %q\ndelta chains %q", q, a, b)
		}
		return b
	}
	// act runs a statement whose output names files (different paths on
	// each engine): only the outcomes compare.
	act := func(q string) {
		t.Helper()
		_, errA := full(q)
		_, errB := delta(q)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("%s: consolidated error %v, delta chains %v", q, errA, errB)
		}
	}
	both("CREATE DATABASE d")
	both("CREATE TABLE d.t (a INT, b VARCHAR(20))")
	rng := rand.New(rand.NewPCG(7, 11))
	next := 0
	head := func() int {
		rows := both("SELECT COALESCE(MAX(snapshot_id), 0) FROM d.`t$snapshots`")
		var n int
		fmt.Sscan(rows[0], &n)
		return n
	}
	for range 60 {
		switch r := rng.IntN(100); {
		case r < 50:
			var vals []string
			for range 1 + rng.IntN(3) {
				next++
				vals = append(vals, fmt.Sprintf("(%d, 'v%d')", next, next))
			}
			both("INSERT INTO d.t VALUES " + strings.Join(vals, ", "))
		case r < 65:
			both(fmt.Sprintf("DELETE FROM d.t WHERE a %% 7 = %d", rng.IntN(7)))
		case r < 80:
			both(fmt.Sprintf("UPDATE d.t SET b = 'u%d' WHERE a %% 5 = %d", rng.IntN(100), rng.IntN(5)))
		case r < 90:
			act("CALL compact('d.t')")
		default:
			if h := head(); h > 2 {
				act(fmt.Sprintf("CALL rollback_to_snapshot('d.t', %d)", 1+rng.IntN(h-1)))
			}
		}
	}
	h := head()
	for s := 1; s <= h; s++ {
		both(fmt.Sprintf("SELECT a, b FROM d.t AS OF %d", s))
		both(fmt.Sprintf("SELECT COUNT(*), SUM(record_count), MAX(added_snapshot_id) FROM d.`t$files` AS OF %d", s))
		both(fmt.Sprintf("SELECT a, b, _change_type FROM table_changes('d.t', %d, %d)", s-1, s))
	}
	rows, err := delta("SELECT COUNT(*) FROM d.`t$snapshots` WHERE manifest_path LIKE '%/delta-%'")
	if err != nil || rows[0] == "0" {
		t.Fatalf("no snapshot of the delta engine ends in a delta: %v %v", rows, err)
	}
	if got, err := delta("CALL verify('d.t')"); err != nil || len(got) != 1 || !strings.HasPrefix(got[0], "ok|") {
		t.Fatalf("verify over delta chains: %q %v", got, err)
	}
	// Dry run: nothing removed, quarantined, young or missing, and every
	// object under the location (data, bases, deltas) is live.
	got, err := delta("CALL remove_orphan_files('d.t', '1h', true)")
	if err != nil || len(got) != 1 {
		t.Fatalf("orphans over delta chains: %q %v", got, err)
	}
	c := strings.Split(got[0], "|")
	if strings.Join(c[:6], "|") != "1|0|0|0|0|0" || c[6] != c[7] {
		t.Fatalf("orphans over delta chains: %q, want nothing to remove and every object live", got)
	}
}
