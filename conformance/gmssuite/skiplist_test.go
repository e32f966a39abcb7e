package gmssuite

import (
	"strings"
	"testing"
)

// A run as -test.v=test2json prints it: framing lines start with ^V.
const sampleRun = "\x16=== RUN   TestSuites\n" +
	"\x16=== RUN   TestSuites/TestQueries\n" +
	"\x16=== RUN   TestSuites/TestQueries/SELECT_SUM(i)\n" +
	"    evaluation.go:1: \n" +
	"        \tError Trace:\tx.go:1\n" +
	"        \tError:      \tNot equal: \n" +
	"        \t            \texpected: []sql.Row{sql.Row{6}}\n" +
	"        \t            \tactual  : []sql.Row{sql.Row{\"6\"}}\n" +
	"        \tTest:       \tTestSuites/TestQueries/SELECT_SUM(i)\n" +
	"\x16--- FAIL: TestSuites/TestQueries/SELECT_SUM(i) (0.00s)\n" +
	"\x16=== RUN   TestSuites/TestQueries/SELECT_1\n" +
	"\x16--- PASS: TestSuites/TestQueries/SELECT_1 (0.00s)\n" +
	"\x16=== RUN   TestSuites/TestQueries/t\n" +
	"\x16=== RUN   TestSuites/TestQueries/t/INSERT_INTO_t_VALUES_(1)\n" +
	"    evaluation.go:2: \n" +
	"        \tError:      \tReceived unexpected error:\n" +
	"        \t            \ttable not found: t\n" +
	"        \t            \t\n" +
	"\x16--- FAIL: TestSuites/TestQueries/t/INSERT_INTO_t_VALUES_(1) (0.00s)\n" +
	"\x16--- FAIL: TestSuites/TestQueries/t (0.00s)\n" +
	"\x16--- FAIL: TestSuites/TestQueries (0.00s)\n" +
	"\x16--- FAIL: TestSuites (0.00s)\n"

func TestParseRun(t *testing.T) {
	cases, err := ParseRun(strings.NewReader(sampleRun))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.Name+" "+c.Outcome+" "+FirstDifference(c.Output))
	}
	want := []string{
		`TestSuites/TestQueries/SELECT_SUM(i) fail expected []sql.Row{sql.Row{6}}, got []sql.Row{sql.Row{"6"}}`,
		`TestSuites/TestQueries/SELECT_1 pass `,
		`TestSuites/TestQueries/t/INSERT_INTO_t_VALUES_(1) fail table not found: t`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSameNumbers(t *testing.T) {
	for _, tc := range []struct {
		diff             string
		decimal, integer bool
	}{
		{`expected []sql.Row{sql.Row{1, 4}}, got []sql.Row{sql.Row{1, "4"}}`, true, false},
		{`expected []sql.Row{sql.Row{3, 9}}, got []sql.Row{sql.Row{3, "9.0000"}}`, true, false},
		{`expected []sql.Row{sql.Row{3, 9}}, got []sql.Row{sql.Row{3, "9.5000"}}`, false, false},             // another value
		{`expected []sql.Row{sql.Row{"6"}}, got []sql.Row{sql.Row{"6.000"}}`, false, false},                  // a scale, not a type
		{`expected []sql.Row{sql.Row{1, 4}}, got []sql.Row{sql.Row{1, "4"}, sql.Row{2, "4"}}`, false, false}, // another row
		{`expected []sql.Row{sql.Row{"1"}}, got []sql.Row{sql.Row{1}}`, false, true},
		{`rows differ: extra elements in list A: ([]interface {}) (len=2) { (sql.Row) (len=1) { (float64) 2 }, (sql.Row) (len=1) { (float64) 3 } } ` +
			`extra elements in list B: ([]interface {}) (len=2) { (sql.Row) (len=1) { (string) (len=6) "3.0000" }, (sql.Row) (len=1) { (string) (len=6) "2.0000" } } ` +
			`listA: …`, true, false},
	} {
		if got := sameNumbers(tc.diff, true); got != tc.decimal {
			t.Errorf("=decimal %s: %v", tc.diff, got)
		}
		if got := sameNumbers(tc.diff, false); got != tc.integer {
			t.Errorf("=integer %s: %v", tc.diff, got)
		}
	}
}

func TestSkipList(t *testing.T) {
	l, err := ParseSkipList(strings.NewReader("# c\n[types] why\n\tSUM\t=decimal\n\t*\t^table not found: t$\n[other] why not\n\tnever\t*\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := ParseRun(strings.NewReader(sampleRun))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r := l.Explain(c)
		if c.Outcome == "fail" && (r == nil || r.ID != "types") {
			t.Errorf("%s: explained by %v", c.Name, r)
		}
	}
	if u := l.Unused(); len(u) != 1 || u[0].Line != 6 {
		t.Errorf("unused: %v", u)
	}
	for _, bad := range []string{"\tx\ty\n", "[a] why\n", "[a] why\n\tno tab\n", "[a] why\n\t(\t*\n", "[a] why\nunindented\n"} {
		if _, err := ParseSkipList(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestFinished(t *testing.T) {
	for raw, want := range map[string]bool{
		sampleRun + "\x16FAIL\n": true,
		sampleRun + "\x16PASS\n": true,
		sampleRun:                false, // killed
		"\x16=== RUN   TestSuites\npanic: boom\n\x16--- FAIL: TestSuites (0.00s)\n\x16FAIL\n": false,
	} {
		if got := Finished([]byte(raw)); got != want {
			t.Errorf("Finished(…%q) = %v", raw[max(0, len(raw)-40):], got)
		}
	}
}
