package faultblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// ErrInjected is the error the ready-made injectors return. Callers match
// it with errors.Is; the wrapper adds the operation and key.
var ErrInjected = errors.New("injected fault")

// OpKind names a blob.Store method.
type OpKind int

// The operations an Injector sees.
const (
	OpPut OpKind = iota
	OpGet
	OpReadAt
	OpStat
	OpList
	OpDelete
)

func (k OpKind) String() string {
	switch k {
	case OpPut:
		return "put"
	case OpGet:
		return "get"
	case OpReadAt:
		return "readAt"
	case OpStat:
		return "stat"
	case OpList:
		return "list"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("OpKind(%d)", int(k))
}

// Phase says when an Injector is asked.
type Phase int

const (
	// Before: the operation has not run; an error means it never does.
	Before Phase = iota
	// After: the operation ran and succeeded; an error is returned to the
	// caller although its effect stays (a lost acknowledgement).
	After
)

// Op is one operation on the store.
type Op struct {
	Kind  OpKind
	Key   string // the key; the prefix for OpList
	Phase Phase
}

func (op Op) String() string {
	if op.Phase == After {
		return fmt.Sprintf("%s %q (after)", op.Kind, op.Key)
	}
	return fmt.Sprintf("%s %q", op.Kind, op.Key)
}

// Injector decides whether an operation fails. MaybeError is called from
// every goroutine using the store, so it must be safe for concurrent use.
type Injector interface {
	MaybeError(op Op) error
}

// InjectorFunc adapts a function to an Injector.
type InjectorFunc func(op Op) error

// MaybeError calls f(op).
func (f InjectorFunc) MaybeError(op Op) error { return f(op) }

// Store is a blob.Store that consults an Injector around every operation
// of the store it wraps. It is safe for concurrent use if the Injector is.
type Store struct {
	inner blob.Store
	inj   Injector
}

// Wrap returns s with faults from inj; a nil inj injects nothing.
func Wrap(s blob.Store, inj Injector) blob.Store {
	if inj == nil {
		inj = InjectorFunc(func(Op) error { return nil })
	}
	return &Store{inner: s, inj: inj}
}

// Unwrap returns the wrapped store, to inspect what really happened.
func (s *Store) Unwrap() blob.Store { return s.inner }

func (s *Store) maybe(kind OpKind, key string, phase Phase) error {
	op := Op{Kind: kind, Key: key, Phase: phase}
	if err := s.inj.MaybeError(op); err != nil {
		return fmt.Errorf("faultblob: %s: %w", op, err)
	}
	return nil
}

// Put implements blob.Store.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) error {
	if err := s.maybe(OpPut, key, Before); err != nil {
		return err
	}
	if err := s.inner.Put(ctx, key, r, opts); err != nil {
		return err
	}
	return s.maybe(OpPut, key, After)
}

// Get implements blob.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := s.maybe(OpGet, key, Before); err != nil {
		return nil, err
	}
	b, err := s.inner.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if err := s.maybe(OpGet, key, After); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadAt implements blob.Store. An injected error replaces io.EOF too.
func (s *Store) ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error) {
	if err := s.maybe(OpReadAt, key, Before); err != nil {
		return 0, err
	}
	n, err := s.inner.ReadAt(ctx, key, p, off)
	if err != nil && err != io.EOF {
		return n, err
	}
	if ierr := s.maybe(OpReadAt, key, After); ierr != nil {
		return 0, ierr
	}
	return n, err
}

// Stat implements blob.Store.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	if err := s.maybe(OpStat, key, Before); err != nil {
		return blob.Info{}, err
	}
	info, err := s.inner.Stat(ctx, key)
	if err != nil {
		return blob.Info{}, err
	}
	if err := s.maybe(OpStat, key, After); err != nil {
		return blob.Info{}, err
	}
	return info, nil
}

// List implements blob.Store; the Injector sees the prefix as the key.
func (s *Store) List(ctx context.Context, prefix string) ([]blob.Info, error) {
	if err := s.maybe(OpList, prefix, Before); err != nil {
		return nil, err
	}
	infos, err := s.inner.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	if err := s.maybe(OpList, prefix, After); err != nil {
		return nil, err
	}
	return infos, nil
}

// Delete implements blob.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.maybe(OpDelete, key, Before); err != nil {
		return err
	}
	if err := s.inner.Delete(ctx, key); err != nil {
		return err
	}
	return s.maybe(OpDelete, key, After)
}

// URI returns the wrapped store's URI; it injects nothing.
func (s *Store) URI() string { return s.inner.URI() }

// Close closes the wrapped store; it injects nothing.
func (s *Store) Close() error { return s.inner.Close() }

// FailPutsMatching fails, before it runs, every Put whose key contains
// substr ("" matches all) with ErrInjected.
func FailPutsMatching(substr string) Injector {
	return InjectorFunc(func(op Op) error {
		if op.Phase == Before && op.Kind == OpPut && strings.Contains(op.Key, substr) {
			return ErrInjected
		}
		return nil
	})
}

// LosePutAcksMatching lets every Put whose key contains substr take
// effect, then returns ErrInjected to its caller: the writer cannot tell
// whether its object landed.
func LosePutAcksMatching(substr string) Injector {
	return InjectorFunc(func(op Op) error {
		if op.Phase == After && op.Kind == OpPut && strings.Contains(op.Key, substr) {
			return ErrInjected
		}
		return nil
	})
}

// FailAfterN lets the first n operations (of any kind, counted before they
// run) through and fails every later one with ErrInjected, as a store that
// goes away, or a process that is killed, part-way through a job. It is
// safe for concurrent use: exactly n operations pass.
func FailAfterN(n int) Injector {
	var seen atomic.Int64
	return InjectorFunc(func(op Op) error {
		if op.Phase == Before && seen.Add(1) > int64(n) {
			return ErrInjected
		}
		return nil
	})
}

// BeforeOp runs fn just before each operation of kind whose key contains
// substr; if fn returns an error, that error is returned instead of running
// the operation. Tests use it to interleave work at an exact point (another
// writer commits, a compaction runs) or to kill a writer there.
func BeforeOp(kind OpKind, substr string, fn func(op Op) error) Injector {
	return InjectorFunc(func(op Op) error {
		if op.Phase == Before && op.Kind == kind && strings.Contains(op.Key, substr) {
			return fn(op)
		}
		return nil
	})
}

// Any asks each injector in turn and returns the first error.
func Any(injs ...Injector) Injector {
	return InjectorFunc(func(op Op) error {
		for _, inj := range injs {
			if err := inj.MaybeError(op); err != nil {
				return err
			}
		}
		return nil
	})
}
