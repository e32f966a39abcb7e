// Package blobtest is the contract suite that every blob.Store backend
// passes: call Run from the backend's conformance_test.go.
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// Run runs one subtest per behaviour of blob.Store. newStore must return an
// empty store each time it is called (a fresh folder, a unique prefix) and
// register its own clean-up with t.Cleanup; Run closes the store.
func Run(t *testing.T, newStore func(t *testing.T) blob.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s blob.Store)
	}{
		{"StartsEmpty", testStartsEmpty},
		{"PutGet", testPutGet},
		{"Overwrite", testOverwrite},
		{"IfNotExists", testIfNotExists},
		{"IfNotExistsAfterDelete", testIfNotExistsAfterDelete},
		{"IfNotExistsConcurrent", testIfNotExistsConcurrent},
		{"FailedPutPublishesNothing", testFailedPut},
		{"CanceledPut", testCanceledPut},
		{"ReadAt", testReadAt},
		{"ReadAtParallel", testReadAtParallel},
		{"Stat", testStat},
		{"List", testList},
		{"Delete", testDelete},
		{"ConcurrentPutDelete", testConcurrentPutDelete},
		{"NotFound", testNotFound},
		{"BadKeys", testBadKeys},
		{"EmptyObject", testEmptyObject},
		{"LargeObject", testLargeObject},
		{"ReaderAtAdapter", testReaderAt},
		{"URI", testURI},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, s)
		})
	}
}

// payload returns n deterministic pseudo-random bytes, different per seed.
func payload(seed uint64, n int) []byte {
	r := rand.New(rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), 1}))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func mustPut(t *testing.T, s blob.Store, key string, data []byte) {
	t.Helper()
	if err := s.Put(t.Context(), key, bytes.NewReader(data), blob.PutOptions{}); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func wantContent(t *testing.T, s blob.Store, key string, want []byte) {
	t.Helper()
	got, err := s.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %d bytes %.16q..., want %d bytes %.16q...", key, len(got), got, len(want), want)
	}
}

func wantNotFound(t *testing.T, s blob.Store, key string) {
	t.Helper()
	if _, err := s.Get(t.Context(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get(%q) error = %v, want ErrNotFound", key, err)
	}
	if _, err := s.Stat(t.Context(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Stat(%q) error = %v, want ErrNotFound", key, err)
	}
}

func listKeys(t *testing.T, s blob.Store, prefix string) []string {
	t.Helper()
	infos, err := s.List(t.Context(), prefix)
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	keys := []string{}
	for _, in := range infos {
		keys = append(keys, in.Key)
	}
	return keys
}

func testStartsEmpty(t *testing.T, s blob.Store) {
	if keys := listKeys(t, s, ""); len(keys) != 0 {
		t.Fatalf("new store lists %q, want nothing (newStore must return an empty store)", keys)
	}
}

func testPutGet(t *testing.T, s blob.Store) {
	for i, key := range []string{"k", "a/b/c.parquet", "ws/coll/ds-3f2c/data/9a1e.parquet", "dots.in.name/x..y", "spaces and ünïcode/ключ"} {
		data := payload(uint64(i), 100+i)
		mustPut(t, s, key, data)
		wantContent(t, s, key, data)
	}
}

func testOverwrite(t *testing.T, s blob.Store) {
	v1, v2 := payload(1, 1000), payload(2, 10)
	mustPut(t, s, "o/k", v1)
	mustPut(t, s, "o/k", v2)
	wantContent(t, s, "o/k", v2)
	info, err := s.Stat(t.Context(), "o/k")
	if err != nil || info.Size != int64(len(v2)) {
		t.Fatalf("Stat after overwrite = %+v, %v; want size %d", info, err, len(v2))
	}
	if keys := listKeys(t, s, ""); !slices.Equal(keys, []string{"o/k"}) {
		t.Fatalf("List = %q, want [o/k]", keys)
	}
}

func testIfNotExists(t *testing.T, s blob.Store) {
	ctx := t.Context()
	first, second := payload(1, 64), payload(2, 64)
	create := blob.PutOptions{IfNotExists: true}
	if err := s.Put(ctx, "c/k", bytes.NewReader(first), create); err != nil {
		t.Fatalf("first create-only Put: %v", err)
	}
	err := s.Put(ctx, "c/k", bytes.NewReader(second), create)
	if !errors.Is(err, blob.ErrExists) {
		t.Fatalf("second create-only Put error = %v, want ErrExists", err)
	}
	wantContent(t, s, "c/k", first)
	// A plain Put still overwrites.
	mustPut(t, s, "c/k", second)
	wantContent(t, s, "c/k", second)
}

func testIfNotExistsAfterDelete(t *testing.T, s blob.Store) {
	ctx := t.Context()
	create := blob.PutOptions{IfNotExists: true}
	mustPut(t, s, "c/k", payload(1, 8))
	if err := s.Delete(ctx, "c/k"); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "c/k", bytes.NewReader(payload(2, 8)), create); err != nil {
		t.Fatalf("create-only Put after Delete: %v", err)
	}
	wantContent(t, s, "c/k", payload(2, 8))
}

// testIfNotExistsConcurrent races create-only Puts of different content to
// one key: exactly one wins, the others get ErrExists, and the object holds
// the winner's bytes.
func testIfNotExistsConcurrent(t *testing.T, s blob.Store) {
	const writers, rounds = 16, 5
	for round := range rounds {
		key := fmt.Sprintf("race/%d/manifest.json", round)
		errs := make([]error, writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				<-start
				errs[w] = s.Put(t.Context(), key, bytes.NewReader(payload(uint64(w), 4096)), blob.PutOptions{IfNotExists: true})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for w, err := range errs {
			switch {
			case err == nil:
				if winner >= 0 {
					t.Fatalf("round %d: writers %d and %d both created %s", round, winner, w, key)
				}
				winner = w
			case !errors.Is(err, blob.ErrExists):
				t.Fatalf("round %d: writer %d: %v, want nil or ErrExists", round, w, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer created %s", round, key)
		}
		wantContent(t, s, key, payload(uint64(winner), 4096))
	}
}

// failingReader yields n bytes of data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

var errReader = errors.New("reader broke")

// testFailedPut checks that a Put whose reader fails midway publishes
// nothing: no new object, and an old object keeps its content.
func testFailedPut(t *testing.T, s blob.Store) {
	ctx := t.Context()
	for _, opts := range []blob.PutOptions{{}, {IfNotExists: true}} {
		key := fmt.Sprintf("f/new-%v", opts.IfNotExists)
		err := s.Put(ctx, key, &failingReader{data: payload(1, 300<<10), err: errReader}, opts)
		if !errors.Is(err, errReader) {
			t.Fatalf("Put(%q, %+v) with a failing reader: error = %v, want it to wrap the reader's error", key, opts, err)
		}
		wantNotFound(t, s, key)
	}
	old := payload(2, 100)
	mustPut(t, s, "f/old", old)
	if err := s.Put(ctx, "f/old", &failingReader{data: payload(3, 300<<10), err: errReader}, blob.PutOptions{}); err == nil {
		t.Fatal("overwriting Put with a failing reader succeeded")
	}
	wantContent(t, s, "f/old", old)
	if keys := listKeys(t, s, ""); !slices.Equal(keys, []string{"f/old"}) {
		t.Fatalf("List = %q, want only [f/old]: a failed Put left something visible", keys)
	}
}

func testCanceledPut(t *testing.T, s blob.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Put(ctx, "x/canceled", bytes.NewReader(payload(1, 10)), blob.PutOptions{}); err == nil {
		t.Fatal("Put with a canceled context succeeded")
	}
	wantNotFound(t, s, "x/canceled")
}

func testReadAt(t *testing.T, s blob.Store) {
	data := payload(7, 100)
	mustPut(t, s, "r/obj", data)
	tests := []struct {
		name    string
		off     int64
		len     int
		wantN   int
		wantEOF bool // io.EOF required; otherwise nil, or io.EOF when the read ends exactly at the end
	}{
		{"head", 0, 10, 10, false},
		{"middle", 37, 20, 20, false},
		{"whole", 0, 100, 100, false},
		{"ends at end", 90, 10, 10, false},
		{"crosses end", 95, 10, 5, true},
		{"bigger than object", 0, 150, 100, true},
		{"at end", 100, 10, 0, true},
		{"past end", 250, 10, 0, true},
		{"zero length", 40, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := make([]byte, tc.len)
			n, err := s.ReadAt(t.Context(), "r/obj", p, tc.off)
			if n != tc.wantN {
				t.Fatalf("ReadAt(len %d, off %d) n = %d, want %d (err %v)", tc.len, tc.off, n, tc.wantN, err)
			}
			atEnd := tc.off+int64(tc.len) == int64(len(data)) && tc.len > 0
			switch {
			case tc.wantEOF && err != io.EOF:
				t.Fatalf("ReadAt(len %d, off %d) error = %v, want io.EOF (unwrapped)", tc.len, tc.off, err)
			case !tc.wantEOF && err != nil && !(atEnd && err == io.EOF):
				t.Fatalf("ReadAt(len %d, off %d) error = %v, want nil", tc.len, tc.off, err)
			}
			if lo := min(tc.off, int64(len(data))); !bytes.Equal(p[:n], data[lo:lo+int64(n)]) {
				t.Fatalf("ReadAt(len %d, off %d) = %q, want %q", tc.len, tc.off, p[:n], data[lo:lo+int64(n)])
			}
		})
	}
	if _, err := s.ReadAt(t.Context(), "r/obj", make([]byte, 4), -1); err == nil {
		t.Fatal("ReadAt at offset -1 succeeded")
	}
}

func testReadAtParallel(t *testing.T, s blob.Store) {
	data := payload(8, 256<<10)
	mustPut(t, s, "r/par", data)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Go(func() {
			off := int64(g * 8000)
			p := make([]byte, 7000)
			n, err := s.ReadAt(t.Context(), "r/par", p, off)
			if err != nil && err != io.EOF || n != len(p) || !bytes.Equal(p, data[off:off+int64(n)]) {
				errs <- fmt.Errorf("reader %d: n=%d err=%v or wrong bytes", g, n, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testStat(t *testing.T, s blob.Store) {
	before := time.Now().Add(-time.Hour) // clocks of a remote store may differ a little
	mustPut(t, s, "s/obj", payload(1, 1234))
	info, err := s.Stat(t.Context(), "s/obj")
	if err != nil {
		t.Fatal(err)
	}
	if info.Key != "s/obj" || info.Size != 1234 {
		t.Fatalf("Stat = %+v, want key s/obj, size 1234", info)
	}
	if info.ModTime.Before(before) || info.ModTime.After(time.Now().Add(time.Hour)) {
		t.Fatalf("Stat ModTime = %v, want about now", info.ModTime)
	}
}

func testList(t *testing.T, s blob.Store) {
	sizes := map[string]int{
		"a/bc": 1, "a/b/c": 2, "a/b/d/e": 3, "a/c": 4, "ab": 5, "b/x": 6, "a-b": 7,
	}
	for k, n := range sizes {
		mustPut(t, s, k, payload(uint64(n), n))
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a-b", "a/b/c", "a/b/d/e", "a/bc", "a/c", "ab", "b/x"}},
		{"a", []string{"a-b", "a/b/c", "a/b/d/e", "a/bc", "a/c", "ab"}},
		{"a/", []string{"a/b/c", "a/b/d/e", "a/bc", "a/c"}},
		{"a/b", []string{"a/b/c", "a/b/d/e", "a/bc"}}, // not a folder: "a/b" matches "a/bc"
		{"a/b/", []string{"a/b/c", "a/b/d/e"}},
		{"a/b/d/e", []string{"a/b/d/e"}}, // a whole key
		{"a/b/d/e/", nil},
		{"a/x/", nil},
		{"zzz", nil},
		{"../a", nil},
		{"/a", nil},
	}
	for _, tc := range tests {
		infos, err := s.List(t.Context(), tc.prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", tc.prefix, err)
		}
		var got []string
		for _, in := range infos {
			got = append(got, in.Key)
			if in.Size != int64(sizes[in.Key]) {
				t.Errorf("List(%q): %s has size %d, want %d", tc.prefix, in.Key, in.Size, sizes[in.Key])
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
	}
}

func testDelete(t *testing.T, s blob.Store) {
	ctx := t.Context()
	mustPut(t, s, "d/x/1", payload(1, 10))
	mustPut(t, s, "d/x/2", payload(2, 10))
	if err := s.Delete(ctx, "d/x/1"); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, s, "d/x/1")
	if _, err := s.ReadAt(ctx, "d/x/1", make([]byte, 1), 0); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("ReadAt after Delete: %v, want ErrNotFound", err)
	}
	wantContent(t, s, "d/x/2", payload(2, 10))
	if err := s.Delete(ctx, "d/x/1"); err != nil {
		t.Fatalf("second Delete: %v, want nil", err)
	}
	if err := s.Delete(ctx, "never/was/there"); err != nil {
		t.Fatalf("Delete of a missing key: %v, want nil", err)
	}
	if err := s.Delete(ctx, "d/x/2"); err != nil {
		t.Fatal(err)
	}
	if keys := listKeys(t, s, ""); len(keys) != 0 {
		t.Fatalf("List after deleting everything = %q", keys)
	}
	// The now-empty "folders" can be written again.
	mustPut(t, s, "d/x/3", payload(3, 10))
	wantContent(t, s, "d/x/3", payload(3, 10))
}

// testConcurrentPutDelete puts and deletes sibling keys from many
// goroutines, so a backend that prunes empty folders races its own Puts.
func testConcurrentPutDelete(t *testing.T, s blob.Store) {
	const workers, iters = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range iters {
				key := fmt.Sprintf("cpd/shared/%d/%d", i%3, w)
				data := payload(uint64(w*iters+i), 32)
				if err := s.Put(t.Context(), key, bytes.NewReader(data), blob.PutOptions{IfNotExists: i%2 == 0}); err != nil {
					errs <- fmt.Errorf("worker %d: Put: %w", w, err)
					return
				}
				got, err := s.Get(t.Context(), key)
				if err != nil || !bytes.Equal(got, data) {
					errs <- fmt.Errorf("worker %d: Get %s = %d bytes, %v", w, key, len(got), err)
					return
				}
				if err := s.Delete(t.Context(), key); err != nil {
					errs <- fmt.Errorf("worker %d: Delete: %w", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if keys := listKeys(t, s, ""); len(keys) != 0 {
		t.Fatalf("List after all deletes = %q", keys)
	}
}

func testNotFound(t *testing.T, s blob.Store) {
	ctx := t.Context()
	mustPut(t, s, "nf/dir/obj", payload(1, 3))
	for _, key := range []string{"missing", "nf/dir", "nf/dir/obj/below", "nf/dir/ob"} {
		wantNotFound(t, s, key)
		for _, n := range []int{4, 0} {
			if _, err := s.ReadAt(ctx, key, make([]byte, n), 0); !errors.Is(err, blob.ErrNotFound) {
				t.Fatalf("ReadAt(%q, len %d) error = %v, want ErrNotFound", key, n, err)
			}
		}
	}
}

func testBadKeys(t *testing.T, s blob.Store) {
	ctx := t.Context()
	for _, key := range []string{"", "/abs", "../escape", "a/../../escape", "a/..", "./a", "a/./b", "a//b", "a/", "back\\slash", "nl\nkey"} {
		if err := s.Put(ctx, key, bytes.NewReader([]byte("x")), blob.PutOptions{}); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Put(%q) error = %v, want ErrBadKey", key, err)
		}
		if _, err := s.Get(ctx, key); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Get(%q) error = %v, want ErrBadKey", key, err)
		}
		if _, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Stat(%q) error = %v, want ErrBadKey", key, err)
		}
		if _, err := s.ReadAt(ctx, key, make([]byte, 1), 0); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("ReadAt(%q) error = %v, want ErrBadKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, blob.ErrBadKey) {
			t.Errorf("Delete(%q) error = %v, want ErrBadKey", key, err)
		}
	}
	if keys := listKeys(t, s, ""); len(keys) != 0 {
		t.Fatalf("bad keys left objects: %q", keys)
	}
}

func testEmptyObject(t *testing.T, s blob.Store) {
	ctx := t.Context()
	mustPut(t, s, "e/empty", nil)
	got, err := s.Get(ctx, "e/empty")
	if err != nil || len(got) != 0 {
		t.Fatalf("Get(empty) = %q, %v; want no bytes, nil", got, err)
	}
	info, err := s.Stat(ctx, "e/empty")
	if err != nil || info.Size != 0 {
		t.Fatalf("Stat(empty) = %+v, %v", info, err)
	}
	if n, err := s.ReadAt(ctx, "e/empty", make([]byte, 8), 0); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt(empty) = %d, %v; want 0, io.EOF", n, err)
	}
	infos, err := s.List(ctx, "e/")
	if err != nil || len(infos) != 1 || infos[0].Key != "e/empty" || infos[0].Size != 0 {
		t.Fatalf("List(e/) = %+v, %v", infos, err)
	}
	if err := s.Put(ctx, "e/empty", bytes.NewReader(nil), blob.PutOptions{IfNotExists: true}); !errors.Is(err, blob.ErrExists) {
		t.Fatalf("create-only Put over an empty object: %v, want ErrExists", err)
	}
}

func testLargeObject(t *testing.T, s blob.Store) {
	const size = 6<<20 + 12345 // several MB and not a multiple of any buffer size
	data := payload(9, size)
	mustPut(t, s, "big/obj", data)
	wantContent(t, s, "big/obj", data)
	info, err := s.Stat(t.Context(), "big/obj")
	if err != nil || info.Size != size {
		t.Fatalf("Stat = %+v, %v; want size %d", info, err, size)
	}
	for _, off := range []int64{0, 1 << 20, 3<<20 - 7, size - 1000} {
		p := make([]byte, 4096)
		n, err := s.ReadAt(t.Context(), "big/obj", p, off)
		want := data[off:min(off+4096, size)]
		if n != len(want) || !bytes.Equal(p[:n], want) || (err != nil && !(err == io.EOF && n < len(p))) {
			t.Fatalf("ReadAt(off %d) = %d, %v or wrong bytes", off, n, err)
		}
	}
}

func testReaderAt(t *testing.T, s blob.Store) {
	data := payload(10, 5000)
	mustPut(t, s, "ra/obj", data)
	r := blob.NewReaderAt(t.Context(), s, "ra/obj", int64(len(data)))
	if r.Size() != 5000 {
		t.Fatalf("Size = %d", r.Size())
	}
	if end, err := r.Seek(0, io.SeekEnd); end != 5000 || err != nil {
		t.Fatalf("Seek(0, SeekEnd) = %d, %v", end, err)
	}
	if pos, err := r.Seek(-8, io.SeekCurrent); pos != 4992 || err != nil {
		t.Fatalf("Seek(-8, SeekCurrent) = %d, %v", pos, err)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Fatal("Seek to -1 succeeded")
	}
	// A footer read, as a Parquet reader does it.
	footer := make([]byte, 8)
	if n, err := r.ReadAt(footer, r.Size()-8); n != 8 || (err != nil && err != io.EOF) || !bytes.Equal(footer, data[4992:]) {
		t.Fatalf("footer ReadAt = %d, %v", n, err)
	}
	got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("SectionReader over the adapter = %d bytes, %v", len(got), err)
	}
	if n, err := r.ReadAt(make([]byte, 10), 4995); n != 5 || err != io.EOF {
		t.Fatalf("ReadAt across the end = %d, %v; want 5, io.EOF", n, err)
	}
}

func testURI(t *testing.T, s blob.Store) {
	u := s.URI()
	if !(len(u) > len("file:///") && strings.HasPrefix(u, "file:///")) && !(len(u) > len("gs://") && strings.HasPrefix(u, "gs://")) {
		t.Fatalf("URI() = %q, want file:///... or gs://...", u)
	}
}
