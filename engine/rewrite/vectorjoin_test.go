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

// joinTables creates a fact table f (several data files) and dimension
// tables d (duplicate and NULL keys, two files) and e (empty), with
// negative numbers, DECIMALs, DOUBLEs (exact in binary, so sums do not
// depend on the order of addition) and dates.
func joinTables(t *testing.T) *engine.Conn {
	t.Helper()
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE f (k INT, k2 BIGINT, g VARCHAR(20), v DECIMAL(12,2), x DOUBLE, i INT, dt DATE, ti TINYINT)",
		"CREATE TABLE d (dk BIGINT, dk2 INT, name VARCHAR(20), w DECIMAL(10,3), y DOUBLE, n INT, vs VARCHAR(10), day DATE)",
		"CREATE TABLE e (dk BIGINT, name VARCHAR(10))",
		"CREATE TABLE ci (dk BIGINT, name VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)",
		"INSERT INTO ci VALUES (1, 'a'), (2, 'A'), (3, 'b')",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(3))
	maybe := func(v string) string {
		if rng.Intn(7) == 0 {
			return "NULL"
		}
		return v
	}
	groups := []string{"'a'", "'b'", "''", "NULL", "'a longer one'"}
	for file := 0; file < 5; file++ {
		var vals []string
		for r := 0; r < 50+file*11; r++ {
			vals = append(vals, fmt.Sprintf("(%s, %s, %s, %s, %s, %s, %s, %s)",
				maybe(fmt.Sprint(rng.Intn(16)-3)),
				maybe(fmt.Sprint(rng.Intn(3))),
				groups[rng.Intn(len(groups))],
				maybe(fmt.Sprintf("%d.%02d", rng.Intn(2000)-1000, rng.Intn(100))),
				maybe(fmt.Sprint(float64(rng.Intn(4000)-2000)/4)),
				maybe(fmt.Sprint(rng.Intn(41)-20)),
				maybe(fmt.Sprintf("'%04d-%02d-%02d'", 1990+rng.Intn(10), 1+rng.Intn(12), 1+rng.Intn(28))),
				maybe(fmt.Sprint(rng.Intn(256)-128)),
			))
		}
		if err := conn.Exec(ctx, "INSERT INTO f VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"'x'", "'y'", "'a longer name'", "NULL"}
	for file := 0; file < 2; file++ {
		var vals []string
		for r := 0; r < 12; r++ {
			dk := maybe(fmt.Sprint(rng.Intn(12) - 3)) // duplicates, NULLs, keys f lacks
			vals = append(vals, fmt.Sprintf("(%s, %s, %s, %s, %s, %s, %s, %s)",
				dk,
				maybe(fmt.Sprint(rng.Intn(3))),
				names[rng.Intn(len(names))],
				maybe(fmt.Sprintf("%d.%03d", rng.Intn(200)-100, rng.Intn(1000))),
				maybe(fmt.Sprint(float64(rng.Intn(400)-200)/8)),
				maybe(fmt.Sprint(rng.Intn(20)-5)),
				maybe(fmt.Sprintf("'%d'", rng.Intn(10))),
				maybe(fmt.Sprintf("'2000-01-%02d'", 1+rng.Intn(3))),
			))
		}
		if err := conn.Exec(ctx, "INSERT INTO d VALUES "+strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// rowPathJoin forces the row path: a tautology over both sides, which
// the rule refuses above (or inside) the join.
const rowPathJoin = "(f.i IS NULL OR f.i IS NOT NULL OR d.n IS NULL)"

// TestVectorJoin_MatchesRowPath: every join aggregation the rule
// vectorises returns, value and Go type, what GMS's row path returns.
func TestVectorJoin_MatchesRowPath(t *testing.T) {
	conn := joinTables(t)
	all := "COUNT(*), COUNT(d.n), SUM(f.v), AVG(f.v), SUM(f.x), AVG(f.x), MIN(f.i), MAX(f.dt), SUM(d.w), AVG(d.w), MIN(d.y), MAX(d.name), SUM(f.v * 2 - f.i), SUM(f.ti), AVG(d.n)"
	cases := []struct{ sel, from, where, tail string }{
		{all, "f JOIN d ON f.k = d.dk", "", ""},                                       // no GROUP BY
		{"d.name, " + all, "f JOIN d ON f.k = d.dk", "", "GROUP BY d.name"},           // build-side key
		{"f.g, " + all, "f JOIN d ON f.k = d.dk", "", "GROUP BY f.g"},                 // probe-side key
		{"f.g, d.name, " + all, "f JOIN d ON f.k = d.dk", "", "GROUP BY f.g, d.name"}, // both
		{"d.day, d.w, COUNT(*), SUM(f.v)", "f JOIN d ON f.k = d.dk", "", "GROUP BY d.day, d.w"},
		{"f.dt, COUNT(*), MAX(d.w)", "f JOIN d ON f.k = d.dk", "", "GROUP BY f.dt"},
		{"d.name, " + all, "d JOIN f ON d.dk = f.k", "", "GROUP BY d.name"}, // the other order
		{"d.name, " + all, "f JOIN d ON d.dk = f.k", "", "GROUP BY d.name"},
		{"d.name, " + all, "f, d", "f.k = d.dk", "GROUP BY d.name"},
		{"f.g, " + all, "f JOIN d ON f.k2 = d.dk2", "", "GROUP BY f.g"}, // BIGINT = INT
		{"f.g, " + all, "f JOIN d ON f.k = d.dk AND f.k2 = d.dk2", "", "GROUP BY f.g"},
		{"d.name, " + all, "f JOIN d ON f.k = d.dk", "f.i > -5 AND d.n < 10 AND d.name <> 'y'", "GROUP BY d.name"},
		{"f.g, COUNT(*), SUM(f.v)", "f JOIN d ON f.k = d.dk", "f.dt < DATE '1995-01-01' AND f.v BETWEEN -500 AND 500", "GROUP BY f.g"},
		{"d.name, " + all, "f JOIN d ON f.k = d.dk", "d.n > 1000", "GROUP BY d.name"}, // empty build side
		{all, "f JOIN d ON f.k = d.dk", "d.n > 1000", ""},
		{all, "f JOIN d ON f.k = d.dk", "f.i > 1000", ""}, // no matches
		{"d.name, COUNT(*)", "f JOIN d ON f.k = d.dk", "f.i > 1000", "GROUP BY d.name"},
		{"d.name, SUM(f.v) AS s", "f JOIN d ON f.k = d.dk", "", "GROUP BY d.name HAVING s < 100000 ORDER BY d.name"},
		{"d.name AS nm, COUNT(*) AS c", "f JOIN d ON f.k = d.dk", "", "GROUP BY d.name ORDER BY c DESC, nm LIMIT 2"},
	}
	for _, c := range cases {
		where, slowWhere := "", " WHERE "+rowPathJoin
		if c.where != "" {
			where, slowWhere = " WHERE "+c.where, " WHERE ("+c.where+") AND "+rowPathJoin
		}
		fast := "SELECT " + c.sel + " FROM " + c.from + where + " " + c.tail
		slow := "SELECT " + c.sel + " FROM " + c.from + slowWhere + " " + c.tail
		want := enginetest.SameAsRowPath(t, conn, "VectorJoinAggregate", fast, slow, strings.Contains(c.tail, "ORDER BY"))
		if want == "" && !strings.Contains(c.where, "1000") {
			t.Errorf("%s: no rows, the case tests nothing", slow)
		}
	}
}

// TestVectorJoin_Aliases: aliased tables and an empty build table.
func TestVectorJoin_Aliases(t *testing.T) {
	conn := joinTables(t)
	for _, c := range []struct{ fast, slow string }{
		{"SELECT b.name, COUNT(*), SUM(a.v), MAX(b.w) FROM f AS a JOIN d AS b ON a.k = b.dk GROUP BY b.name",
			"SELECT b.name, COUNT(*), SUM(a.v), MAX(b.w) FROM f AS a JOIN d AS b ON a.k = b.dk WHERE (a.i IS NULL OR a.i IS NOT NULL OR b.n IS NULL) GROUP BY b.name"},
		{"SELECT COUNT(*), SUM(f.v), MIN(e.name) FROM f JOIN e ON f.k = e.dk",
			"SELECT COUNT(*), SUM(f.v), MIN(e.name) FROM f JOIN e ON f.k = e.dk WHERE (f.i IS NULL OR f.i IS NOT NULL OR e.name IS NULL)"},
		{"SELECT e.name, COUNT(*) FROM e JOIN f ON f.k = e.dk GROUP BY e.name",
			"SELECT e.name, COUNT(*) FROM e JOIN f ON f.k = e.dk WHERE (f.i IS NULL OR f.i IS NOT NULL OR e.name IS NULL) GROUP BY e.name"},
	} {
		if !strings.Contains(enginetest.Explain(t, conn, c.fast), "VectorJoinAggregate") {
			t.Errorf("not vectorised: %s", c.fast)
		}
		if got, want := enginetest.Typed(t, conn, c.fast, false), enginetest.Typed(t, conn, c.slow, false); got != want {
			t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", c.fast, got, want)
		}
	}
}

// TestVectorJoin_BuildPartitioned: a build side beyond the query's
// memory budget is joined a hash partition at a time, still vectorised,
// with the results of the whole side and of the row path: inner, EXISTS
// and NOT EXISTS with a residual, INT and DECIMAL keys, duplicate and
// NULL keys on both sides, and an empty build side.
func TestVectorJoin_BuildPartitioned(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE p (k INT, dk DECIMAL(8,2), g VARCHAR(5), v DECIMAL(10,2), i INT)",
		"CREATE TABLE b (k INT, dk DECIMAL(8,2), n INT, w DECIMAL(10,3))",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rng := rand.New(rand.NewSource(5))
	key := func(n int) string {
		if rng.Intn(9) == 0 {
			return "NULL"
		}
		return fmt.Sprint(rng.Intn(n))
	}
	dkey := func(n int) string {
		if k := key(n); k != "NULL" {
			return k + ".25"
		}
		return "NULL"
	}
	for file := range 4 {
		var pv, bv []string
		for r := range 500 {
			pv = append(pv, fmt.Sprintf("(%s, %s, '%c', %d.%02d, %d)", key(1500), dkey(1500), 'a'+r%3, rng.Intn(1000)-500, r%100, rng.Intn(5)))
			bv = append(bv, fmt.Sprintf("(%s, %s, %d, %d.%03d)", key(1200), dkey(1200), rng.Intn(5), rng.Intn(100), file))
		}
		for _, ins := range []string{"INSERT INTO p VALUES " + strings.Join(pv, ", "), "INSERT INTO b VALUES " + strings.Join(bv, ", ")} {
			if err := conn.Exec(ctx, ins); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, q := range []string{
		"SELECT p.g, COUNT(*), SUM(p.v), SUM(b.w), MAX(b.n) FROM p JOIN b ON p.k = b.k %s GROUP BY p.g",
		"SELECT p.g, COUNT(*), SUM(p.v), MIN(b.w) FROM p JOIN b ON p.dk = b.dk %s GROUP BY p.g",
		"SELECT p.g, COUNT(*), SUM(b.w) FROM p JOIN b ON p.dk = b.dk AND b.n > 9 %s GROUP BY p.g",
		"SELECT p.g, COUNT(*), SUM(p.v) FROM p WHERE EXISTS (SELECT * FROM b WHERE b.k = p.k AND b.n <> p.i) %s GROUP BY p.g",
		"SELECT p.g, COUNT(*), SUM(p.v) FROM p WHERE NOT EXISTS (SELECT * FROM b WHERE b.dk = p.dk AND b.n <> p.i) %s GROUP BY p.g",
		// Two sides beyond the budget on one key, partitioned together.
		"SELECT p.g, COUNT(*) FROM p WHERE EXISTS (SELECT * FROM b WHERE b.k = p.k AND b.n <> p.i) AND NOT EXISTS (SELECT * FROM b AS b3 WHERE b3.k = p.k AND b3.n <> p.i AND b3.w < 90) %s GROUP BY p.g",
	} {
		fast := fmt.Sprintf(q, "")
		if !strings.Contains(enginetest.Explain(t, conn, fast), "VectorJoinAggregate") {
			t.Fatalf("not vectorised: %s", fast)
		}
		slowWhere := "AND (p.k IS NULL OR p.k IS NOT NULL OR p.g IS NULL)"
		if !strings.Contains(q, "WHERE") {
			slowWhere = "WHERE p.k IS NULL OR p.k IS NOT NULL OR b.n IS NULL"
		}
		want := enginetest.Typed(t, conn, fmt.Sprintf(q, slowWhere), false)
		for _, limit := range []int{0, 96 << 10, 64 << 10} { // the whole of b takes some 100 kB
			if err := conn.Exec(ctx, fmt.Sprintf("SET lakesql_query_memory = %d", limit)); err != nil {
				t.Fatal(err)
			}
			if got := enginetest.Typed(t, conn, fast, false); got != want {
				t.Errorf("budget %d: %s\n%s\nrow path:\n%s", limit, fast, got, want)
			}
		}
		if err := conn.Exec(ctx, "SET lakesql_query_memory = 0"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVectorJoin_OverflowFallsBack: an expression scan cannot hold in 128
// bits runs the replaced plan, with the row path's results.
func TestVectorJoin_OverflowFallsBack(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (k INT, d DECIMAL(38,0))",
		"INSERT INTO t VALUES (1, 99999999999999999999999999999999999999), (1, 3), (2, -12345678901234567890123456789), (NULL, 5)",
		"INSERT INTO t VALUES (2, 7), (3, 1)",
		"CREATE TABLE g (k BIGINT, name VARCHAR(5))",
		"INSERT INTO g VALUES (1, 'a'), (2, 'b'), (2, 'c'), (NULL, 'n')",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	q := "SELECT g.name, SUM(t.d * t.d), AVG(t.d * 10), SUM(t.d), COUNT(*) FROM t JOIN g ON t.k = g.k %s GROUP BY g.name"
	fast := fmt.Sprintf(q, "")
	if !strings.Contains(enginetest.Explain(t, conn, fast), "VectorJoinAggregate") {
		t.Errorf("not vectorised: %s", fast)
	}
	if got, want := enginetest.Typed(t, conn, fast, false), enginetest.Typed(t, conn, fmt.Sprintf(q, "WHERE t.k IS NULL OR t.k IS NOT NULL OR g.name IS NULL"), false); got != want {
		t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", fast, got, want)
	}
}

// TestVectorJoin_ManyPairs: a batch whose matches exceed the pairs
// aggregated at once (duplicate build keys fan out) sums them all.
func TestVectorJoin_ManyPairs(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE p (k INT, v DECIMAL(10,2), s VARCHAR(5))",
		"CREATE TABLE b (k INT, w INT)",
		"INSERT INTO b VALUES (1, 1), (1, 2), (1, 3), (2, 4), (1, 5), (NULL, 6)",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var vals []string
	for i := range 9000 {
		vals = append(vals, fmt.Sprintf("(%d, %d.%02d, '%c')", 1+i%3, i-4500, i%100, 'a'+i%4))
	}
	if err := conn.Exec(ctx, "INSERT INTO p VALUES "+strings.Join(vals, ", ")); err != nil {
		t.Fatal(err)
	}
	q := "SELECT p.s, b.w, COUNT(*), SUM(p.v), SUM(b.w), MAX(p.v) FROM p JOIN b ON p.k = b.k %s GROUP BY p.s, b.w"
	fast := fmt.Sprintf(q, "")
	if !strings.Contains(enginetest.Explain(t, conn, fast), "VectorJoinAggregate(probe d.p,") {
		t.Errorf("not vectorised with p probed: %s", fast)
	}
	if got, want := enginetest.Typed(t, conn, fast, false), enginetest.Typed(t, conn, fmt.Sprintf(q, "WHERE p.k IS NULL OR p.k IS NOT NULL OR b.w IS NULL"), false); got != want {
		t.Errorf("%s\nvectorised:\n%s\nrow path:\n%s", fast, got, want)
	}
}
