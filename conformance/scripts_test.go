package conformance_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/conformance"
)

// TestLakesqlScripts runs lakesql's own scripts (testdata/lakesql/*.test)
// for the lakehouse surface, each on a fresh warehouse, through the
// embedded engine.Conn and over the MySQL wire. Every record must pass
// both ways, error records with the annotated code and message, and both
// ways must give identical outcomes.
func TestLakesqlScripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "lakesql", "*.test"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no scripts in testdata/lakesql")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".test"), func(t *testing.T) {
			s, err := conformance.ParseScript(path)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()

			conn := openEngine(t).Connect("root")
			defer conn.Close()
			embedded := conformance.RunScript(ctx, s, conformance.Embedded{Conn: conn})

			db := openDB(t, dsn(serve(t, openEngine(t)), ""))
			wc, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer wc.Close()
			wire := conformance.RunScript(ctx, s, conformance.Wire{Conn: wc})

			if len(embedded) != len(wire) {
				t.Fatalf("embedded ran %d records, wire %d", len(embedded), len(wire))
			}
			ran := 0
			for i, o := range embedded {
				w := wire[i]
				if !o.Skipped {
					ran++
				}
				if o.Problem != "" {
					t.Errorf("%s:%d embedded: %s\n    %s", path, o.Line, o.Query, o.Problem)
				}
				if w.Problem != "" {
					t.Errorf("%s:%d wire: %s\n    %s", path, w.Line, w.Query, w.Problem)
				}
				// A record that failed one way is reported above; compare
				// the two ways when both passed.
				if o.Problem == "" && w.Problem == "" && !o.Same(w) {
					t.Errorf("%s:%d embedded and wire differ: %s\n    embedded: %s\n    wire:     %s", path, o.Line, o.Query, o, w)
				}
			}
			t.Logf("%d records run embedded and over the wire", ran)
		})
	}
}
