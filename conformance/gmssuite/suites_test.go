package gmssuite

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	gmsenginetest "github.com/dolthub/go-mysql-server/enginetest"
)

// suites are the GMS suites run against lakesql, by GMS's names.
var suites = []struct {
	name string
	run  func(*testing.T, gmsenginetest.Harness)
}{
	{"TestQueries", gmsenginetest.TestQueries},
	{"TestJoinQueries", gmsenginetest.TestJoinQueries},
	{"TestInsertInto", gmsenginetest.TestInsertInto},
	{"TestUpdate", gmsenginetest.TestUpdate},
	{"TestDelete", gmsenginetest.TestDelete},
	{"TestScripts", gmsenginetest.TestScripts},
	{"TestColumnDefaults", gmsenginetest.TestColumnDefaults},
}

// childEnv makes the test binary run the suites themselves, as GMS does,
// instead of judging a child's run of them.
const childEnv = "LAKESQL_GMSSUITE_CHILD"

const skipListFile = "testdata/skiplist.txt"

// TestSuites runs each suite in a child process and judges its cases
// against the skip list: every failure must be explained, and (when every
// suite ran) every match line of the list must explain one. Run one suite
// with -run 'TestSuites/TestQueries'; -v prints the counts.
func TestSuites(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		for _, s := range suites {
			t.Run(s.name, func(t *testing.T) { s.run(t, newHarness(t)) })
		}
		return
	}
	f, err := os.Open(skipListFile)
	if err != nil {
		t.Fatal(err)
	}
	list, err := ParseSkipList(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) {
			ran++
			judge(t, s.name, runChild(t, s.name), list)
		})
	}
	if ran < len(suites) {
		return
	}
	for _, m := range list.Unused() {
		t.Errorf("%s:%d explains no failure (its cases pass or differ in another way now): %s\t%s", skipListFile, m.Line, m.Case, m.Diff)
	}
}

// runChild runs one suite in a child process and returns its cases, named
// from the suite down (TestQueries/SELECT_1).
func runChild(t *testing.T, suite string) []Case {
	args := []string{"-test.run=^TestSuites$/^" + regexp.QuoteMeta(suite) + "$", "-test.v=test2json", "-test.count=1"}
	if d, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(d).Truncate(time.Second).String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run() // a failing case fails the child: judged below
	cases, err := ParseRun(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("reading the %s run: %v", suite, err)
	}
	if len(cases) == 0 || !Finished(out.Bytes()) {
		t.Fatalf("the %s run did not finish (%v):\n%s", suite, runErr, tail(out.String()))
	}
	for i := range cases {
		cases[i].Name = strings.TrimPrefix(cases[i].Name, "TestSuites/")
		if cases[i].Outcome == "" {
			t.Errorf("%s did not finish (%v):\n%s", cases[i].Name, runErr, tail(out.String()))
		}
	}
	return cases
}

// judge reports a suite's counts and fails for each failure the skip list
// does not explain.
func judge(t *testing.T, suite string, cases []Case, list *SkipList) {
	count := map[string]int{}
	byReason := map[string]int{}
	for _, c := range cases {
		count[c.Outcome]++
		if c.Outcome != "fail" {
			continue
		}
		if r := list.Explain(c); r != nil {
			byReason[r.ID]++
			continue
		}
		t.Errorf("%s: not in %s: %s", c.Name, skipListFile, Short(FirstDifference(c.Output)))
	}
	var ids []string
	for id, n := range byReason {
		ids = append(ids, fmt.Sprintf("%s %d", id, n))
	}
	sort.Strings(ids)
	t.Logf("%s: %d cases: %d pass, %d fail, %d skipped by GMS; explained: %s",
		suite, len(cases), count["pass"], count["fail"], count["skip"], strings.Join(ids, ", "))
}

// tail is the end of a child's output, for a crash report.
func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}
