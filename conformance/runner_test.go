package conformance_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/conformance"
)

// fakeHarness answers from a table: statements fail when they contain
// "FAIL", queries return results[query], "SLOW" sleeps past any timeout.
type fakeHarness struct {
	initErr error
	results map[string][]string
}

func (f *fakeHarness) EngineStr() string { return "mysql" }
func (f *fakeHarness) Init() error       { return f.initErr }
func (f *fakeHarness) GetTimeout() int64 { return 0 }
func (f *fakeHarness) ExecuteStatement(s string) error {
	return f.ExecuteStatementContext(context.Background(), s)
}
func (f *fakeHarness) ExecuteQuery(q string) (string, []string, error) {
	return f.ExecuteQueryContext(context.Background(), q)
}

func (f *fakeHarness) ExecuteStatementContext(ctx context.Context, s string) error {
	if strings.Contains(s, "SLOW") {
		<-ctx.Done()
		// Answer well after the deadline: the library selects between
		// this answer and its own timeout, and an answer ready at the
		// same moment would be counted "not ok" half the time.
		time.Sleep(300 * time.Millisecond)
		return ctx.Err()
	}
	if strings.Contains(s, "FAIL") {
		return errors.New("refused")
	}
	return nil
}

func (f *fakeHarness) ExecuteQueryContext(ctx context.Context, q string) (string, []string, error) {
	return "I", f.results[q], nil
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const fakeFile = `statement ok
CREATE TABLE t(x INTEGER)

statement ok
INSERT FAIL

statement error
INSERT FAIL

query I nosort
SELECT x FROM t
----
1
2

query I nosort
SELECT x % 2 FROM t
----
1

onlyif sqlite
statement ok
PRAGMA x

statement ok
SLOW

statement ok
CREATE TABLE never(x INTEGER)
`

func TestRunFileCounts(t *testing.T) {
	path := writeFile(t, "fake.test", fakeFile)
	fake := &fakeHarness{results: map[string][]string{
		"SELECT x FROM t":     {"1", "2"},
		"SELECT x % 2 FROM t": {"0"},
	}}
	h := &conformance.Harness{Harness: fake, RecordTimeout: time.Second}
	res := conformance.RunFile(h, path, "fake", 0)
	if res.InitErr != nil {
		t.Fatal(res.InitErr)
	}
	got := [...]int{res.Passed, res.NotOK, res.Skipped, res.Timeout, res.DidNotRun}
	if want := [...]int{3, 2, 1, 1, 1}; got != want {
		t.Fatalf("passed, not ok, skipped, timeout, did not run = %v, want %v (failures %v, other %q)", got, want, res.Failures, res.Other)
	}
	var lines []int
	for _, f := range res.Failures {
		lines = append(lines, f.Line)
	}
	// The '%' query's failure line is mangled by the library's Sprintf:
	// it is still counted and attributed to its line.
	if want := []int{5, 17, 26}; len(lines) != 3 || lines[0] != want[0] || lines[1] != want[1] || lines[2] != want[2] {
		t.Errorf("failure lines = %v, want %v (%v)", lines, want, res.Failures)
	}
	if !strings.Contains(res.Failures[0].Message, "refused") || res.Failures[0].Query != "INSERT FAIL" {
		t.Errorf("first failure = %+v, want INSERT FAIL refused", res.Failures[0])
	}
	if res.Run() != 6 || res.Failed() != 4 || res.OK() {
		t.Errorf("Run, Failed, OK = %d, %d, %v; want 6, 4, false", res.Run(), res.Failed(), res.OK())
	}
}

func TestRunFileCapAndInit(t *testing.T) {
	path := writeFile(t, "fake.test", "statement ok\nCREATE TABLE a(x INTEGER)\n\nstatement ok\nCREATE TABLE b(x INTEGER)\n")
	reset := 0
	fake := &fakeHarness{initErr: errors.New("show full tables: boom")}
	h := &conformance.Harness{Harness: fake, RecordTimeout: time.Second, Reset: func() error { reset++; return nil }}
	// A cap already past: the first record blocks until the record
	// timeout, the rest does not run.
	res := conformance.RunFile(h, path, "fake", time.Nanosecond)
	if res.InitErr == nil || !strings.Contains(res.InitErr.Error(), "boom") || reset != 1 {
		t.Errorf("InitErr = %v, reset %d times; want the Init error and one reset", res.InitErr, reset)
	}
	if !res.CapHit || res.Timeout != 1 || res.DidNotRun != 1 || res.Passed != 0 {
		t.Errorf("cap hit %v, timeout %d, did not run %d, passed %d; want true, 1, 1, 0", res.CapHit, res.Timeout, res.DidNotRun, res.Passed)
	}
	// The next file starts afresh.
	fake.initErr = nil
	res = conformance.RunFile(h, path, "fake", time.Minute)
	if res.InitErr != nil || res.CapHit || res.Passed != 2 {
		t.Errorf("second run: %+v, want 2 passed", res)
	}
}

func TestParseScriptAnnotations(t *testing.T) {
	good := writeFile(t, "good.test", "# error: 1146 nowhere\nskipif mysql\nstatement error\nSELECT * FROM nowhere\n")
	s, err := conformance.ParseScript(good)
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Errors[4]; w.Code != 1146 || w.Fragment != "nowhere" {
		t.Errorf("annotation of line 4 = %+v, want 1146 nowhere", w)
	}
	for name, text := range map[string]string{
		"missing":  "statement error\nSELECT 1\n",
		"dangling": "# error: 1146 x\nstatement ok\nSELECT 1\n",
		"at end":   "statement ok\nSELECT 1\n\n# error: 1146 x\n",
	} {
		if _, err := conformance.ParseScript(writeFile(t, "bad.test", text)); err == nil {
			t.Errorf("%s: ParseScript accepted %q", name, text)
		}
	}
}

// TestParseScriptExplain: "# explain:" lines attach to the next query or
// statement error record (skipif/onlyif between allowed), "!" says
// absent, and they are refused anywhere else.
func TestParseScriptExplain(t *testing.T) {
	good := writeFile(t, "good.test", "# explain: VectorAggregate\n# explain: !StatsAnswer\nskipif mysql\nquery I nosort\nSELECT 1\n----\n1\n")
	s, err := conformance.ParseScript(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []conformance.ExplainWant{{Fragment: "VectorAggregate"}, {Fragment: "StatsAnswer", Absent: true}}
	if got := s.Explains[5]; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("explains of line 5 = %+v, want %+v", got, want)
	}
	failing := writeFile(t, "failing.test", "# explain: VectorAggregate\n# error: 1690 out of range\nstatement error\nSELECT 1\n")
	if s, err := conformance.ParseScript(failing); err != nil || len(s.Explains[4]) != 1 || s.Errors[4].Code != 1690 {
		t.Errorf("explain before a statement error: %+v, %v", s, err)
	}
	for name, text := range map[string]string{
		"on a statement":      "# explain: X\nstatement ok\nSELECT 1\n",
		"exact with an error": "# error: 1146 x\n# exact\nstatement error\nSELECT 1\n",
		"empty":               "# explain:\nquery I\nSELECT 1\n----\n1\n",
		"at end":              "statement ok\nSELECT 1\n\n# explain: X\n",
	} {
		if _, err := conformance.ParseScript(writeFile(t, "bad.test", text)); err == nil {
			t.Errorf("%s: ParseScript accepted %q", name, text)
		}
	}
}

// planHarness answers EXPLAIN with a fixed plan and every other query with
// one row.
type planHarness struct{ plan []string }

func (p planHarness) Exec(context.Context, string) error { return nil }
func (p planHarness) Query(_ context.Context, q string) (string, []*string, error) {
	if strings.HasPrefix(q, "EXPLAIN FORMAT=TREE ") {
		vals := make([]*string, len(p.plan))
		for i := range p.plan {
			vals[i] = &p.plan[i]
		}
		return "T", vals, nil
	}
	one := "1"
	return "I", []*string{&one}, nil
}

// TestRunScriptExplain: a record passes only when its plan has every
// fragment it names and none it names with "!".
func TestRunScriptExplain(t *testing.T) {
	path := writeFile(t, "plan.test", "# explain: VectorAggregate\n# explain: !StatsAnswer\nquery I nosort\nSELECT 1\n----\n1\n")
	s, err := conformance.ParseScript(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		plan    []string
		problem string
	}{
		{[]string{"Project", " └─ VectorAggregate(t)"}, ""},
		{[]string{"Project", " └─ GroupBy"}, `lacks "VectorAggregate"`},
		{[]string{"VectorAggregate(t)", "StatsAnswer(t)"}, `has "StatsAnswer"`},
	} {
		out := conformance.RunScript(ctx, s, planHarness{c.plan})
		if len(out) != 1 || !strings.Contains(out[0].Problem, c.problem) || (c.problem == "") != (out[0].Problem == "") {
			t.Errorf("plan %q: outcomes %+v, want problem %q", c.plan, out, c.problem)
		}
	}
}

// TestRunScriptExplainFailing: the plan of a statement error record is
// checked before the statement runs.
func TestRunScriptExplainFailing(t *testing.T) {
	s, err := conformance.ParseScript(writeFile(t, "failing.test", "# explain: VectorAggregate\n# error: 1690 x\nstatement error\nSELECT 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		plan    []string
		problem string
	}{
		{[]string{"GroupBy"}, `lacks "VectorAggregate"`},
		{[]string{"VectorAggregate(t)"}, "expected an error"}, // the harness runs everything
	} {
		out := conformance.RunScript(ctx, s, planHarness{c.plan})
		if len(out) != 1 || !strings.Contains(out[0].Problem, c.problem) {
			t.Errorf("plan %q: outcomes %+v, want problem %q", c.plan, out, c.problem)
		}
	}
}

// decimalHarness answers every query with one DECIMAL-like R value.
type decimalHarness struct{ v string }

func (d decimalHarness) Exec(context.Context, string) error { return nil }
func (d decimalHarness) Query(context.Context, string) (string, []*string, error) {
	return "R", []*string{&d.v}, nil
}

// TestRunScriptExact: "# exact" (alone or among "# explain:" lines) makes
// a query's R values compare as returned, so a DECIMAL's scale and digits
// beyond the third count; it is refused away from a query record.
func TestRunScriptExact(t *testing.T) {
	path := writeFile(t, "exact.test", "# exact\nquery R nosort\nSELECT 1\n----\n1.50\n\nquery R nosort\nSELECT 2\n----\n1.500\n")
	s, err := conformance.ParseScript(path)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Exact[3] || s.Exact[8] {
		t.Fatalf("exact marks %v, want line 3 only", s.Exact)
	}
	ctx := context.Background()
	for _, c := range []struct {
		v        string
		problems [2]bool // exact record, rounded record
	}{
		{"1.50", [2]bool{false, false}},
		{"1.500", [2]bool{true, false}},
		{"1.5000001", [2]bool{true, false}},
	} {
		out := conformance.RunScript(ctx, s, decimalHarness{c.v})
		for i := range out {
			if (out[i].Problem != "") != c.problems[i] {
				t.Errorf("value %s, record %d: problem %q, want a problem: %t", c.v, i, out[i].Problem, c.problems[i])
			}
		}
	}
	for name, text := range map[string]string{
		"on a statement": "# exact\nstatement ok\nSELECT 1\n",
		"at end":         "statement ok\nSELECT 1\n\n# exact\n",
	} {
		if _, err := conformance.ParseScript(writeFile(t, "bad.test", text)); err == nil {
			t.Errorf("%s: ParseScript accepted %q", name, text)
		}
	}
	mixed := writeFile(t, "mixed.test", "# explain: VectorAggregate\n# exact\nquery R nosort\nSELECT 1\n----\n1.50\n")
	if s, err := conformance.ParseScript(mixed); err != nil || !s.Exact[4] || len(s.Explains[4]) != 1 {
		t.Errorf("explain and exact together: %+v, %v", s, err)
	}
}
