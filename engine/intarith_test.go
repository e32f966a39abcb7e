package engine_test

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// intArithScript: BIGINT and BIGINT UNSIGNED + - * are exact or error
// 1690, as in MySQL 8, on the row path (projections) and the vectorised
// aggregate (SUM over an expression, no filter).
var intArithScript = scriptTest{
	name: "bigint arithmetic",
	setup: []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.u (g INT, f BIGINT UNSIGNED, s BIGINT, small INT UNSIGNED)",
		"INSERT INTO d.u VALUES (1, 18446744073709551615, 9223372036854775807, 4294967295), (1, NULL, NULL, NULL), (2, 5, -9223372036854775808, 0)",
	},
	checks: []check{
		{query: "SELECT f+0, f-1, f*1, f + -1 FROM d.u WHERE g = 1 AND f IS NOT NULL", want: []string{"18446744073709551615|18446744073709551614|18446744073709551615|18446744073709551614"}},
		{query: "SELECT f+1 FROM d.u WHERE g = 1", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "SELECT f*2 FROM d.u WHERE g = 1", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "SELECT small - 1 FROM d.u WHERE g = 2", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "SELECT small + 1, small * small FROM d.u WHERE g = 1 AND f IS NOT NULL", want: []string{"4294967296|18446744065119617025"}},
		{query: "SELECT 18446744073709551615+0, 18446744073709551615-1", want: []string{"18446744073709551615|18446744073709551614"}},
		{query: "SELECT 18446744073709551615+1", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "SELECT CAST(1 AS UNSIGNED) - 2", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "SELECT 9223372036854775807+1", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT s+1 FROM d.u WHERE g = 1", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT s-1 FROM d.u WHERE g = 2", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT s*-1 FROM d.u WHERE g = 2", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT s-1, 5-10, 3*-4 FROM d.u WHERE g = 1 AND s IS NOT NULL", want: []string{"9223372036854775806|-5|-12"}},
		{query: "SELECT x FROM (SELECT f+0 AS x FROM d.u WHERE g = 1) t WHERE x IS NOT NULL", want: []string{"18446744073709551615"}},
		// Unary minus: an unsigned operand gives a signed BIGINT.
		{query: "SELECT -f FROM d.u WHERE g = 1", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT -(f - 9223372036854775807), -small, -(small - 4294967295) FROM d.u WHERE g = 1 AND f IS NOT NULL", want: []string{"-9223372036854775808|-4294967295|0"}},
		{query: "SELECT -s FROM d.u WHERE g = 2", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT -(-127), -(-9223372036854775807)", want: []string{"127|9223372036854775807"}},
		// DIV and MOD: exact, unsigned as MySQL types them, NULL on zero.
		{query: "SELECT f DIV 1, f % 10, f DIV 2, f MOD 7, small % 7 FROM d.u WHERE g = 1 AND f IS NOT NULL", want: []string{"18446744073709551615|5|9223372036854775807|1|3"}},
		{query: "SELECT 7 DIV 2, -7 DIV 2, 7 % -3, -7 % 3, 7 DIV 0, 7 % 0", want: []string{"3|-3|1|-1|NULL|NULL"}},
		{query: "SELECT f DIV -1 FROM d.u WHERE g = 1", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "SELECT s DIV -1 FROM d.u WHERE g = 2", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT x FROM (SELECT f % 1000 AS x FROM d.u WHERE g = 1) t WHERE x IS NOT NULL", want: []string{"615"}},
		// Vectorised: SUM over the expression, no filter.
		{query: "SELECT g, SUM(f+0), SUM(f-1), SUM(s+0) FROM d.u GROUP BY g", want: []string{"1|18446744073709551615|18446744073709551614|9223372036854775807", "2|5|4|-9223372036854775808"}},
		{query: "SELECT SUM(f+1) FROM d.u", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "SELECT MAX(s+1) FROM d.u", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT MIN(s-1) FROM d.u", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT g, MAX(small*small) FROM d.u GROUP BY g", want: []string{"1|18446744065119617025", "2|0"}},
		// Writes: refused whole, in any sql_mode.
		{query: "UPDATE d.u SET s = s + 1 WHERE g = 1", wantErr: "1690 BIGINT value is out of range"},
		{query: "UPDATE d.u SET f = f - 6 WHERE g = 2", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "INSERT INTO d.u VALUES (4, 18446744073709551615 + 1, 0, 0)", wantErr: "1690 BIGINT UNSIGNED value is out of range"},
		{query: "INSERT INTO d.u SELECT 4, f, s + 1, small FROM d.u WHERE g = 1", wantErr: "1690 BIGINT value is out of range"},
		{query: "SELECT g, f, s FROM d.u WHERE f IS NOT NULL", want: []string{"1|18446744073709551615|9223372036854775807", "2|5|-9223372036854775808"}},
		{query: "INSERT INTO d.u VALUES (3, 18446744073709551614 + 1, 9223372036854775806 + 1, 4294967294 + 1)", want: nil},
		{query: "UPDATE d.u SET f = f - 1, s = s - 1 WHERE g = 3", want: nil},
		{query: "SELECT f, s, small FROM d.u WHERE g = 3", want: []string{"18446744073709551614|9223372036854775806|4294967295"}},
		{query: "INSERT INTO d.u SELECT 5, f DIV 0, 1, 1 FROM d.u WHERE g = 3", wantErr: "1365 Division by 0"},
		{query: "INSERT INTO d.u VALUES (5, 7 % 0, 1, 1)", wantErr: "1365 Division by 0"},
		{query: "INSERT INTO d.u SELECT 5, f DIV 2, s % 10, small DIV 3 FROM d.u WHERE g = 3", want: nil},
		{query: "SELECT f, s, small FROM d.u WHERE g = 5", want: []string{"9223372036854775807|6|1431655765"}},
	},
}

func TestBigintArithmetic(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runScript(t, intArithScript.name, embedded(t, enginetest.Open(t)), intArithScript)
	})
	t.Run("wire", func(t *testing.T) {
		h, _ := serve(t, enginetest.Open(t), "")
		runScript(t, intArithScript.name, wire(t, h), intArithScript)
	})
}

// TestBigintArithmetic_Paths: the binary protocol's bound parameters get
// the same answers (that the aggregates above run on the vectorised path
// is checked by engine/rewrite/testdata/bigint_paths.test).
func TestBigintArithmetic_Paths(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	for _, q := range intArithScript.setup {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := serve(t, e, "d")
	for _, c := range []struct {
		q       string
		arg     any
		want    string
		wantErr uint16
	}{
		{"SELECT f + ? FROM u WHERE g = 1 AND f IS NOT NULL", 0, "18446744073709551615", 0},
		{"SELECT f + ? FROM u WHERE g = 1 AND f IS NOT NULL", 1, "", 1690},
		{"SELECT s + ? FROM u WHERE g = 1 AND s IS NOT NULL", 1, "", 1690},
		{"SELECT s - ? FROM u WHERE g = 1 AND s IS NOT NULL", 1, "9223372036854775806", 0},
		{"SELECT SUM(f - ?) FROM u WHERE g > 0", 1, "18446744073709551618", 0},
	} {
		var got string
		err := h.QueryRow(c.q, c.arg).Scan(&got)
		var code uint16
		var msg string
		if err != nil {
			code, msg = errCode(err)
		}
		if code != c.wantErr || (err == nil && got != c.want) {
			t.Errorf("%s [%v] (binary): %q, error %d %s; want %q, error %d", c.q, c.arg, got, code, msg, c.want, c.wantErr)
		}
	}
}
