package engine_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	gsql "github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
	"github.com/lakesql/lakesql/mysqlfix"
)

// explainSetup makes tables whose pruning is known:
//   - p, partitioned by region, four files: eu ids 1-3, us 4-6, ap 7-9
//     and eu again 100-102 (sorted, disjoint id ranges);
//   - s, four files of 30 rows whose column s holds 'a', 'z' and the
//     file's own 'm<f>': bounds keep every file for 'm2', the
//     dictionaries rule out three row groups;
//   - g, one file of 12,000 rows sorted by k, a few pages each column.
func explainSetup() []string {
	q := []string{
		"CREATE DATABASE x", "USE x",
		"CREATE TABLE p (id BIGINT, region VARCHAR(10), amount DOUBLE) PARTITIONED BY (region)",
		"INSERT INTO p VALUES (1, 'eu', 1.5), (2, 'eu', 2.5), (3, 'eu', 3.5)",
		"INSERT INTO p VALUES (4, 'us', 4.5), (5, 'us', 5.5), (6, 'us', 6.5)",
		"INSERT INTO p VALUES (7, 'ap', 7.5), (8, 'ap', 8.5), (9, 'ap', 9.5)",
		"INSERT INTO p VALUES (100, 'eu', 1), (101, 'eu', 1), (102, 'eu', 1)",
		"CREATE TABLE s (k BIGINT, s VARCHAR(10))",
		"CREATE TABLE g (k BIGINT, v BIGINT)",
	}
	for f := 0; f < 4; f++ {
		vals := make([]string, 30)
		for r := range vals {
			vals[r] = fmt.Sprintf("(%d, '%s')", f*30+r, []string{"a", "z", fmt.Sprintf("m%d", f)}[r%3])
		}
		q = append(q, "INSERT INTO s VALUES "+strings.Join(vals, ", "))
	}
	vals := make([]string, 12_000)
	for r := range vals {
		vals[r] = fmt.Sprintf("(%d, %d)", r, r%7)
	}
	return append(q, "INSERT INTO g VALUES "+strings.Join(vals, ", "))
}

// scanCounts are the numbers of one scan's lines in EXPLAIN ANALYZE.
type scanCounts struct {
	path                                    string
	files, partPruned, boundsPruned         int
	rowGroups, rgBoundsPruned, rgDictPruned int
	rowsRead, rowsPageSkipped               int
}

var (
	scanLine1 = regexp.MustCompile(`scan x\.(\w+) \(([a-z ]+)\): files: (\d+), pruned (\d+) by partition, (\d+) by bounds, (\d+) read, (\d+) from cache`)
	scanLine2 = regexp.MustCompile(`row groups: (\d+), pruned (\d+) by bounds, (\d+) by dictionary; rows: (\d+) read, (\d+) skipped by page index`)
	scanLine3 = regexp.MustCompile(`bytes read: [\d.]+ (?:[KMG]i)?B; time: [\d.]+ms; peak memory: [\d.]+ (?:[KMG]i)?B; runs: 1`)
	topLine   = regexp.MustCompile(`^-> .*\(actual time=[\d.]+ms rows=(\d+) loops=1\)$`)
)

// parseScan finds the one scan of an EXPLAIN ANALYZE output.
func parseScan(t *testing.T, lines []string) scanCounts {
	t.Helper()
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for i, l := range lines {
		m := scanLine1.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if i+2 >= len(lines) {
			t.Fatalf("scan line without its details:\n%s", strings.Join(lines, "\n"))
		}
		m2 := scanLine2.FindStringSubmatch(lines[i+1])
		if m2 == nil || !scanLine3.MatchString(lines[i+2]) {
			t.Fatalf("scan details do not parse:\n%s", strings.Join(lines, "\n"))
		}
		return scanCounts{
			path: m[2], files: atoi(m[3]), partPruned: atoi(m[4]), boundsPruned: atoi(m[5]),
			rowGroups: atoi(m2[1]), rgBoundsPruned: atoi(m2[2]), rgDictPruned: atoi(m2[3]),
			rowsRead: atoi(m2[4]), rowsPageSkipped: atoi(m2[5]),
		}
	}
	t.Fatalf("no scan line:\n%s", strings.Join(lines, "\n"))
	return scanCounts{}
}

// TestExplainAnalyze_CountsPruning: EXPLAIN ANALYZE reports, per scan,
// the files the partition values and the manifest bounds pruned, the row
// groups footer stats and dictionaries pruned, the rows the page index
// skipped and the rows read, which path ran, and per operator the rows
// returned, embedded and over the wire alike. Page pruning is checked as
// a split of the file's 12,000 rows (how many a page holds is the
// writer's choice).
func TestExplainAnalyze_CountsPruning(t *testing.T) {
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range explainSetup() {
		if err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	h, _ := serve(t, e, "x")
	cases := []struct {
		name, query string
		rows        int // the statement's result rows (the top operator's)
		want        scanCounts
	}{
		{"partition, vectorised", "SELECT region, SUM(amount) FROM x.p WHERE region = 'eu' GROUP BY region", 1,
			scanCounts{path: "vectorised", files: 4, partPruned: 2, rowGroups: 2, rowsRead: 6}},
		{"bounds, row path", "SELECT id FROM x.p WHERE id >= 100", 3,
			scanCounts{path: "row path", files: 4, boundsPruned: 3, rowGroups: 1, rowsRead: 3}},
		{"partition and bounds", "SELECT id, amount FROM x.p WHERE region = 'eu' AND id < 50", 3,
			scanCounts{path: "row path", files: 4, partPruned: 2, boundsPruned: 1, rowGroups: 1, rowsRead: 3}},
		{"dictionary", "SELECT k FROM x.s WHERE s = 'm2'", 10,
			scanCounts{path: "row path", files: 4, rowGroups: 4, rgDictPruned: 3, rowsRead: 30}},
		{"dictionary, vectorised", "SELECT COUNT(*) FROM x.s WHERE s = 'm2'", 1,
			scanCounts{path: "vectorised", files: 4, rowGroups: 4, rgDictPruned: 3, rowsRead: 30}},
	}
	for _, side := range []struct {
		name string
		run  runner
	}{{"embedded", embedded(t, e)}, {"wire", wire(t, h)}} {
		for _, c := range cases {
			t.Run(side.name+"/"+c.name, func(t *testing.T) {
				lines, err := side.run("EXPLAIN ANALYZE " + c.query)
				if err != nil {
					t.Fatal(err)
				}
				if got := parseScan(t, lines); got != c.want {
					t.Errorf("%s:\ngot  %+v\nwant %+v\n%s", c.query, got, c.want, strings.Join(lines, "\n"))
				}
				m := topLine.FindStringSubmatch(lines[0])
				if m == nil || m[1] != strconv.Itoa(c.rows) {
					t.Errorf("top operator: want rows=%d loops=1:\n%s", c.rows, strings.Join(lines, "\n"))
				}
			})
		}
		t.Run(side.name+"/top-N", func(t *testing.T) {
			// How many files the top-N skips depends on how many its
			// workers open before the first rows are found: check that
			// each file is either skipped by its bounds or opened, and
			// each opened file's one row group is either skipped by the
			// top-N's bound by then or read whole (3 rows).
			lines, err := side.run("EXPLAIN ANALYZE SELECT id FROM x.p ORDER BY id DESC LIMIT 2")
			if err != nil {
				t.Fatal(err)
			}
			got := parseScan(t, lines)
			read := got.rowGroups // one row group a file
			if got.path != "vectorised" || got.files != 4 || got.boundsPruned+read != 4 || got.rowsRead != 3*(read-got.rgBoundsPruned) || read == 0 {
				t.Errorf("want 4 files, each skipped by bounds or opened, each opened row group skipped by bounds or read whole (3 rows):%+v\n%s", got, strings.Join(lines, "\n"))
			}
		})
		t.Run(side.name+"/page index", func(t *testing.T) {
			lines, err := side.run("EXPLAIN ANALYZE SELECT v FROM x.g WHERE k = 4321")
			if err != nil {
				t.Fatal(err)
			}
			got := parseScan(t, lines)
			if got.rowGroups != 1 || got.rowsPageSkipped == 0 || got.rowsRead+got.rowsPageSkipped != 12_000 {
				t.Errorf("want one row group whose 12,000 rows split into read and skipped, some skipped: %+v\n%s", got, strings.Join(lines, "\n"))
			}
		})
	}
}

// TestExplain_Tree: EXPLAIN FORMAT=TREE shows MySQL's tree in one
// EXPLAIN column with the planner's row estimates and the file pruning
// planned from the manifest, runs nothing (no measurements), and marks
// vectorised operators.
func TestExplain_Tree(t *testing.T) {
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range explainSetup() {
		if err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	h, _ := serve(t, e, "x")
	cases := []struct{ query, want string }{
		{"SELECT id FROM x.p WHERE region = 'eu' AND id < 50",
			"-> Project: p.id\n" +
				"    -> Filter: ((p.region = 'eu') AND (p.id < 50))  (estimated rows=1)\n" +
				"        -> Table scan on x.p  (estimated rows=12)\n" +
				"            scan x.p: files: 4, pruned 2 by partition, 1 by bounds (row groups, dictionaries and pages are pruned as it runs)"},
		{"SELECT region, COUNT(*) FROM x.p GROUP BY region",
			"-> Project: p.region, count(1) as COUNT(*)\n" +
				"    -> VectorAggregate(x.p) [vectorised]\n" +
				"        scan x.p: files: 4, pruned 0 by partition, 0 by bounds (row groups, dictionaries and pages are pruned as it runs)"},
	}
	for _, side := range []struct {
		name string
		run  runner
	}{{"embedded", embedded(t, e)}, {"wire", wire(t, h)}} {
		for _, c := range cases {
			lines, err := side.run("EXPLAIN FORMAT=TREE " + c.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(lines, "\n"); got != c.want {
				t.Errorf("%s: %s:\ngot\n%s\nwant\n%s", side.name, c.query, got, c.want)
			}
		}
	}
	r, err := conn.QueryOne(context.Background(), "EXPLAIN FORMAT=TREE SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Schema) != 1 || r.Schema[0].Name != "EXPLAIN" {
		t.Errorf("schema: %v, want one column EXPLAIN", r.Schema)
	}
}

// TestExplainAnalyze_RefusesWrites: EXPLAIN ANALYZE runs its statement,
// so one that changes data is refused and changes nothing: INSERT,
// UPDATE and DELETE by the grammar (ER_PARSE_ERROR, embedded and over the
// wire), and by the session's Explain itself should one reach it
// (ER_NOT_SUPPORTED_YET).
func TestExplainAnalyze_RefusesWrites(t *testing.T) {
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range explainSetup()[:4] {
		if err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	h, _ := serve(t, e, "x")
	writes := []string{"INSERT INTO x.p VALUES (50, 'eu', 1)", "DELETE FROM x.p WHERE id = 1", "UPDATE x.p SET amount = 0"}
	for _, side := range []struct {
		name string
		run  runner
	}{{"embedded", embedded(t, e)}, {"wire", wire(t, h)}} {
		for _, q := range writes {
			_, err := side.run("EXPLAIN ANALYZE " + q)
			if code, msg := errCode(err); code != 1064 || !strings.Contains(msg, "syntax error") {
				t.Errorf("%s: EXPLAIN ANALYZE %s: got %d %q, want 1064", side.name, q, code, msg)
			}
		}
	}
	sctx := gsql.NewContext(context.Background(), gsql.WithSession(conn.Session()))
	for _, q := range writes {
		_, err := conn.Session().Explain(sctx, q, true)
		if se := engine.SQLError(err); se == nil || se.Num != 1235 || !strings.Contains(se.Message, mysqlfix.ErrExplainWrites.Error()) {
			t.Errorf("Explain(%s): %v, want ErrExplainWrites as 1235", q, err)
		}
	}
	if got := enginetest.Render(t, conn, "SELECT COUNT(*), SUM(amount) FROM x.p"); got != "3|7.5" {
		t.Errorf("after refused statements: %s, want 3|7.5", got)
	}
}

// TestExplainAnalyze_Subquery: a correlated subquery's plan shows under
// the operator whose expression holds it, unmeasured per operator (it is
// built inside the expression), with its scan counting every run: once
// per outer row (s's 4 files, 3 times).
func TestExplainAnalyze_Subquery(t *testing.T) {
	e := enginetest.Open(t)
	conn := e.Connect("root")
	setup := explainSetup()
	for _, q := range setup[:len(setup)-1] { // all but g
		if err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	lines, err := embedded(t, e)("EXPLAIN ANALYZE SELECT id, (SELECT COUNT(*) FROM x.s WHERE s.k = p.id) FROM x.p WHERE region = 'us'")
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Join(lines, "\n")
	sub := strings.Index(out, "-> Select (subquery in an expression): select COUNT(*) from x.s")
	scan := strings.Index(out, "scan x.s (row path): files: 12")
	if sub < 0 || scan < sub || !strings.Contains(out[scan:], "runs: 3") || strings.Contains(out[sub:], "never executed") {
		t.Errorf("want the subquery's plan, unmeasured, its scan run 3 times:\n%s", out)
	}
	if m := topLine.FindStringSubmatch(lines[0]); m == nil || m[1] != "3" {
		t.Errorf("top operator: want rows=3:\n%s", out)
	}
}
