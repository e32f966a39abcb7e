package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// unsupportedCases are constructs analysts and BI tools write that lakesql
// does not run, with the MySQL error each gets and the words of its
// message that name the construct. MySQL 8 refuses the standard-SQL ones
// (GROUPING SETS, FILTER, QUALIFY, …) with a syntax error near them too.
var unsupportedCases = []struct {
	query string
	code  uint16
	names string
}{
	{"SELECT k, SUM(x) FROM t GROUP BY GROUPING SETS ((k), ())", 1064, "near 'SETS'"},
	{"SELECT k, SUM(x) FROM t GROUP BY CUBE (k)", 1064, "near 'CUBE'"},
	{"SELECT k, SUM(x) FROM t GROUP BY ROLLUP (k)", 1305, "'rollup'"},
	{"SELECT MEDIAN(x) FROM t", 1305, "'median'"},
	{"SELECT k, NTH_VALUE(x, 2) OVER (ORDER BY x) FROM t", 1305, "'nth_value'"},
	{"SELECT k, CUME_DIST() OVER (ORDER BY x) FROM t", 1305, "'cume_dist'"},
	{"SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x) FROM t", 1064, "near 'GROUP'"},
	{"SELECT k, SUM(x) FILTER (WHERE x > 1) FROM t GROUP BY k", 1064, "near 'FILTER'"},
	{"SELECT k, x FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY x) = 1", 1064, "near 'ROW_NUMBER'"},
	{"SELECT k, FIRST_VALUE(x) IGNORE NULLS OVER (ORDER BY x) FROM t", 1064, "near 'IGNORE'"},
	{"SELECT x FROM t ORDER BY x NULLS LAST", 1064, "near 'NULLS'"},
	{"SELECT * FROM t TABLESAMPLE BERNOULLI (10)", 1064, "near 'BERNOULLI'"},
	{"SELECT * FROM t GROUP BY k WITH ROLLUP", 1235, "SELECT * with WITH ROLLUP"},
	{"SELECT k, GROUPING(k) FROM t GROUP BY k", 1111, "GROUPING"},
}

// TestUnsupported_ClearErrorsOverTheWire: each unsupported construct gets
// its MySQL error naming it, and the same connection answers the next
// statement (issue 22: never a dropped connection).
func TestUnsupported_ClearErrorsOverTheWire(t *testing.T) {
	e := enginetest.Open(t)
	db, _ := serve(t, e, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"CREATE DATABASE u", "USE u", "CREATE TABLE t (k VARCHAR(5), x INT)", "INSERT INTO t VALUES ('a', 1), ('b', 2)"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, c := range unsupportedCases {
		err := drain(conn.QueryContext(ctx, c.query))
		if err == nil {
			t.Errorf("%s: succeeded, want error %d", c.query, c.code)
			continue
		}
		code, msg := errCode(err)
		if code != c.code || !strings.Contains(strings.ToLower(msg), strings.ToLower(c.names)) {
			t.Errorf("%s: error %d %q, want %d naming %q", c.query, code, msg, c.code, c.names)
		}
		var same int64
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&same); err != nil || same != id {
			t.Fatalf("after %s: connection %d (was %d), %v", c.query, same, id, err)
		}
	}
}
