package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestMoney_WindowSumAvg: SUM and AVG as window functions answer what the
// aggregates do (moneyCases): MySQL's exact DECIMAL type and value, and
// NULL over a partition without a value (GMS: INT or DOUBLE, float sums,
// 0 for SUM and NaN for AVG, which an INT sent as -2147483648 and a
// DECIMAL failed on), embedded and over the wire (text and binary).
func TestMoney_WindowSumAvg(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range moneySetup {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	h, _ := serve(t, e, "m")
	for _, c := range moneyCases {
		q := fmt.Sprintf("SELECT g, %s OVER (PARTITION BY g) FROM t ORDER BY g", c.expr)
		want := []string{"1|" + c.g1, "1|" + c.g1, "2|" + c.g2, "2|" + c.g2}
		r, err := conn.QueryOne(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := strings.ToLower(r.Schema[1].Type.String()); got != c.typ {
			t.Errorf("%s: type %s, want %s", q, got, c.typ)
		}
		if got := texts(r); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: embedded %v, want %v", q, got, want)
		}
		for _, proto := range []string{"text", "binary"} {
			pq, args := q, []any(nil)
			if proto == "binary" { // a parameter makes the driver prepare it on the server
				pq, args = strings.Replace(q, "FROM t", "FROM t WHERE g > ?", 1), []any{0}
			}
			rows, err := h.Query(pq, args...)
			if err != nil {
				t.Fatalf("%s (%s): %v", q, proto, err)
			}
			got, name, prec, scale := wireRows(t, rows)
			wantName, wantPrec, wantScale := "DECIMAL", c.prec, c.scal
			if c.typ == "double" { // the driver has no size for a DOUBLE
				wantName, wantPrec, wantScale = "DOUBLE", prec, scale
			}
			if name != wantName || prec != wantPrec || scale != wantScale {
				t.Errorf("%s (%s): wire type %s(%d,%d), want %s(%d,%d)", q, proto, name, prec, scale, wantName, wantPrec, wantScale)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s (%s): %v, want %v", q, proto, got, want)
			}
		}
	}
}

// TestWindowSumAvg_Frames: the frame a window SUM or AVG adds up is
// MySQL's: with ORDER BY and no frame clause, the partition's first row
// through the current row's last peer (tied rows share their total);
// ROWS frames count rows; a frame without a value is NULL; over
// aggregates the type is the aggregate's over the aggregate's.
func TestWindowSumAvg_Frames(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	if err := conn.Exec(ctx, "CREATE DATABASE w; USE w; CREATE TABLE t (j INT, k INT, x INT, d DECIMAL(7,2));"+
		" INSERT INTO t VALUES (1, 1, 1, 99999.99), (1, 2, 2, 99999.99), (2, 1, 4, 0.01), (3, 1, NULL, NULL), (3, 1, NULL, NULL)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, typ, want string }{
		{"SELECT j, SUM(x) OVER (ORDER BY j) FROM t ORDER BY j, x", "decimal(32,0)", "1|3,1|3,2|7,3|7,3|7"},
		{"SELECT j, SUM(x) OVER (ORDER BY j, k) FROM t ORDER BY j, k", "", "1|1,1|3,2|7,3|7,3|7"},
		{"SELECT j, SUM(x) OVER (ORDER BY j DESC) FROM t ORDER BY j, x", "", "1|7,1|7,2|4,3|NULL,3|NULL"},
		{"SELECT j, SUM(x) OVER (ORDER BY j, k ROWS UNBOUNDED PRECEDING) FROM t ORDER BY j, k", "", "1|1,1|3,2|7,3|7,3|7"},
		{"SELECT j, AVG(x) OVER (ORDER BY j, k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER BY j, k", "decimal(14,4)", "1|1.5000,1|2.3333,2|3.0000,3|4.0000,3|NULL"},
		{"SELECT j, AVG(d) OVER (PARTITION BY j ORDER BY k) FROM t ORDER BY j, k", "decimal(11,6)", "1|99999.990000,1|99999.990000,2|0.010000,3|NULL,3|NULL"},
		{"SELECT j, SUM(d * 100000000000) OVER () FROM t ORDER BY j LIMIT 1", "", "1|19999999000000000.00"},
		{"SELECT j, SUM(SUM(d)) OVER () FROM t GROUP BY j ORDER BY j", "decimal(51,2)", "1|199999.99,2|199999.99,3|199999.99"},
		{"SELECT j, AVG(SUM(x)) OVER (ORDER BY j) FROM t GROUP BY j ORDER BY j", "decimal(36,4)", "1|3.0000,2|3.5000,3|3.5000"},
		{"SELECT j, SUM(CAST(x AS DOUBLE)) OVER (PARTITION BY j) FROM t ORDER BY j LIMIT 5", "double", "1|3,1|3,2|4,3|NULL,3|NULL"},
	} {
		r, err := conn.QueryOne(ctx, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if got := strings.ToLower(r.Schema[1].Type.String()); c.typ != "" && got != c.typ {
			t.Errorf("%s: type %s, want %s", c.q, got, c.typ)
		}
		if got := strings.Join(texts(r), ","); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
	// A value that fails to evaluate fails the statement (GMS skipped it).
	_, err := conn.QueryOne(ctx, "SELECT j, SUM(x + 9223372036854775807) OVER () FROM t")
	if code, msg := errCode(err); code != 1690 || !strings.Contains(msg, "BIGINT value is out of range") {
		t.Errorf("overflow inside a window SUM: %d %q, want 1690", code, msg)
	}
}
