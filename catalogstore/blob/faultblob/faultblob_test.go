package faultblob_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/blobtest"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
)

func newLocal(t *testing.T) blob.Store {
	s, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(s blob.Store, key, data string) error {
	return s.Put(context.Background(), key, strings.NewReader(data), blob.PutOptions{})
}

// TestConformance_NoFaults checks that the wrapper itself keeps the
// contract when it injects nothing.
func TestConformance_NoFaults(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store { return faultblob.Wrap(newLocal(t), nil) })
}

func TestFailPutsMatching(t *testing.T) {
	inner := newLocal(t)
	s := faultblob.Wrap(inner, faultblob.FailPutsMatching("manifest"))
	err := put(s, "ws/c/manifest-2.json", "m")
	if !errors.Is(err, faultblob.ErrInjected) || !strings.Contains(err.Error(), "manifest-2.json") {
		t.Fatalf("Put(manifest) error = %v, want ErrInjected naming the key", err)
	}
	if _, err := inner.Stat(t.Context(), "ws/c/manifest-2.json"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("refused Put reached the store: Stat = %v", err)
	}
	if err := put(s, "ws/c/data/1.parquet", "d"); err != nil {
		t.Fatalf("Put(data): %v", err)
	}
	// Reads are untouched.
	if got, err := s.Get(t.Context(), "ws/c/data/1.parquet"); err != nil || string(got) != "d" {
		t.Fatalf("Get = %q, %v", got, err)
	}
}

func TestLosePutAcksMatching(t *testing.T) {
	inner := newLocal(t)
	s := faultblob.Wrap(inner, faultblob.LosePutAcksMatching("manifest"))
	if err := put(s, "m/manifest-1", "v1"); !errors.Is(err, faultblob.ErrInjected) {
		t.Fatalf("Put error = %v, want ErrInjected", err)
	}
	if got, err := inner.Get(t.Context(), "m/manifest-1"); err != nil || string(got) != "v1" {
		t.Fatalf("the Put should have landed: %q, %v", got, err)
	}
	// A retry with IfNotExists now reports ErrExists from the real store,
	// the case a commit protocol must handle.
	err := s.Put(t.Context(), "m/manifest-1", strings.NewReader("v1"), blob.PutOptions{IfNotExists: true})
	if !errors.Is(err, blob.ErrExists) || errors.Is(err, faultblob.ErrInjected) {
		t.Fatalf("retried create-only Put error = %v, want ErrExists only", err)
	}
}

func TestFailAfterN(t *testing.T) {
	s := faultblob.Wrap(newLocal(t), faultblob.FailAfterN(3))
	ctx := t.Context()
	if err := put(s, "a", "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, ""); err != nil {
		t.Fatal(err)
	}
	for i, op := range []func() error{
		func() error { return put(s, "b", "2") },
		func() error { _, err := s.Get(ctx, "a"); return err },
		func() error { _, err := s.ReadAt(ctx, "a", make([]byte, 1), 0); return err },
		func() error { _, err := s.Stat(ctx, "a"); return err },
		func() error { _, err := s.List(ctx, ""); return err },
		func() error { return s.Delete(ctx, "a") },
	} {
		if err := op(); !errors.Is(err, faultblob.ErrInjected) {
			t.Errorf("operation %d after the first 3: error = %v, want ErrInjected", i+4, err)
		}
	}
	inner := s.(*faultblob.Store).Unwrap()
	if _, err := inner.Stat(ctx, "b"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("failed Put reached the store: %v", err)
	}
	if _, err := inner.Stat(ctx, "a"); err != nil {
		t.Fatalf("failed Delete reached the store: %v", err)
	}
}

func TestFailAfterN_Concurrent(t *testing.T) {
	const n, workers = 25, 100
	s := faultblob.Wrap(newLocal(t), faultblob.FailAfterN(n))
	var ok, injected atomic.Int64
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			err := put(s, fmt.Sprintf("k/%d", i), "x")
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, faultblob.ErrInjected):
				injected.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != n || injected.Load() != workers-n {
		t.Fatalf("%d Puts passed and %d failed, want %d and %d", ok.Load(), injected.Load(), n, workers-n)
	}
	infos, err := s.(*faultblob.Store).Unwrap().List(t.Context(), "k/")
	if err != nil || len(infos) != n {
		t.Fatalf("store holds %d objects, %v; want %d", len(infos), err, n)
	}
}

// TestBeforeOp_KilledWriter plays a writer killed between its data file and
// its manifest: the hook runs at that exact point, sees the data file
// already stored, and stops the writer; nothing after it happens.
func TestBeforeOp_KilledWriter(t *testing.T) {
	inner := newLocal(t)
	errKilled := errors.New("writer killed")
	var hookSaw []string
	hook := func(op faultblob.Op) error {
		infos, err := inner.List(context.Background(), "")
		if err != nil {
			return err
		}
		for _, in := range infos {
			hookSaw = append(hookSaw, in.Key)
		}
		return errKilled
	}
	s := faultblob.Wrap(inner, faultblob.BeforeOp(faultblob.OpPut, "/manifest", hook))
	if err := put(s, "t/data/1.parquet", "rows"); err != nil {
		t.Fatal(err)
	}
	err := put(s, "t/manifest", "points at data/1.parquet")
	if !errors.Is(err, errKilled) {
		t.Fatalf("Put(manifest) error = %v, want the hook's error", err)
	}
	if fmt.Sprint(hookSaw) != "[t/data/1.parquet]" {
		t.Fatalf("hook saw %q, want only the data file", hookSaw)
	}
	if _, err := inner.Stat(t.Context(), "t/manifest"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("manifest exists after the writer was killed: %v", err)
	}
	// A hook that returns nil only watches.
	var calls atomic.Int64
	s = faultblob.Wrap(inner, faultblob.BeforeOp(faultblob.OpGet, "data", func(faultblob.Op) error { calls.Add(1); return nil }))
	if _, err := s.Get(t.Context(), "t/data/1.parquet"); err != nil || calls.Load() != 1 {
		t.Fatalf("Get = %v with %d hook calls, want nil and 1", err, calls.Load())
	}
}

func TestAny_FirstErrorWins(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	var ops []faultblob.Op
	record := faultblob.InjectorFunc(func(op faultblob.Op) error { ops = append(ops, op); return nil })
	s := faultblob.Wrap(newLocal(t), faultblob.Any(
		record,
		faultblob.BeforeOp(faultblob.OpDelete, "x", func(faultblob.Op) error { return errA }),
		faultblob.BeforeOp(faultblob.OpDelete, "", func(faultblob.Op) error { return errB }),
	))
	if err := s.Delete(t.Context(), "x"); !errors.Is(err, errA) {
		t.Fatalf("Delete(x) = %v, want a", err)
	}
	if err := s.Delete(t.Context(), "y"); !errors.Is(err, errB) {
		t.Fatalf("Delete(y) = %v, want b", err)
	}
	if err := put(s, "z", "1"); err != nil {
		t.Fatal(err)
	}
	want := `[delete "x" delete "y" put "z" put "z" (after)]`
	if got := fmt.Sprint(ops); got != want {
		t.Fatalf("injector saw %s, want %s", got, want)
	}
}

func TestReadAt_KeepsEOFAndNotFound(t *testing.T) {
	s := faultblob.Wrap(newLocal(t), nil)
	if err := put(s, "r", "abc"); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 5)
	if n, err := s.ReadAt(t.Context(), "r", p, 1); n != 2 || err != io.EOF || !bytes.Equal(p[:2], []byte("bc")) {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if _, err := s.ReadAt(t.Context(), "missing", p, 0); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("ReadAt(missing) = %v", err)
	}
}

func TestWrap_HidesExtras(t *testing.T) {
	s := faultblob.Wrap(newLocal(t), nil)
	if _, ok := s.(interface{ LocalPath(string) string }); ok {
		t.Fatal("wrapper exposes LocalPath, which would bypass the injector")
	}
	if !strings.HasPrefix(s.URI(), "file:///") {
		t.Fatalf("URI = %q", s.URI())
	}
}
