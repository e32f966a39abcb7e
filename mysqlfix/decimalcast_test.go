package mysqlfix_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/engine/enginetest"
	"github.com/lakesql/lakesql/mysqlfix"
)

// TestNewDecimalCast_FindsGMSsLength pins what decimalCast reads from
// GMS's Convert by reflection: a CAST to DECIMAL(M[,0]) is recognised
// with M; other casts are not, nor GMS's own conversions to DECIMAL with
// no length (the parser spells the user's CAST AS DECIMAL as DECIMAL(10)).
func TestNewDecimalCast_FindsGMSsLength(t *testing.T) {
	lit := expression.NewLiteral(int64(5), types.Int64)
	for _, c := range []struct {
		to            string
		length, scale int
		want          string // the type, "" when not recognised
	}{
		{"decimal", 0, 0, ""}, // GMS's own, for a UNION's columns
		{"decimal", 10, 0, "decimal(10,0)"},
		{"decimal", 12, 0, "decimal(12,0)"},
		{"decimal", 65, 0, "decimal(65,0)"},
		{"decimal", 66, 0, ""},              // GMS's internal type stays (MySQL: 1426)
		{"decimal", 10, 2, "decimal(10,2)"}, // GMS types it right but gives 0 out of range
		{"signed", 0, 0, ""},
	} {
		got := ""
		if e, ok := mysqlfix.NewDecimalCast(expression.NewConvertWithLengthAndScale(lit, c.to, c.length, c.scale)); ok {
			got = e.Type().String()
		}
		if got != c.want {
			t.Errorf("CAST AS %s(%d,%d): got %q, want %q", c.to, c.length, c.scale, got, c.want)
		}
	}
}

// TestDecimalCast_MySQLsTypeAndValue: CAST AS DECIMAL is DECIMAL(10,0)
// and DECIMAL(M) is DECIMAL(M,0), rounding half away from zero and
// clipping to the type with warning 1264; SUM and AVG of it, a derived
// table's column and CREATE TABLE … AS SELECT take that type.
func TestDecimalCast_MySQLsTypeAndValue(t *testing.T) {
	ctx := context.Background()
	conn := enginetest.Open(t).Connect("root")
	for _, q := range []string{
		"CREATE DATABASE d", "USE d",
		"CREATE TABLE t (i INT, s VARCHAR(10))",
		"INSERT INTO t VALUES (1, '7.49'), (2, '-2.5'), (3, NULL)",
		"CREATE TABLE c AS SELECT CAST(i AS DECIMAL) x, CAST(i AS DECIMAL(12)) y, CAST(s AS DECIMAL(5,1)) z FROM t",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT CAST(5.5 AS DECIMAL), CAST(-5.5 AS DECIMAL(3)), CAST(5 AS DECIMAL(10,2)), CAST(NULL AS DECIMAL)", "6|-6|5.00|NULL"},
		{"SELECT CAST(s AS DECIMAL) FROM t ORDER BY i", "7\n-3\nNULL"},
		{"SELECT SUM(CAST(i AS DECIMAL)), SUM(DISTINCT CAST(i AS DECIMAL)), AVG(CAST(i AS DECIMAL(4))) FROM t", "6|6|2.0000"},
		{"SELECT SUM(x) FROM (SELECT CAST(i AS DECIMAL) x FROM t) d", "6"},
		{"SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 'c' ORDER BY 1",
			"x|decimal(10,0)\ny|decimal(12,0)\nz|decimal(5,1)"},
		// GMS's own conversion of a UNION's columns is not rounded.
		{"SELECT SUM(n) > 1.6 AND SUM(n) < 1.7 FROM (SELECT SUM(1) n UNION ALL SELECT 2.00/3.0) u", "1"},
		{"SELECT CONVERT(7.5, DECIMAL), CAST(7.5 AS DECIMAL(10, 0))", "8|8"},
		{"SELECT CAST(12345678901 AS DECIMAL), CAST(-123 AS DECIMAL(2))", "9999999999|-99"},
	} {
		if got := enginetest.Render(t, conn, c.q); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
	if got := enginetest.Render(t, conn, "SHOW WARNINGS"); !strings.Contains(got, "1264") {
		t.Errorf("an out-of-range CAST warns 1264; SHOW WARNINGS: %q", got)
	}
}
