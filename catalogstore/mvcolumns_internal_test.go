package catalogstore

import "testing"

func TestSQLIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		sql      string
		names    []string
		notNames []string
		star     bool
	}{
		{sql: "SELECT k, SUM(n) AS s FROM src GROUP BY k", names: []string{"k", "n", "src"}, notNames: []string{"x"}},
		{sql: "SELECT COUNT(*) FROM src WHERE note = 'n x'", names: []string{"note"}, notNames: []string{"x"}},
		{sql: "SELECT a*b FROM t", names: []string{"a", "b"}},
		{sql: "SELECT * FROM t", star: true},
		{sql: "select distinct * from t", star: true},
		{sql: "SELECT t.* FROM t", star: true},
		{sql: "SELECT `Weird Name`, \"dq\" FROM t -- n\n/* m */", names: []string{"weird name"}, notNames: []string{"dq", "n", "m"}},
	} {
		names, star := sqlIdentifiers(tc.sql)
		if star != tc.star {
			t.Errorf("%q: star %v, want %v", tc.sql, star, tc.star)
		}
		for _, n := range tc.names {
			if !names[n] {
				t.Errorf("%q: %q not found in %v", tc.sql, n, names)
			}
		}
		for _, n := range tc.notNames {
			if names[n] {
				t.Errorf("%q: %q found", tc.sql, n)
			}
		}
	}
}
