package gcs_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/google/uuid"
	"google.golang.org/api/googleapi"
)

// testBucket is the bucket the tests use; each test works under its own
// unique prefix in it, so an external emulator may be shared and reused.
const testBucket = "lakesql-test"

// emulator points STORAGE_EMULATOR_HOST at a GCS emulator and returns a
// client made the way Open makes one (JSON-API reads), with testBucket
// created. An emulator already named by STORAGE_EMULATOR_HOST (as .ci/run
// starts one) is used as is; otherwise fake-gcs-server runs in-process,
// without a public host: lakesql must not need one.
func emulator(t *testing.T) *storage.Client {
	t.Helper()
	external := os.Getenv("STORAGE_EMULATOR_HOST")
	if external == "" {
		srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
			Scheme: "http", Host: "127.0.0.1", Port: 0, NoListener: false, Writer: io.Discard,
		})
		if err != nil {
			t.Fatalf("start fake-gcs-server: %v", err)
		}
		t.Cleanup(srv.Stop)
		t.Setenv("STORAGE_EMULATOR_HOST", srv.URL())
	}
	client, err := storage.NewClient(t.Context(), storage.WithJSONReads())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	err = client.Bucket(testBucket).Create(t.Context(), "lakesql-test-project", nil)
	var ge *googleapi.Error
	if err != nil && !(errors.As(err, &ge) && ge.Code == http.StatusConflict) {
		t.Fatalf("create bucket %s on the emulator at STORAGE_EMULATOR_HOST=%s: %v", testBucket, os.Getenv("STORAGE_EMULATOR_HOST"), err)
	}
	return client
}

// uniquePrefix returns a prefix no other test or run uses.
func uniquePrefix(t *testing.T) string {
	return "test-" + uuid.NewString()
}
