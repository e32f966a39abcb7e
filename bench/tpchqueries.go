package main

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"regexp"
	"strings"
)

// tpchQuery is one of the 22 TPC-H queries: DuckDB's text (from
// tpch_queries()) and its MySQL-dialect translation for lakesql.
type tpchQuery struct {
	N     int
	Name  string
	Duck  string
	MySQL string
	// Ordered: the query's ORDER BY is total, so rows are compared in
	// order; the others (no ORDER BY, one row) are compared as sets.
	Ordered bool
}

// dialectRule rewrites a DuckDB-dialect construct into MySQL's. Queries
// lists the queries the rule must change, so a changed tpch_queries()
// text fails loudly instead of reaching lakesql untranslated.
type dialectRule struct {
	what    string
	re      *regexp.Regexp
	repl    string
	queries []int
}

var dialectRules = []dialectRule{
	// CAST('1998-09-02' AS date) → DATE '1998-09-02' (MySQL accepts the
	// CAST too; the literal is what MySQL's TPC-H kit uses).
	{what: "date literal", re: regexp.MustCompile(`(?i)CAST\('(\d{4}-\d\d-\d\d)' AS date\)`), repl: `DATE '$1'`,
		queries: []int{1, 3, 4, 5, 6, 7, 8, 10, 12, 14, 15, 20}},
	// Q13's derived-table column list "AS c_orders (c_custkey, c_count)":
	// name the count in the select list instead.
	{what: "derived column list", re: regexp.MustCompile(`(?s)count\(o_orderkey\)(\s+FROM.*?)AS c_orders \(c_custkey,\s*c_count\)`),
		repl: `count(o_orderkey) AS c_count${1}AS c_orders`, queries: []int{13}},
	// substring(x FROM a FOR b) → SUBSTRING(x, a, b).
	{what: "substring", re: regexp.MustCompile(`(?i)substring\((\w+) FROM (\d+) FOR (\d+)\)`), repl: `SUBSTRING($1, $2, $3)`,
		queries: []int{22}},
}

// toMySQL translates query n from DuckDB's dialect.
func toMySQL(n int, q string) (string, error) {
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	for _, r := range dialectRules {
		out := r.re.ReplaceAllString(q, r.repl)
		want := false
		for _, m := range r.queries {
			want = want || m == n
		}
		if changed := out != q; changed != want {
			return "", fmt.Errorf("TPC-H Q%d: the %s rule changed=%v, expected %v: tpch_queries() changed, update dialectRules", n, r.what, changed, want)
		}
		q = out
	}
	return q, nil
}

// unordered are the queries without a total ORDER BY.
var unordered = map[int]bool{6: true, 14: true, 17: true, 19: true}

// loadTPCHQueries reads the 22 queries from DuckDB's tpch extension and
// translates them.
func loadTPCHQueries(ctx context.Context, db *dbsql.DB) ([]tpchQuery, error) {
	rows, err := db.QueryContext(ctx, "SELECT query_nr, query FROM tpch_queries() ORDER BY query_nr")
	if err != nil {
		return nil, fmt.Errorf("duckdb: tpch_queries(): %w", err)
	}
	defer rows.Close()
	var out []tpchQuery
	for rows.Next() {
		var q tpchQuery
		if err := rows.Scan(&q.N, &q.Duck); err != nil {
			return nil, err
		}
		if q.MySQL, err = toMySQL(q.N, q.Duck); err != nil {
			return nil, err
		}
		q.Name = fmt.Sprintf("Q%02d", q.N)
		q.Ordered = !unordered[q.N]
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) != 22 {
		return nil, fmt.Errorf("duckdb: tpch_queries() gave %d queries, want 22", len(out))
	}
	return out, nil
}
