package ddl

import ast "github.com/dolthub/vitess/go/vt/sqlparser"

// compatRewrites are spellings clients send that MySQL (or MariaDB) accept
// and vitess does not, each rewritten at the token level to one it does:
// the leading keywords to match and the index of the token to drop.
var compatRewrites = []struct {
	lead []string
	drop int
}{
	// DBeaver and MariaDB Connector/J: SHOW FULL TRIGGERS FROM db.
	{[]string{"SHOW", "FULL", "TRIGGERS"}, 1},
}

// mysqlCompat applies compatRewrites to the first statement of query. It
// returns the query to parse and how many bytes were removed before the
// end of the first statement.
func mysqlCompat(query string, opts ast.ParserOptions) (string, int) {
	for _, rw := range compatRewrites {
		s := newScanner(query, opts)
		if !leadsWith(s, rw.lead) {
			continue
		}
		prev, tok := s.peekAt(rw.drop-1), s.peekAt(rw.drop)
		return query[:prev.end] + query[tok.end:], tok.end - prev.end
	}
	return query, 0
}
