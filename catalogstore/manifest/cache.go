package manifest

import (
	"container/list"
	"context"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// Cache keeps decoded manifests by store and key. Manifests are immutable,
// so an entry never goes stale; the cache is bounded by entry count and by
// an estimate of the decoded size, evicting the least recently used.
// Concurrent Gets of one key share a single Read. Safe for concurrent use.
type Cache struct {
	maxEntries int
	maxBytes   int64

	mu    sync.Mutex
	lru   *list.List // of *cacheEntry, most recent first
	items map[string]*list.Element
	bytes int64

	loads singleflight.Group
}

type cacheEntry struct {
	key   string
	files []DataFile // a list (a consolidated manifest or a chain's)
	delta *Delta     // or a delta manifest
	size  int64
}

// NewCache returns a cache holding at most maxEntries manifests and about
// maxBytes of decoded entries; zero or less means no limit of that kind.
func NewCache(maxEntries int, maxBytes int64) *Cache {
	return &Cache{
		maxEntries: maxEntries,
		maxBytes:   maxBytes,
		lru:        list.New(),
		items:      make(map[string]*list.Element),
	}
}

// Get returns the manifest at key in store, reading it on a miss (errors as
// Read). The returned slice is shared with other callers: treat it and its
// entries as read-only. Failed reads are not cached. If ctx ends while
// another caller's read is in flight, Get returns ctx's error and the read
// carries on for the others.
func (c *Cache) Get(ctx context.Context, store blob.Store, key string) ([]DataFile, error) {
	ck := store.URI() + "\x00" + key
	if files, ok := c.lookup(ck); ok {
		return files, nil
	}
	ch := c.loads.DoChan(ck, func() (any, error) {
		if files, ok := c.lookup(ck); ok {
			return files, nil
		}
		files, err := Read(context.WithoutCancel(ctx), store, key)
		if err != nil {
			return nil, err
		}
		c.add(ck, files)
		return files, nil
	})
	return awaitLoad[[]DataFile](ctx, ch)
}

// awaitLoad waits for a load shared through loads.DoChan. The loads run
// without the caller's cancellation, so ctx ends only this caller's wait
// and the load carries on for the others.
func awaitLoad[T any](ctx context.Context, res <-chan singleflight.Result) (T, error) {
	var zero T
	select {
	case <-ctx.Done():
		return zero, ctx.Err()
	case r := <-res:
		if r.Err != nil {
			return zero, r.Err
		}
		return r.Val.(T), nil
	}
}

// Len returns the number of cached manifests.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *Cache) lookup(ck string) ([]DataFile, bool) {
	e, ok := c.lookupEntry(ck)
	if !ok {
		return nil, false
	}
	return e.files, true
}

func (c *Cache) lookupEntry(ck string) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[ck]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*cacheEntry), true
	}
	return nil, false
}

func (c *Cache) add(ck string, files []DataFile) {
	c.addEntry(&cacheEntry{key: ck, files: files, size: EstimateSize(files)})
}

func (c *Cache) addEntry(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[e.key]; ok {
		return
	}
	if c.maxBytes > 0 && e.size > c.maxBytes {
		return // would evict everything and still not fit
	}
	c.items[e.key] = c.lru.PushFront(e)
	c.bytes += e.size
	for c.lru.Len() > 0 && ((c.maxEntries > 0 && c.lru.Len() > c.maxEntries) || (c.maxBytes > 0 && c.bytes > c.maxBytes)) {
		el := c.lru.Back()
		e := el.Value.(*cacheEntry)
		c.lru.Remove(el)
		delete(c.items, e.key)
		c.bytes -= e.size
	}
}

// EstimateSize estimates the memory held by decoded entries, in bytes.
func EstimateSize(files []DataFile) int64 {
	const fixed = 256 // struct, slice headers
	n := int64(0)
	for i := range files {
		f := &files[i]
		n += fixed + int64(len(f.Path)+len(f.Format)+len(f.StatsState)+len(f.StatsError))
		for _, v := range f.PartitionValues {
			n += 8
			if v != nil {
				n += 16 + int64(len(*v))
			}
		}
		n += int64(len(f.FieldIDs)) * (8 + 8*4 + 1)
		for j := range f.LowerBounds {
			n += 24 + int64(len(f.LowerBounds[j]))
		}
		for j := range f.UpperBounds {
			n += 24 + int64(len(f.UpperBounds[j]))
		}
		for _, s := range f.ColumnNames {
			n += 16 + int64(len(s))
		}
	}
	return n
}
