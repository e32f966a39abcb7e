package datafile

import (
	"container/list"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// FooterCache keeps decoded Parquet footers by file path and size, least
// recently used first out, so repeated scans of a file skip the footer's
// read and decode. Data files are immutable (a rewrite writes a new
// path), so an entry never goes stale. Safe for concurrent use.
type FooterCache struct {
	mu    sync.Mutex
	limit int64
	bytes int64
	lru   *list.List // of *footer, most recent first
	byKey map[footerKey]*list.Element
}

type footerKey struct {
	path string
	size int64
}

type footer struct {
	key  footerKey
	md   *metadata.FileMetaData
	cost int64
}

// DefaultFooterBytes bounds a FooterCache by default: the encoded size of
// the footers kept, a few thousand files' worth.
const DefaultFooterBytes = 8 << 20

// NewFooterCache returns a cache holding footers of at most limit encoded
// bytes in all.
func NewFooterCache(limit int64) *FooterCache {
	return &FooterCache{limit: limit, lru: list.New(), byKey: map[footerKey]*list.Element{}}
}

func (c *FooterCache) lookup(path string, size int64) (*metadata.FileMetaData, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[footerKey{path, size}]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*footer).md, true
}

// add caches md, read from the file at path of size bytes; encoded is the
// footer's encoded length.
func (c *FooterCache) add(path string, size int64, md *metadata.FileMetaData, encoded int) {
	if c == nil {
		return
	}
	// FileMetaData computes its writer version on first use: do it here,
	// so readers sharing md only read it.
	md.WriterVersion()
	k := footerKey{path, size}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok || int64(encoded) > c.limit {
		return
	}
	c.byKey[k] = c.lru.PushFront(&footer{key: k, md: md, cost: int64(encoded)})
	c.bytes += int64(encoded)
	for c.bytes > c.limit {
		old := c.lru.Remove(c.lru.Back()).(*footer)
		delete(c.byKey, old.key)
		c.bytes -= old.cost
	}
}
