package enginetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/conformance"
)

// RunScripts runs every sqllogictest script matching pattern (such as
// "testdata/*.test") on a fresh embedded engine, one subtest per file, and
// fails each record that does not pass. Scripts use the conformance
// package's extensions: "# error: CODE fragment" before a statement error;
// "# explain: FRAGMENT" or "# explain: !FRAGMENT" before a query (or a
// statement error) whose plan (EXPLAIN FORMAT=TREE) must or must not
// contain FRAGMENT; and "# exact" before a query whose R values are
// compared as returned (a DECIMAL's scale and every digit). A plan
// rewrite's test is then a text file: set-up statements, and each query
// with the plan node it must use and the rows it must return, beside its
// row-path twin (the same query with a conjunct the rewrite refuses).
func RunScripts(t *testing.T, pattern string) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no scripts match %s", pattern)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), func(t *testing.T) {
			s, err := conformance.ParseScript(path)
			if err != nil {
				t.Fatal(err)
			}
			conn := Open(t).Connect("root")
			defer conn.Close()
			ran := 0
			for _, o := range conformance.RunScript(context.Background(), s, conformance.Embedded{Conn: conn}) {
				if o.Skipped {
					continue
				}
				ran++
				if o.Problem != "" {
					t.Errorf("%s:%d: %s\n    %s", path, o.Line, o.Query, o.Problem)
				}
			}
			t.Logf("%d records", ran)
		})
	}
}
