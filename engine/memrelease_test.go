package engine_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// rssBytes is this process's resident set size (VmRSS).
func rssBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// TestMemoryReturnedAfterQuery: a query that grows the server by hundreds
// of MB (a GROUP BY over a 160k-row cross join) and one killed half-way
// (the client's context cancelled: KILL QUERY) leave the process's RSS
// back near where it started within seconds of ending, over the wire.
// The bound is generous: at most half of the growth may stay.
func TestMemoryReturnedAfterQuery(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of MB")
	}
	e := enginetest.Open(t)
	db, _ := serve(t, e, "")
	db.SetMaxOpenConns(2) // the query's and the KILL's
	ctx := context.Background()
	for _, q := range []string{"CREATE DATABASE m", "CREATE TABLE m.big (a INT, s VARCHAR(40))"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var vals []string
	for i := 0; i < 400; i++ {
		vals = append(vals, fmt.Sprintf("(%d, '%s')", i, strings.Repeat(string(rune('a'+i%26)), 30)))
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO m.big VALUES "+strings.Join(vals, ",")); err != nil {
		t.Fatal(err)
	}
	const grewEnough = 80 << 20
	const heavy = "SELECT x.a * 1000 + y.a AS k, COUNT(*), MAX(CONCAT(x.s, y.s)) FROM m.big x, m.big y GROUP BY k ORDER BY 2 DESC, 1 LIMIT 1"

	for _, kill := range []bool{false, true} {
		name := "ends"
		if kill {
			name = "killed"
		}
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			debug.FreeOSMemory()
			before := rssBytes(t)
			// peak is raised by the sampler and by the killer: the killer's
			// reading is what made it kill, and the sampler may not have
			// seen it.
			var peak atomic.Int64
			peak.Store(before)
			raise := func(r int64) {
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
			}
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
						raise(rssBytes(t))
					}
				}
			}()
			if kill {
				// KILL QUERY from a second connection once the query has
				// grown the heap.
				go func() {
					for {
						r := rssBytes(t)
						raise(r)
						if r >= before+grewEnough {
							break
						}
						select {
						case <-stop:
							return
						case <-time.After(20 * time.Millisecond):
						}
					}
					var id int64
					row := db.QueryRowContext(ctx, "SELECT id FROM information_schema.processlist WHERE info LIKE 'SELECT x.a * 1000%'")
					if err := row.Scan(&id); err == nil {
						_, _ = db.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id))
					}
				}()
			}
			err := drain(db.QueryContext(ctx, heavy))
			close(stop)
			<-sampled
			if kill && err == nil {
				t.Fatal("the killed query succeeded")
			}
			if !kill && err != nil {
				t.Fatal(err)
			}
			grew := peak.Load() - before
			if grew < grewEnough {
				t.Fatalf("the query grew RSS by only %d MB: it no longer tests anything", grew>>20)
			}
			ended := time.Now()
			deadline := ended.Add(15 * time.Second)
			var now int64
			for {
				now = rssBytes(t)
				if now <= before+grew/2 || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			t.Logf("RSS before %d MB, peak %d MB, %v after the end %d MB", before>>20, peak.Load()>>20, time.Since(ended).Round(100*time.Millisecond), now>>20)
			if now > before+grew/2 {
				t.Errorf("RSS %d MB 15 s after the query ended; started at %d MB, peaked at %d MB", now>>20, before>>20, peak.Load()>>20)
			}
		})
	}
}
