package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestStatistics_FromManifest: the planner's statistics for a lakesql
// table come from the manifest (row count, a histogram with a
// bucket per file when the files do not overlap, a distinct count bounded
// by the integer range), ANALYZE TABLE adds distinct-count estimates read
// from the data, and a commit makes those stale (they are dropped, not
// reported for the new snapshot). GMS's JSON of a statistic does not show
// null counts or the lower bound; provider's unit tests check those.
func TestStatistics_FromManifest(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	exec := func(q string) {
		t.Helper()
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE d")
	exec("USE d")
	exec("CREATE TABLE t (k BIGINT, s VARCHAR(10), v DECIMAL(10,2))")
	// Two files with disjoint k ranges: 1..100 and 101..200, s with 10
	// distinct values, v NULL in every fourth row.
	for f := range 2 {
		var vals []string
		for i := 1; i <= 100; i++ {
			k := f*100 + i
			v := fmt.Sprintf("%d.25", k)
			if k%4 == 0 {
				v = "NULL"
			}
			vals = append(vals, fmt.Sprintf("(%d, 's%d', %s)", k, k%10, v))
		}
		exec("INSERT INTO t VALUES " + strings.Join(vals, ", "))
	}
	type stat struct {
		Rows     uint64 `json:"row_count"`
		Distinct uint64 `json:"distinct_count"`
		Buckets  []struct {
			Rows  uint64 `json:"row_count"`
			Upper []any  `json:"upper_bound"`
		} `json:"buckets"`
	}
	read := func() map[string]stat {
		t.Helper()
		rs, err := conn.Query(ctx, "SELECT column_name, histogram FROM information_schema.column_statistics WHERE schema_name = 'd' AND table_name = 't'")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]stat{}
		for _, r := range rs[0].Rows {
			w, ok := r[1].(sql.JSONWrapper)
			if !ok {
				t.Fatalf("histogram is a %T", r[1])
			}
			v, err := w.ToInterface()
			if err != nil {
				t.Fatal(err)
			}
			text, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Stat stat `json:"statistic"`
			}
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			out[r[0].(string)] = doc.Stat
		}
		return out
	}
	st := read()
	if len(st) != 3 {
		t.Fatalf("statistics for %d columns, want 3: %v", len(st), st)
	}
	k := st["k"]
	if k.Rows != 200 || k.Distinct != 200 {
		t.Errorf("k: rows %d distinct %d, want 200 and 200 (the range bound)", k.Rows, k.Distinct)
	}
	if len(k.Buckets) != 2 || k.Buckets[0].Rows != 100 || fmt.Sprint(k.Buckets[0].Upper) != "[100]" || fmt.Sprint(k.Buckets[1].Upper) != "[200]" {
		t.Errorf("k's histogram %+v, want a bucket per file with upper bounds 100 and 200", k.Buckets)
	}
	if v := st["v"]; v.Rows != 200 || v.Distinct != 0 {
		t.Errorf("v: rows %d distinct %d, want 200 and an unknown distinct count before ANALYZE", v.Rows, v.Distinct)
	}
	if s := st["s"]; len(s.Buckets) != 0 || s.Distinct != 0 {
		t.Errorf("s: histogram %+v distinct %d, want none (the files' ranges overlap) and unknown", s.Buckets, s.Distinct)
	}

	rs, err := conn.Query(ctx, "ANALYZE TABLE t")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rs[0].Rows); got != "[[t analyze status OK]]" {
		t.Fatalf("ANALYZE TABLE: %s", got)
	}
	st = read()
	if s := st["s"]; s.Distinct != 10 {
		t.Errorf("s after ANALYZE: distinct %d, want 10", s.Distinct)
	}
	if v := st["v"]; v.Distinct != 150 {
		t.Errorf("v after ANALYZE: distinct %d, want 150", v.Distinct)
	}

	// A new snapshot: the analyzed counts are stale and no longer shown.
	exec("INSERT INTO t VALUES (201, 'new', 1.00)")
	st = read()
	if s := st["s"]; s.Distinct != 0 || s.Rows != 201 {
		t.Errorf("s after a commit: rows %d distinct %d, want 201 and unknown (ANALYZE is stale)", s.Rows, s.Distinct)
	}
}
