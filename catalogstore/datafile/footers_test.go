package datafile_test

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// readCounter counts ReadAt calls.
type readCounter struct {
	*memStore
	reads atomic.Int64
}

func (c *readCounter) ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.memStore.ReadAt(ctx, key, p, off)
}

// TestFooterCache: a cached footer opens a file without reading it; the
// cache keeps at most its limit, least recently used out; readers
// sharing a cached footer read concurrently (run with -race).
func TestFooterCache(t *testing.T) {
	ctx := context.Background()
	st := &readCounter{memStore: newMemStore()}
	var files []manifest.DataFile
	for _, key := range []string{"t/data/a.parquet", "t/data/b.parquet"} {
		f, _ := writeVocab(t, st, key)
		files = append(files, f)
	}
	ids := []int{5, 12, 13, 15}
	open := func(c *datafile.FooterCache, f manifest.DataFile) int64 {
		t.Helper()
		before := st.reads.Load()
		r, err := datafile.OpenWith(ctx, st, f, &vocab, ids, datafile.ReadOptions{Footers: c})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		return st.reads.Load() - before
	}
	c := datafile.NewFooterCache(datafile.DefaultFooterBytes)
	if n := open(c, files[0]); n == 0 {
		t.Fatal("the first open read nothing")
	}
	if n := open(c, files[0]); n != 0 {
		t.Errorf("an open with the footer cached read %d times", n)
	}
	if n := open(nil, files[0]); n == 0 {
		t.Errorf("an open without a cache read nothing")
	}
	// A cache with room for one footer keeps the latest.
	obj := st.objs[files[0].Path]
	one := datafile.NewFooterCache(int64(binary.LittleEndian.Uint32(obj[len(obj)-8:])))
	open(one, files[0])
	open(one, files[1])
	if n := open(one, files[1]); n != 0 {
		t.Errorf("the most recent footer was not kept")
	}
	if n := open(one, files[0]); n == 0 {
		t.Errorf("a footer beyond the cache's limit was kept")
	}

	var wg sync.WaitGroup
	counts := make([]int64, 8)
	for i := range counts {
		wg.Go(func() {
			r, err := datafile.OpenWith(ctx, st, files[i%2], &vocab, ids, datafile.ReadOptions{Footers: c})
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			_ = r.RowGroupStats()
			counts[i] = int64(len(readAll(t, r)))
		})
	}
	wg.Wait()
	for i, n := range counts {
		if n != 3 { // vocab's three row groups
			t.Errorf("reader %d read %d records, want 3", i, n)
		}
	}
}

var _ blob.Store = (*readCounter)(nil)

// TestReader_ReadFailureIsNotDamage: a read of the object that fails
// while decoding surfaces as that failure, not as ErrBadFile (the decoder
// does not always wrap it).
func TestReader_ReadFailureIsNotDamage(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	f, _ := writeVocab(t, st, "t/data/all.parquet")
	var fail atomic.Bool
	fs := faultblob.Wrap(st, faultblob.InjectorFunc(func(op faultblob.Op) error {
		if fail.Load() && op.Kind == faultblob.OpReadAt {
			return faultblob.ErrInjected
		}
		return nil
	}))
	r, err := datafile.Open(ctx, fs, f, &vocab, []int{5, 13})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fail.Store(true) // the footer is read; the data pages fail
	_, err = r.Next()
	if !errors.Is(err, faultblob.ErrInjected) || errors.Is(err, datafile.ErrBadFile) {
		t.Fatalf("Next: %v, want the injected read failure and not ErrBadFile", err)
	}
}
