package scan

import (
	"errors"
	"testing"

	"golang.org/x/sync/errgroup"
)

func TestGoSafe_PanicBecomesError(t *testing.T) {
	var g errgroup.Group
	goSafe(&g, func() error { return nil })
	goSafe(&g, func() error {
		var s []int
		_ = s[3] // index out of range
		return nil
	})
	err := g.Wait()
	if !errors.Is(err, ErrWorkerPanic) {
		t.Fatalf("Wait() = %v, want ErrWorkerPanic", err)
	}
}

func TestGoSafe_ErrorPassesThrough(t *testing.T) {
	var g errgroup.Group
	want := errors.New("boom")
	goSafe(&g, func() error { return want })
	if err := g.Wait(); !errors.Is(err, want) {
		t.Fatalf("Wait() = %v, want %v", err, want)
	}
}
