package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
)

// TestComplexity_DeepStatementsFailFast (issue 18, item 8): statements
// nested deeper than the planner handles in bounded time — a flat chain
// of thousands of operators nests that deep — are refused at parse time
// with 1436 and a message saying why; shallower ones and long flat lists
// (IN, VALUES) still run. The test bounds nothing by time: before the
// limit the 10,000-term sum took about a minute of CPU.
func TestComplexity_DeepStatementsFailFast(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	setup := embedded(t, e)
	mustRun(t, setup, "CREATE DATABASE d", "CREATE TABLE d.t (a INT)", "INSERT INTO d.t VALUES (1), (2), (3)")
	h, _ := serve(t, e, "d")
	orChain := func(n int) string {
		terms := make([]string, n)
		for i := range terms {
			terms[i] = fmt.Sprintf("a = %d", i)
		}
		return "SELECT COUNT(*) FROM d.t WHERE " + strings.Join(terms, " OR ")
	}
	inList := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprint(i)
		}
		return "SELECT COUNT(*) FROM d.t WHERE a IN (" + strings.Join(vals, ", ") + ")"
	}
	cases := []struct {
		name, query, want, wantErr string
	}{
		{"sum of 10k terms", "SELECT 1" + strings.Repeat("+1", 9999), "", "1436 too complex"},
		{"OR chain of 32k terms", orChain(32000), "", "1436 too complex"},
		{"nested parentheses", "SELECT " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000), "", "1436 too complex"},
		{"sum of 500 terms", "SELECT 1" + strings.Repeat("+1", 499), "500", ""},
		{"OR chain of 500 terms", orChain(500), "3", ""},
		{"IN list of 32k values", inList(32000), "3", ""},
	}
	for _, tr := range []struct {
		name string
		run  runner
	}{{"embedded", embedded(t, e)}, {"wire", wire(t, h)}} {
		for _, c := range cases {
			t.Run(tr.name+"/"+c.name, func(t *testing.T) {
				got, err := tr.run(c.query)
				if c.wantErr == "" {
					if err != nil || strings.Join(got, ",") != c.want {
						t.Fatalf("got %v, %v; want %s", got, err, c.want)
					}
					return
				}
				code, msg := errCode(err)
				if fmt.Sprint(code) != strings.Fields(c.wantErr)[0] || !strings.Contains(msg, "too complex") {
					t.Fatalf("got %v, %v (%d %q); want %s", got, err, code, msg, c.wantErr)
				}
			})
		}
	}
	// The server still answers after the refusals.
	if got, err := wire(t, h)("SELECT 1+1"); err != nil || strings.Join(got, ",") != "2" {
		t.Fatalf("after the refusals: %v, %v", got, err)
	}
}
