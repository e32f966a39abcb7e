package gcs_test

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/gcs"
)

func TestOpen_BadURI(t *testing.T) {
	for _, uri := range []string{
		"", "bucket/prefix", "gs://", "gs:///prefix", "gs:bucket/prefix", "s3://bucket/prefix",
		"file:///tmp/lake", "gs://Bucket/p", "gs://b/p", "gs://-bucket/p", "gs://buck$et/p",
		"gs://user@bucket/p", "gs://bucket:443/p", "gs://bucket/p?x=1", "gs://bucket/p#f",
		"gs://bucket/a//b", "gs://bucket//", "gs://bucket/../p", "gs://bucket/a/./b", "gs://bucket/.tmp/p",
	} {
		s, err := gcs.Open(t.Context(), uri)
		if !errors.Is(err, blob.ErrBadURI) {
			t.Errorf("Open(%q) = %v, %v; want ErrBadURI", uri, s, err)
		}
	}
}

// TestOpen_UsesEmulatorHost opens stores by URI with no client options: the
// client must find the emulator through STORAGE_EMULATOR_HOST.
func TestOpen_UsesEmulatorHost(t *testing.T) {
	emulator(t)
	run := uniquePrefix(t)
	tests := []struct{ uri, wantURI, object string }{
		{"gs://" + testBucket + "/" + run + "/lake", "gs://" + testBucket + "/" + run + "/lake", run + "/lake/k"},
		{"gs://" + testBucket + "/" + run + "/slash/", "gs://" + testBucket + "/" + run + "/slash", run + "/slash/k"},
	}
	raw := rawClient(t)
	for _, tc := range tests {
		s, err := gcs.Open(t.Context(), tc.uri)
		if err != nil {
			t.Fatalf("Open(%q): %v", tc.uri, err)
		}
		if got := s.URI(); got != tc.wantURI {
			t.Errorf("URI() = %q, want %q", got, tc.wantURI)
		}
		if err := s.Put(t.Context(), "k", strings.NewReader(tc.uri), blob.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		attrs, err := raw.Bucket(testBucket).Object(tc.object).Attrs(t.Context())
		if err != nil || attrs.Size != int64(len(tc.uri)) {
			t.Fatalf("object %s = %+v, %v; want the Put", tc.object, attrs, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s, err := gcs.Open(t.Context(), "gs://"+testBucket)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.URI(); got != "gs://"+testBucket {
		t.Errorf("URI() = %q", got)
	}
	got, err := s.Get(t.Context(), run+"/lake/k")
	if err != nil || string(got) != tests[0].uri {
		t.Fatalf("Get through the bucket-wide store = %q, %v", got, err)
	}
	// A ranged read through Open's own client, on an emulator without a
	// public host (emulator): reads must not depend on one.
	part := make([]byte, 3)
	if n, err := s.ReadAt(t.Context(), run+"/lake/k", part, 1); err != nil || string(part[:n]) != tests[0].uri[1:4] {
		t.Fatalf("ReadAt through Open's client = %q, %v; want %q", part[:n], err, tests[0].uri[1:4])
	}
}

func rawClient(t *testing.T) *storage.Client {
	c, err := storage.NewClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func writeRaw(t *testing.T, c *storage.Client, name, data string) {
	t.Helper()
	w := c.Bucket(testBucket).Object(name).NewWriter(t.Context())
	if _, err := w.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
}

// TestList_StaysInsideThePrefix checks that prefix "p" does not see "px/...",
// that keys come back without the prefix, and that names which are not keys
// (console "folder/" placeholders) are left out.
func TestList_StaysInsideThePrefix(t *testing.T) {
	client := emulator(t)
	run := uniquePrefix(t)
	writeRaw(t, client, run+"/p/a", "1")
	writeRaw(t, client, run+"/p/dir/", "")
	writeRaw(t, client, run+"/p/dir/b", "22")
	writeRaw(t, client, run+"/px/c", "333")
	s := gcs.NewWithClient(client, testBucket, "/"+run+"/p/")
	infos, err := s.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, in := range infos {
		keys = append(keys, in.Key)
	}
	if want := []string{"a", "dir/b"}; !slices.Equal(keys, want) {
		t.Fatalf("List = %q, want %q", keys, want)
	}
	if infos[1].Size != 2 {
		t.Fatalf("size of dir/b = %d", infos[1].Size)
	}
	if _, err := s.Get(t.Context(), "../px/c"); !errors.Is(err, blob.ErrBadKey) {
		t.Fatalf("Get(../px/c) error = %v, want ErrBadKey", err)
	}
}

// TestEmulator_HonoursDoesNotExist pins what the IfNotExists tests rely on:
// the emulator answers ifGenerationMatch=0 on an existing object with 412,
// for single-request and for resumable (chunked) uploads.
func TestEmulator_HonoursDoesNotExist(t *testing.T) {
	client := emulator(t)
	for _, chunk := range []int{0, 256 << 10} { // 0: one request; else resumable
		name := uniquePrefix(t) + "/obj"
		put := func(data []byte) error {
			w := client.Bucket(testBucket).Object(name).If(storage.Conditions{DoesNotExist: true}).NewWriter(t.Context())
			w.ChunkSize = chunk
			if _, err := w.Write(data); err != nil {
				w.Close()
				return err
			}
			return w.Close()
		}
		first := bytes.Repeat([]byte("a"), 600<<10)
		if err := put(first); err != nil {
			t.Fatalf("chunk %d: first create-only write: %v", chunk, err)
		}
		err := put(bytes.Repeat([]byte("b"), 600<<10))
		var ge *googleapi.Error
		if !errors.As(err, &ge) || ge.Code != http.StatusPreconditionFailed {
			t.Fatalf("chunk %d: second create-only write: %v, want HTTP 412", chunk, err)
		}
		s := gcs.NewWithClient(client, testBucket, "")
		got, err := s.Get(t.Context(), name)
		if err != nil || !bytes.Equal(got, first) {
			t.Fatalf("chunk %d: object after refused write: %d bytes, %v; want the first", chunk, len(got), err)
		}
	}
}
