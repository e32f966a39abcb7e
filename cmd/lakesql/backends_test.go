package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
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

// TestRun_FirestoreAndGCS: with the production flags on the emulators
// (fake-gcs-server in-process, without a public host) the first run names
// the shared catalog, not a "new warehouse" folder, and a second run reads
// what the first wrote.
func TestRun_FirestoreAndGCS(t *testing.T) {
	if os.Getenv("FIRESTORE_EMULATOR_HOST") == "" {
		const msg = `FIRESTORE_EMULATOR_HOST not set: run eval "$(scripts/firestore-emulator.sh start)"`
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	t.Setenv("STORAGE_EMULATOR_HOST", srv.URL())
	project := fmt.Sprintf("cli-%d", time.Now().UnixNano())
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: project})
	wh := filepath.Join(t.TempDir(), "lake")
	flags := []string{"--warehouse", wh, "--metastore", "firestore://" + project, "--storage", "gs://" + project + "/lake"}
	_, stderr, err := runCLI(t, "", append(flags, "-e", "CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1), (2)")...)
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr)
	}
	want := fmt.Sprintf(`new catalog in firestore://%s (data in gs://%s/lake): created workspace "main"`, project, project)
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "new warehouse") {
		t.Errorf("stderr %q: want %q", stderr, want)
	}
	out, stderr, err := runCLI(t, "", append(flags, "--format", "tsv", "-e", "SELECT SUM(a) FROM d.t")...)
	if err != nil || out != "SUM(a)\n3\n" {
		t.Fatalf("second run: %q, %v\n%s", out, err, stderr)
	}
	if _, err := os.Stat(wh); !os.IsNotExist(err) {
		t.Errorf("the production flags created the local warehouse %s (%v)", wh, err)
	}
	checkIcebergOnGCS(t, srv, project, flags)
	checkAddFilesInPlaceOnGCS(t, flags, project)
}

// checkAddFilesInPlaceOnGCS: with the warehouse on GCS, add_files of a
// gs:// file inside the warehouse's bucket and prefix registers it where
// it is (issue 20 item 1), not as a copy under the table's data/.
func checkAddFilesInPlaceOnGCS(t *testing.T, flags []string, bucket string) {
	t.Helper()
	uri := "gs://" + bucket + "/lake/incoming/t.parquet"
	q := "CALL export_parquet('d.t', '" + uri + "'); CREATE TABLE d.u (a INT); CALL add_files('d.u', '" + uri + "'); " +
		"SELECT COUNT(*), SUM(a) FROM d.u; SELECT path FROM d.`u$files`"
	out, stderr, err := runCLI(t, "", append(flags, "--format", "tsv", "-e", q)...)
	if err != nil {
		t.Fatalf("add_files over gs://: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "COUNT(*)\tSUM(a)\n2\t3\n") || !strings.Contains(out, "path\nincoming/t.parquet\n") {
		t.Errorf("add_files over gs://: want 2 rows summing to 3 from incoming/t.parquet, registered in place:\n%s", out)
	}
}

// checkIcebergOnGCS: over gs:// storage the Iceberg export (issue 19)
// writes its metadata into the bucket, and every location in it is a
// gs:// URI an engine outside lakesql can open: the metadata.json's
// table location and manifest list, and version-hint.text naming it.
func checkIcebergOnGCS(t *testing.T, srv *fakestorage.Server, bucket string, flags []string) {
	t.Helper()
	out, stderr, err := runCLI(t, "", append(flags, "--format", "tsv", "-e", "CALL iceberg_metadata('d.t')")...)
	if err != nil {
		t.Fatalf("CALL iceberg_metadata: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	loc, _, _ := strings.Cut(lines[len(lines)-1], "\t")
	prefix := "gs://" + bucket + "/lake/"
	if !strings.HasPrefix(loc, prefix) || !strings.HasSuffix(loc, ".metadata.json") {
		t.Fatalf("metadata location %q, want a gs:// URI under %s", loc, prefix)
	}
	read := func(uri string) []byte {
		t.Helper()
		obj, err := srv.GetObject(bucket, strings.TrimPrefix(uri, "gs://"+bucket+"/"))
		if err != nil {
			t.Fatalf("read %s from the bucket: %v", uri, err)
		}
		return obj.Content
	}
	var md struct {
		Location  string `json:"location"`
		Snapshots []struct {
			ManifestList string `json:"manifest-list"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal(read(loc), &md); err != nil {
		t.Fatalf("metadata.json: %v", err)
	}
	if !strings.HasPrefix(md.Location, prefix) || len(md.Snapshots) == 0 {
		t.Fatalf("metadata.json: location %q, %d snapshots; want a gs:// location and the table's snapshot", md.Location, len(md.Snapshots))
	}
	for _, s := range md.Snapshots {
		if !strings.HasPrefix(s.ManifestList, prefix) || len(read(s.ManifestList)) == 0 {
			t.Errorf("manifest list %q: want a non-empty object under %s", s.ManifestList, prefix)
		}
	}
	dir := loc[:strings.LastIndex(loc, "/")]
	if hint := strings.TrimSpace(string(read(dir + "/version-hint.text"))); !strings.HasSuffix(loc, "/v"+hint+".metadata.json") {
		t.Errorf("version-hint.text %q does not name %s", hint, loc)
	}
}
