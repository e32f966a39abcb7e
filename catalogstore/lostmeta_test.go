package catalogstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/firestore"
	"github.com/lakesql/lakesql/catalogstore/meta/metatest"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
)

// TestCheckNotLost: an empty metastore over storage that holds a dataset
// is a lost metastore, on SQLite and on Firestore (a wrong or emptied
// project); an empty one over empty storage, or one with workspaces, is
// not.
func TestCheckNotLost(t *testing.T) {
	fresh := map[string]func(t *testing.T) meta.Store{
		"sqlite": func(t *testing.T) meta.Store {
			s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "lakesql.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	if os.Getenv("FIRESTORE_EMULATOR_HOST") != "" {
		fresh["firestore"] = func(t *testing.T) meta.Store {
			// A project of its own: empty, as a lost database would be.
			s, err := firestore.Open(context.Background(), "lost-"+strings.ToLower(metatest.UniqueName()), "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
	for name, newMeta := range fresh {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b, err := local.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			lost := catalogstore.New(newMeta(t), b, catalogstore.Options{NoAudit: true})
			if err := lost.CheckNotLost(ctx); err != nil {
				t.Fatalf("empty metastore, empty storage: %v", err)
			}
			// Another metastore writes a dataset's files into the storage.
			e := &env{cat: catalogstore.New(newMeta(t), b, catalogstore.Options{NoAudit: true}), b: b, ws: "w" + metatest.UniqueName()}
			if _, err := e.cat.CreateWorkspace(ctx, e.ws, "tester"); err != nil {
				t.Fatal(err)
			}
			if err := e.cat.CheckNotLost(ctx); err != nil {
				t.Fatalf("a metastore with a workspace: %v", err)
			}
			ds := e.dataset(t, "c", "t")
			if _, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{fakeFile(ds, 1, 3)}, ExpectedUUID: ds.UUID, Author: "tester"}); err != nil {
				t.Fatal(err)
			}
			err = lost.CheckNotLost(ctx)
			if !errors.Is(err, catalogstore.ErrMetastoreLost) || !strings.Contains(err.Error(), ds.Location+"/metadata/manifest-") {
				t.Fatalf("empty metastore over a dataset: %v, want ErrMetastoreLost naming its manifest", err)
			}
		})
	}
}
