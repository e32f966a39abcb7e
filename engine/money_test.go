package engine_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// moneySetup has DECIMALs of two widths, the integer types and a DOUBLE,
// with values whose DOUBLE sums are visibly wrong.
var moneySetup = []string{
	"CREATE DATABASE m", "USE m",
	"CREATE TABLE t (g INT, d DECIMAL(12,2), e DECIMAL(38,10), i INT, bi BIGINT, u BIGINT UNSIGNED, small DECIMAL(4,2), f DOUBLE)",
	"INSERT INTO t VALUES (1, 0.10, 123456789012345678.0123456789, 1, 9000000000000000000, 18446744073709551615, 0.01, 0.5)," +
		" (1, 1234567890.23, 123456789012345678.0123456789, 2, 9000000000000000000, 1, 0.02, 0.25)",
	"INSERT INTO t VALUES (2, -5.55, NULL, NULL, -3, 0, 0.02, NULL), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
	"CREATE TABLE k (g INT, name VARCHAR(10))",
	"INSERT INTO k VALUES (1, 'one'), (2, 'two')",
}

// moneyCase is one aggregate with MySQL 8's answer: column type (as
// DESCRIBE of a CREATE TABLE ... AS SELECT shows it, before lakesql's
// 38-digit storage limit), wire precision and scale, and the value per
// group.
type moneyCase struct {
	expr       string
	typ        string // "decimal(p,s)" or "double"
	prec, scal int64
	g1, g2     string
}

var moneyCases = []moneyCase{
	{"SUM(d)", "decimal(34,2)", 34, 2, "1234567890.33", "-5.55"},
	{"AVG(d)", "decimal(16,6)", 16, 6, "617283945.165000", "-5.550000"},
	{"SUM(e)", "decimal(60,10)", 60, 10, "246913578024691356.0246913578", "NULL"},
	{"AVG(e)", "decimal(42,14)", 42, 14, "123456789012345678.01234567890000", "NULL"},
	{"SUM(i)", "decimal(32,0)", 32, 0, "3", "NULL"},
	{"AVG(i)", "decimal(14,4)", 14, 4, "1.5000", "NULL"},
	{"SUM(bi)", "decimal(41,0)", 41, 0, "18000000000000000000", "-3"},
	{"AVG(bi)", "decimal(23,4)", 23, 4, "9000000000000000000.0000", "-3.0000"},
	{"SUM(u)", "decimal(42,0)", 42, 0, "18446744073709551616", "0"},
	// AVG rounds half away from zero at scale s+4, as MySQL divides:
	// 0.03/2 = 0.015 → 0.015000; (0.02)/1.
	{"AVG(small)", "decimal(8,6)", 8, 6, "0.015000", "0.020000"},
	{"SUM(f)", "double", 0, 0, "0.75", "NULL"},
}

// TestMoney_SumAvgAreExactDecimals: SUM and AVG of DECIMALs and integers
// are MySQL's NEWDECIMAL with its precision and scale, exact, on the row
// path, the vectorised aggregate and the vectorised join, embedded and
// over the wire (text and binary protocol).
func TestMoney_SumAvgAreExactDecimals(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range moneySetup {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	h, _ := serve(t, e, "m")
	paths := []struct{ name, node, query string }{
		{"vectorised", "VectorAggregate", "SELECT g, %s FROM t GROUP BY g ORDER BY g"},
		{"row path", "", "SELECT g, %s FROM t WHERE (i IS NULL OR i IS NOT NULL) GROUP BY g ORDER BY g"},
		{"vectorised join", "VectorJoinAggregate", "SELECT t.g, %s FROM t JOIN k ON t.g = k.g GROUP BY t.g ORDER BY t.g"},
		{"row-path join", "", "SELECT t.g, %s FROM t JOIN k ON t.g = k.g WHERE (k.name IS NULL OR k.name IS NOT NULL OR t.i IS NULL) GROUP BY t.g ORDER BY t.g"},
	}
	for _, c := range moneyCases {
		for _, p := range paths {
			q := fmt.Sprintf(p.query, c.expr)
			plan := enginetest.Explain(t, conn, q)
			if p.node != "" && !strings.Contains(plan, p.node) {
				t.Errorf("%s: not on the %s path:\n%s", q, p.name, plan)
			}
			if p.node == "" && strings.Contains(plan, "Vector") {
				t.Errorf("%s: vectorised, want the row path:\n%s", q, plan)
			}
			want := []string{"1|" + c.g1, "2|" + c.g2}
			// Embedded: the schema's type and the rendered values.
			r, err := conn.QueryOne(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if got := strings.ToLower(r.Schema[1].Type.String()); got != c.typ {
				t.Errorf("%s (%s): type %s, want %s", q, p.name, got, c.typ)
			}
			if got := texts(r); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s (%s): embedded %v, want %v", q, p.name, got, want)
			}
			// Wire: text protocol, then binary (a parameter makes the
			// driver prepare the statement on the server).
			for _, proto := range []string{"text", "binary"} {
				var rows *sql.Rows
				if proto == "text" {
					rows, err = h.Query(q)
				} else {
					cond := "WHERE t.g > ? GROUP BY"
					if strings.Contains(q, "WHERE") {
						cond = "AND t.g > ? GROUP BY"
					}
					rows, err = h.Query(strings.Replace(q, "GROUP BY", cond, 1), 0)
				}
				if err != nil {
					t.Fatalf("%s (%s): %v", q, proto, err)
				}
				got, name, prec, scale := wireRows(t, rows)
				wantName := "DECIMAL"
				if c.typ == "double" {
					wantName, prec, scale = "DOUBLE", 0, 0
				}
				if name != wantName || prec != c.prec || scale != c.scal {
					t.Errorf("%s (%s, %s): wire type %s(%d,%d), want %s(%d,%d)", q, p.name, proto, name, prec, scale, wantName, c.prec, c.scal)
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s (%s, %s): %v, want %v", q, p.name, proto, got, want)
				}
			}
		}
	}
}

// texts renders an embedded result as a client sees it.
func texts(r engine.Result) []string {
	var out []string
	for i := range r.Rows {
		cells := make([]string, len(r.Rows[i]))
		for j := range cells {
			var ok bool
			if cells[j], ok = r.Text(i, j); !ok {
				cells[j] = "NULL"
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out
}

// wireRows reads rows as text and the second column's wire type.
func wireRows(t *testing.T, rows *sql.Rows) (out []string, typ string, prec, scale int64) {
	t.Helper()
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	typ = cts[1].DatabaseTypeName()
	if p, s, ok := cts[1].DecimalSize(); ok {
		prec, scale = p, s
	}
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cts))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = "NULL"
			if v != nil {
				cells[i] = string(v)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out, typ, prec, scale
}

// TestMoney_DerivedTypes: expressions over SUM, aliases, derived tables,
// scalar subqueries, CREATE TABLE ... AS SELECT and materialized views
// keep the DECIMAL (stored at most 38 digits wide).
func TestMoney_DerivedTypes(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range moneySetup {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, c := range []struct{ q, typ, want string }{
		{"SELECT SUM(d) * 2 FROM t WHERE g = 1", "decimal", "2469135780.66"},
		{"SELECT SUM(d) + 1 FROM t WHERE g = 1", "decimal", "1234567891.33"},
		{"SELECT s FROM (SELECT g, SUM(d) AS s FROM t GROUP BY g) x WHERE g = 1", "decimal(34,2)", "1234567890.33"},
		{"WITH c AS (SELECT g, AVG(i) AS a FROM t GROUP BY g) SELECT a FROM c WHERE g = 1", "decimal(14,4)", "1.5000"},
		{"SELECT (SELECT SUM(d) FROM t WHERE g = 1)", "decimal(34,2)", "1234567890.33"},
		{"SELECT g, SUM(d) AS s FROM t GROUP BY g HAVING s > 100 ORDER BY s", "", "1|1234567890.33"},
		{"SELECT SUM(d) FROM t WHERE g > 5", "decimal(34,2)", "NULL"},
	} {
		r, err := conn.QueryOne(ctx, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if typ := strings.ToLower(r.Schema[0].Type.String()); c.typ != "" && !strings.HasPrefix(typ, c.typ) {
			t.Errorf("%s: type %s, want %s", c.q, typ, c.typ)
		}
		if got := strings.Join(texts(r), ","); got != c.want {
			t.Errorf("%s: %s, want %s", c.q, got, c.want)
		}
	}
	for _, q := range []string{
		"CREATE TABLE c AS SELECT g, SUM(d) sd, AVG(d) ad, SUM(bi) sb, AVG(i) ai, SUM(f) sf FROM t GROUP BY g",
		"CREATE MATERIALIZED VIEW mv AS SELECT g, SUM(d) sd, AVG(d) ad, SUM(bi) sb, AVG(i) ai, SUM(f) sf FROM t GROUP BY g",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, tbl := range []string{"c", "mv"} {
		r, err := conn.QueryOne(ctx, "DESCRIBE "+tbl)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range r.Rows {
			ty, _ := r.Text(i, 1)
			null, _ := r.Text(i, 2)
			got = append(got, fmt.Sprintf("%v %s %s", r.Rows[i][0], ty, null))
		}
		want := "g int YES,sd decimal(34,2) YES,ad decimal(16,6) YES,sb decimal(38,0) YES,ai decimal(14,4) YES,sf double YES"
		if strings.Join(got, ",") != want {
			t.Errorf("DESCRIBE %s:\n got %s\nwant %s", tbl, strings.Join(got, ","), want)
		}
		r, err = conn.QueryOne(ctx, "SELECT sd, ad, sb, ai FROM "+tbl+" ORDER BY g")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(texts(r), ","); got != "1234567890.33|617283945.165000|18000000000000000000|1.5000,-5.55|-5.550000|-3|NULL" {
			t.Errorf("%s rows: %s", tbl, got)
		}
	}
}

// TestMoney_PyMySQLSeesNewDecimal: the column definition on the wire is
// MYSQL_TYPE_NEWDECIMAL (246), as a Python client reads it.
func TestMoney_PyMySQLSeesNewDecimal(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pymysql").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-pymysql is not installed; .ci/run installs it")
		}
		t.Skip("python3-pymysql is not installed")
	}
	e := enginetest.Open(t)
	if err := e.Connect("root").Exec(context.Background(), strings.Join(moneySetup, "; ")); err != nil {
		t.Fatal(err)
	}
	_, addr := serve(t, e, "m")
	script := `
import sys, pymysql
c = pymysql.connect(host="127.0.0.1", port=int(sys.argv[1]), user="root", database="m")
cur = c.cursor()
cur.execute("SELECT SUM(d), AVG(i), SUM(f) FROM t WHERE g = 1")
print([(d[0], d[1], d[5] if d[1] == 246 else None) for d in cur.description])
print([str(v) for v in cur.fetchone()])
`
	out, err := exec.Command(py, "-c", script, port(addr)).CombinedOutput()
	if err != nil {
		t.Fatalf("pymysql: %v\n%s", err, out)
	}
	want := "[('SUM(d)', 246, 2), ('AVG(i)', 246, 4), ('SUM(f)', 5, None)]\n['1234567890.33', '1.5000', '0.75']\n"
	if string(out) != want {
		t.Errorf("pymysql:\n%s\nwant:\n%s", out, want)
	}
}
