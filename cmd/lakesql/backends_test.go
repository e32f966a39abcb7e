package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_RefusesMismatchedBackends: gs:// storage over a local metastore,
// and Firestore over local files, are refused with the reason and the
// flag that fixes it, before anything is opened or created.
func TestRun_RefusesMismatchedBackends(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"gcs storage, default sqlite", []string{"--storage", "gs://bucket/lake"},
			[]string{"--storage gs://bucket/lake is shared", "lakesql.db", "add --metastore firestore://"}},
		{"gcs storage, sqlite path", []string{"--metastore", "sqlite:/tmp/x.db", "--storage", "gs://bucket/lake"},
			[]string{"local SQLite file /tmp/x.db", "add --metastore firestore://"}},
		{"firestore, default folder", []string{"--metastore", "firestore://proj"},
			[]string{"--metastore firestore://proj is shared", "local folder", "add --storage gs://"}},
		{"firestore, local storage", []string{"--metastore", "firestore://proj/db", "--storage", "/srv/lake"},
			[]string{"local folder /srv/lake", "add --storage gs://"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wh := filepath.Join(t.TempDir(), "lake")
			for _, verb := range [][]string{{"-e", "SELECT 1"}, {"serve"}, {"compact", "d.t"}} {
				args := append(append([]string{"--warehouse", wh}, c.args...), verb...)
				_, _, err := runCLI(t, "", args...)
				if !errors.Is(err, errBackendMismatch) {
					t.Fatalf("%v: %v, want errBackendMismatch", args, err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%v: %q lacks %q", args, err, w)
					}
				}
			}
			if _, err := os.Stat(wh); !os.IsNotExist(err) {
				t.Errorf("the refused run created %s (%v)", wh, err)
			}
		})
	}
}

// TestGlobalFlags_Describe: the CLI names what it created by where the
// catalog lives: the warehouse folder only when it is the embedded
// default.
func TestGlobalFlags_Describe(t *testing.T) {
	for _, c := range []struct {
		g    globalFlags
		want string
	}{
		{globalFlags{warehouse: "lake"}, "warehouse lake"},
		{globalFlags{warehouse: "lake", metastore: "firestore://p", storage: "gs://b/l"}, "catalog in firestore://p (data in gs://b/l)"},
		{globalFlags{warehouse: "lake", metastore: "sqlite:/x.db", storage: "/srv/lake"}, "catalog in sqlite:/x.db (data in /srv/lake)"},
	} {
		if got := c.g.describe(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.g, got, c.want)
		}
	}
}
