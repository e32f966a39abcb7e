package ddl

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// FuzzParse checks that parsing never panics, that a recognised statement
// renders (String) to SQL that parses back to the same statement, that
// syntax errors point inside the query, and that a multi-statement split
// returns a suffix of the query as the remainder. Seeds are in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	p := NewParser(nil)
	f.Fuzz(func(t *testing.T, query string) {
		for _, opts := range []ast.ParserOptions{{}, {AnsiQuotes: true}} {
			stmt, err := Parse(query, opts)
			var se *SyntaxError
			if errors.As(err, &se) && (se.Position < 1 || se.Position > len(query)+1) {
				t.Fatalf("%q: error position %d outside the query: %v", query, se.Position, err)
			}
			if stmt != nil {
				again, err := Parse(stmt.String(), opts)
				if err != nil {
					t.Fatalf("%q -> %q: %v", query, stmt.String(), err)
				}
				if !reflect.DeepEqual(again, stmt) {
					t.Fatalf("%q -> %q: %#v, want %#v", query, stmt.String(), again, stmt)
				}
			}

			st, _, rem, err := p.ParseWithOptions(context.Background(), query, ';', true, opts)
			if err != nil {
				continue
			}
			if _, ok := st.(ast.InjectedStatement); ok && !strings.HasSuffix(sql.RemoveSpaceAndDelimiter(query, ';'), rem) {
				t.Fatalf("%q: remainder %q is not a suffix", query, rem)
			}
			_, _, _ = p.ParseOneWithOptions(context.Background(), query, opts)
			_, _ = p.ParseSimple(query)
		}
	})
}
