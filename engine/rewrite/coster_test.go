package rewrite_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// starTables creates TPC-H Q05's schema at a small, skewed scale:
// lineitem li (12,000 rows in three files) over orders od (3,000, seven
// years of dates), customers cu (300), suppliers su (20), nations na
// (25) and regions re (5).
func starTables(t *testing.T) *engine.Conn {
	t.Helper()
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	exec := func(q string) {
		t.Helper()
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE re (rk INT, rname VARCHAR(10))",
		"CREATE TABLE na (nk INT, nrk INT, nname VARCHAR(10))",
		"CREATE TABLE cu (ck INT, cnk INT)",
		"CREATE TABLE su (sk INT, snk INT)",
		"CREATE TABLE od (ok INT, ock INT, odate DATE)",
		"CREATE TABLE li (lok INT, lsk INT, price DECIMAL(10,2))",
	} {
		exec(q)
	}
	insert := func(table string, n int, row func(i int) string) {
		t.Helper()
		vals := make([]string, n)
		for i := range vals {
			vals[i] = row(i)
		}
		exec("INSERT INTO " + table + " VALUES " + strings.Join(vals, ", "))
	}
	rng := rand.New(rand.NewSource(5))
	key := func(n int) string { // 1..n, NULL one time in 50
		if rng.Intn(50) == 0 {
			return "NULL"
		}
		return fmt.Sprint(1 + rng.Intn(n))
	}
	regions := []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDEAST"}
	insert("re", 5, func(i int) string { return fmt.Sprintf("(%d, '%s')", i, regions[i]) })
	insert("na", 25, func(i int) string { return fmt.Sprintf("(%d, %d, 'n%02d')", i, i%5, i) })
	insert("cu", 300, func(i int) string { return fmt.Sprintf("(%d, %d)", i+1, rng.Intn(25)) })
	insert("su", 20, func(i int) string { return fmt.Sprintf("(%d, %d)", i+1, rng.Intn(25)) })
	insert("od", 3000, func(i int) string {
		return fmt.Sprintf("(%d, %s, DATE '1992-01-01' + INTERVAL %d DAY)", i+1, key(300), rng.Intn(2555))
	})
	for f := 0; f < 3; f++ {
		insert("li", 4000, func(i int) string {
			return fmt.Sprintf("(%s, %s, %d.%02d)", key(3000), key(20), rng.Intn(1000), rng.Intn(100))
		})
	}
	return conn
}

const q05 = "SELECT na.nname, SUM(li.price) FROM cu, od, li, su, na, re WHERE cu.ck = od.ock AND li.lok = od.ok AND li.lsk = su.sk AND cu.cnk = su.snk AND su.snk = na.nk AND na.nrk = re.rk AND re.rname = 'ASIA' AND od.odate >= DATE '1994-01-01' AND od.odate < DATE '1995-01-01' GROUP BY na.nname"

// q05Rows is q05's join without the aggregate: the rows it groups.
var q05Rows = strings.Replace(strings.Replace(q05, "SUM(li.price)", "li.price", 1), " GROUP BY na.nname", "", 1)

// planTables lists, in plan order, the tables a plan scans and, of those,
// the ones under a HashLookup (the build sides of hash joins).
func planTables(plan string) (scans, built []string) {
	buildDepth := -1
	for _, line := range strings.Split(plan, "\n") {
		depth := len(line) - len(strings.TrimLeft(line, " "))
		if buildDepth >= 0 && depth <= buildDepth {
			buildDepth = -1
		}
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "-> HashLookup") && buildDepth < 0:
			buildDepth = depth
		case strings.HasPrefix(line, "-> Table scan on d."):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "-> Table scan on d."), " ")
			scans = append(scans, name)
			if buildDepth >= 0 {
				built = append(built, name)
			}
		}
	}
	return scans, built
}

func setCoster(t *testing.T, conn *engine.Conn, on bool) {
	t.Helper()
	v := 0
	if on {
		v = 1
	}
	if err := conn.Exec(context.Background(), fmt.Sprintf("SET lakesql_stats_coster = %d", v)); err != nil {
		t.Fatal(err)
	}
}

// TestCoster_JoinOrder: with the manifests' statistics the planner
// probes with the large table and builds hash tables from the small (or
// filtered-small) ones, whatever order the query names the tables in;
// every plan answers as GMS's own plan does.
func TestCoster_JoinOrder(t *testing.T) {
	conn := starTables(t)
	for _, c := range []struct {
		name  string
		qs    []string // the same query, tables named in different orders
		probe string   // the table scanned first: the outermost probe side
		built []string // the build sides, in plan order (nil: not checked)
		never string   // a table that must not be a build side
	}{
		// TPC-H Q05's joins: lineitem probes; the filtered orders and
		// the customer-supplier-nation-region chain (through the
		// c_nationkey = s_nationkey cycle) are built. (Rows: the
		// aggregate itself runs as a VectorJoinAggregate, which probes
		// the largest table whatever GMS's order.)
		{"Q05", []string{q05Rows,
			strings.Replace(q05Rows, "FROM cu, od, li, su, na, re", "FROM re, na, su, li, od, cu", 1),
			strings.Replace(q05Rows, "FROM cu, od, li, su, na, re", "FROM li, cu, re, od, na, su", 1)},
			"li", nil, "li"},
		// A fact table and a dimension: the dimension is built. (Rows,
		// not an aggregate: VectorJoinAggregate picks its own sides.)
		{"fact-dimension", []string{
			"SELECT su.snk, li.price FROM li JOIN su ON li.lsk = su.sk",
			"SELECT su.snk, li.price FROM su JOIN li ON li.lsk = su.sk"},
			"li", []string{"su"}, ""},
		// A range over the larger table's dates leaves it the smaller
		// side: it is built, and the customers probe.
		{"range makes the larger side small", []string{
			"SELECT cu.cnk, od.ok FROM cu JOIN od ON cu.ck = od.ock WHERE od.odate < DATE '1992-01-20'",
			"SELECT cu.cnk, od.ok FROM od JOIN cu ON cu.ck = od.ock WHERE od.odate < DATE '1992-01-20'"},
			"cu", []string{"od"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want string
			for _, q := range c.qs {
				setCoster(t, conn, true)
				plan := enginetest.Explain(t, conn, q)
				scans, built := planTables(plan)
				if len(scans) == 0 || scans[0] != c.probe {
					t.Errorf("%s: first scan %v, want %s\n%s", q, scans, c.probe, plan)
				}
				if c.built != nil && strings.Join(built, ",") != strings.Join(c.built, ",") {
					t.Errorf("%s: build sides %v, want %v\n%s", q, built, c.built, plan)
				}
				for _, b := range built {
					if b == c.never {
						t.Errorf("%s: %s is a build side\n%s", q, b, plan)
					}
				}
				if !strings.Contains(plan, "HashJoin") || !strings.Contains(plan, "(estimated rows=") {
					t.Errorf("%s: want hash joins with row estimates:\n%s", q, plan)
				}
				got := enginetest.Typed(t, conn, q, false)
				setCoster(t, conn, false)
				gms := enginetest.Typed(t, conn, q, false)
				if got != gms || got == "" {
					t.Errorf("%s:\nwith statistics:\n%s\nGMS's plan:\n%s", q, got, gms)
				}
				if want == "" {
					want = got
				} else if got != want {
					t.Errorf("%s: answers differ between table orders:\n%s\n%s", q, got, want)
				}
			}
		})
	}
}

// TestCoster_AnalyzeFeedsEstimates: until ANALYZE TABLE an integer join
// key's distinct count is bounded only by its range (and the rows), so
// sparse keys look unique: 1000 x 100 / 1000 rows. After it, the
// estimate uses the sketches' counts (10 and 100 values: 1000 x 100 /
// 100 rows, the true size).
func TestCoster_AnalyzeFeedsEstimates(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE a (s INT, v INT)",
		"CREATE TABLE b (s INT, w INT)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var av, bv []string
	for i := 0; i < 1000; i++ {
		av = append(av, fmt.Sprintf("(%d, %d)", 1000*(i%10), i))
	}
	for i := 0; i < 100; i++ {
		bv = append(bv, fmt.Sprintf("(%d, %d)", 100*i, i))
	}
	for _, q := range []string{"INSERT INTO a VALUES " + strings.Join(av, ", "), "INSERT INTO b VALUES " + strings.Join(bv, ", ")} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const q = "SELECT a.v, b.w FROM a JOIN b ON a.s = b.s"
	join := func() string {
		for _, line := range strings.Split(enginetest.Explain(t, conn, q), "\n") {
			if strings.Contains(line, "HashJoin") {
				_, est, _ := strings.Cut(line, "(estimated ")
				return est
			}
		}
		t.Fatalf("no hash join:\n%s", enginetest.Explain(t, conn, q))
		return ""
	}
	if got := join(); got != "rows=100)" {
		t.Errorf("before ANALYZE: estimated %s, want rows=100)", got)
	}
	for _, tbl := range []string{"a", "b"} {
		if err := conn.Exec(ctx, "ANALYZE TABLE "+tbl); err != nil {
			t.Fatal(err)
		}
	}
	if got := join(); got != "rows=1000)" {
		t.Errorf("after ANALYZE: estimated %s, want rows=1000)", got)
	}
	if got := enginetest.Render(t, conn, "SELECT COUNT(*) FROM a JOIN b ON a.s = b.s"); got != "1000" {
		t.Errorf("the join has %s rows, want 1000", got)
	}
}
