package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/lakesql/lakesql/engine"
)

// TestIcebergREST_OnGCS: with production storage (Firestore emulator,
// fake-gcs-server without a public host) the REST catalog (issue 19 item
// 2) answers gs:// locations, and the metadata.json and manifest lists it
// names are objects in the bucket.
func TestIcebergREST_OnGCS(t *testing.T) {
	if os.Getenv("FIRESTORE_EMULATOR_HOST") == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FIRESTORE_EMULATOR_HOST is not set; CI runs this on the Firestore emulator")
		}
		t.Skip("FIRESTORE_EMULATOR_HOST not set")
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	t.Setenv("STORAGE_EMULATOR_HOST", srv.URL())
	bucket := fmt.Sprintf("rest-%d", time.Now().UnixNano())
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true,
		Metastore: "firestore://" + bucket, Storage: "gs://" + bucket + "/lake"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	mustRun(t, embedded(t, e), "CREATE DATABASE c", "CREATE TABLE c.t (id BIGINT)", "INSERT INTO c.t VALUES (1), (2)")
	h, err := e.IcebergRESTHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(h)
	t.Cleanup(rs.Close)
	resp, err := http.Get(rs.URL + "/v1/main/namespaces/c/tables/t")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var load struct {
		MetadataLocation string `json:"metadata-location"`
		Metadata         struct {
			Location  string `json:"location"`
			Snapshots []struct {
				ManifestList string `json:"manifest-list"`
			} `json:"snapshots"`
		} `json:"metadata"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&load); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("load table: %d %v", resp.StatusCode, err)
	}
	prefix := "gs://" + bucket + "/lake/"
	exists := func(uri string) bool {
		_, err := srv.GetObject(bucket, strings.TrimPrefix(uri, "gs://"+bucket+"/"))
		return strings.HasPrefix(uri, prefix) && err == nil
	}
	if !exists(load.MetadataLocation) || !strings.HasPrefix(load.Metadata.Location, prefix) || len(load.Metadata.Snapshots) != 1 {
		t.Fatalf("load table: metadata-location %q, location %q, %d snapshots; want gs:// objects under %s and one snapshot",
			load.MetadataLocation, load.Metadata.Location, len(load.Metadata.Snapshots), prefix)
	}
	if ml := load.Metadata.Snapshots[0].ManifestList; !exists(ml) {
		t.Errorf("manifest list %q: want an object under %s", ml, prefix)
	}
}
