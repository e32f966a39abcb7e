package manifest

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// Chain locates a snapshot's live list: a consolidated base manifest and
// the delta manifests applied over it, oldest first, as object keys. A
// chain without deltas is a plain consolidated manifest (every snapshot
// written before deltas existed).
type Chain struct {
	Base   string
	Deltas []string
}

// Key identifies the live list the chain gives: the last delta's key, or
// the base's. A delta is written once, for one chain, so two snapshots with
// the same Key have the same live list (a rollback shares its target's).
func (c Chain) Key() string {
	if n := len(c.Deltas); n > 0 {
		return c.Deltas[n-1]
	}
	return c.Base
}

// Keys returns every object of the chain: the base, then the deltas.
func (c Chain) Keys() []string {
	return append([]string{c.Base}, c.Deltas...)
}

// prevName is the name the delta at position i (from 0) must record as the
// link it applies over.
func (c Chain) prevName(i int) string {
	if i == 0 {
		return path.Base(c.Base)
	}
	return path.Base(c.Deltas[i-1])
}

// LinkError is a chain that could not be read: Key is the object at fault
// (the base or a delta) and Err why (wrapping ErrCorrupt for damage or a
// delta that does not fit the chain, blob.ErrNotFound for a missing one).
type LinkError struct {
	Key string
	Err error
}

func (e *LinkError) Error() string { return e.Err.Error() }
func (e *LinkError) Unwrap() error { return e.Err }

// checkLink checks that d, read as delta i of c, was written for that
// place in the chain.
func (c Chain) checkLink(i int, d *Delta) error {
	if want := c.prevName(i); d.Prev != want || d.Seq != i+1 {
		return &LinkError{Key: c.Deltas[i], Err: MarkCorrupt(fmt.Errorf(
			"delta manifest %s was written as link %d over %s, but the snapshot lists it as link %d over %s",
			c.Deltas[i], d.Seq, d.Prev, i+1, want))}
	}
	return nil
}

// applyFrom applies the deltas of c from position start (from 0) to live,
// reading each with read.
func (c Chain) applyFrom(ctx context.Context, live []DataFile, start int, read func(context.Context, string) (*Delta, error)) ([]DataFile, error) {
	for i := start; i < len(c.Deltas); i++ {
		d, err := read(ctx, c.Deltas[i])
		if err != nil {
			return nil, &LinkError{Key: c.Deltas[i], Err: err}
		}
		if err := c.checkLink(i, d); err != nil {
			return nil, err
		}
		if live, err = Apply(live, d); err != nil {
			return nil, &LinkError{Key: c.Deltas[i], Err: fmt.Errorf("apply delta manifest %s: %w", c.Deltas[i], err)}
		}
	}
	return live, nil
}

// GetChain returns the live list of chain ch, through the cache: the
// result is cached under ch.Key(), and a miss starts from the longest
// prefix of ch already cached (usually the parent snapshot's list, so
// following a table's head reads one small delta per commit) or from the
// base, read through Get. Errors as Read, wrapped in a *LinkError naming
// the object at fault. The returned slice is shared: treat it as
// read-only. Safe for concurrent use.
func (c *Cache) GetChain(ctx context.Context, store blob.Store, ch Chain) ([]DataFile, error) {
	if len(ch.Deltas) == 0 {
		files, err := c.Get(ctx, store, ch.Base)
		if err != nil {
			return nil, &LinkError{Key: ch.Base, Err: err}
		}
		return files, nil
	}
	ck := chainCacheKey(store, ch.Key())
	if files, ok := c.lookup(ck); ok {
		return files, nil
	}
	res := c.loads.DoChan(ck, func() (any, error) {
		if files, ok := c.lookup(ck); ok {
			return files, nil
		}
		rctx := context.WithoutCancel(ctx)
		start, live, found := 0, []DataFile(nil), false
		for k := len(ch.Deltas) - 1; k >= 1 && !found; k-- {
			live, found = c.lookup(chainCacheKey(store, ch.Deltas[k-1]))
			start = k
		}
		if !found {
			start = 0
			base, err := c.Get(rctx, store, ch.Base)
			if err != nil {
				return nil, &LinkError{Key: ch.Base, Err: err}
			}
			live = base
		}
		files, err := ch.applyFrom(rctx, live, start, func(ctx context.Context, key string) (*Delta, error) {
			return c.GetDelta(ctx, store, key)
		})
		if err != nil {
			return nil, err
		}
		c.add(ck, files)
		return files, nil
	})
	return awaitLoad[[]DataFile](ctx, res)
}

func chainCacheKey(store blob.Store, key string) string {
	return store.URI() + "\x00chain\x00" + key
}

// GetDelta returns the delta manifest at key, reading it on a miss (errors
// as ReadDelta). Deltas are cached beside lists: they are small, and with
// the base and the deltas cached, a chain whose prefix list was evicted
// (a new delta that absorbed trailing ones starts from an older state) is
// rebuilt without reading anything but its new delta. The result is
// shared: treat it as read-only. Safe for concurrent use.
func (c *Cache) GetDelta(ctx context.Context, store blob.Store, key string) (*Delta, error) {
	ck := store.URI() + "\x00delta\x00" + key
	if e, ok := c.lookupEntry(ck); ok {
		return e.delta, nil
	}
	res := c.loads.DoChan(ck, func() (any, error) {
		if e, ok := c.lookupEntry(ck); ok {
			return e.delta, nil
		}
		d, err := ReadDelta(context.WithoutCancel(ctx), store, key, DecodeOptions{})
		if err != nil {
			return nil, err
		}
		c.addEntry(&cacheEntry{key: ck, delta: d, size: EstimateSize(d.Added) + int64(len(d.Removed))*64})
		return d, nil
	})
	return awaitLoad[*Delta](ctx, res)
}

// ChainReader reads chains straight from a store, bypassing any cache,
// reading each base and delta once however many chains share it: what a
// verification or a cleanup that must see the stored bytes uses. It
// remembers the last list it built, so chains that each extend the
// previous one (a table's history in order) apply one delta each. Not
// safe for concurrent use.
type ChainReader struct {
	store  blob.Store
	bases  map[string][]DataFile
	deltas map[string]*Delta
	last   Chain
	list   []DataFile
}

// NewChainReader returns a reader over store.
func NewChainReader(store blob.Store) *ChainReader {
	return &ChainReader{store: store, bases: map[string][]DataFile{}, deltas: map[string]*Delta{}}
}

// Objects returns how many distinct manifests (bases and deltas) r read.
func (r *ChainReader) Objects() int { return len(r.bases) + len(r.deltas) }

// Base reads the consolidated manifest at key (once). Errors as Read.
func (r *ChainReader) Base(ctx context.Context, key string) ([]DataFile, error) {
	if files, ok := r.bases[key]; ok {
		return files, nil
	}
	files, err := Read(ctx, r.store, key)
	if err != nil {
		return nil, err
	}
	r.bases[key] = files
	return files, nil
}

// Delta reads the delta manifest at key (once). Errors as ReadDelta.
func (r *ChainReader) Delta(ctx context.Context, key string) (*Delta, error) {
	if d, ok := r.deltas[key]; ok {
		return d, nil
	}
	d, err := ReadDelta(ctx, r.store, key, DecodeOptions{})
	if err != nil {
		return nil, err
	}
	r.deltas[key] = d
	return d, nil
}

// Live returns the live list of ch. Errors as Cache.GetChain's.
func (r *ChainReader) Live(ctx context.Context, ch Chain) ([]DataFile, error) {
	start, live := 0, []DataFile(nil)
	if r.last.Base != "" && r.last.Base == ch.Base && extends(ch.Deltas, r.last.Deltas) {
		start, live = len(r.last.Deltas), r.list
	} else {
		base, err := r.Base(ctx, ch.Base)
		if err != nil {
			return nil, &LinkError{Key: ch.Base, Err: err}
		}
		live = base
	}
	files, err := ch.applyFrom(ctx, live, start, r.Delta)
	if err != nil {
		return nil, err
	}
	r.last, r.list = ch, files
	return files, nil
}

// extends reports whether prefix is a prefix of deltas.
func extends(deltas, prefix []string) bool {
	if len(prefix) > len(deltas) {
		return false
	}
	for i := range prefix {
		if deltas[i] != prefix[i] {
			return false
		}
	}
	return true
}

// IsLinkError reports whether err names the chain object at fault, and
// returns it.
func IsLinkError(err error) (*LinkError, bool) {
	var le *LinkError
	ok := errors.As(err, &le)
	return le, ok
}
