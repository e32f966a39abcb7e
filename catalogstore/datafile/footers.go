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

// footerKey identifies a footer: by the file, and by the checksum it was
// verified against (sum, when checked), so that a footer read without a
// check never stands in for one a reader must check.
type footerKey struct {
	path    string
	size    int64
	checked bool
	sum     uint32
}

type footer struct {
	key  footerKey
	md   *metadata.FileMetaData
	cost int64 // the footer's encoded length
}

// DefaultFooterBytes bounds a FooterCache by default: the encoded size of
// the footers kept, a few thousand files' worth.
const DefaultFooterBytes = 8 << 20

// NewFooterCache returns a cache holding footers of at most limit encoded
// bytes in all.
func NewFooterCache(limit int64) *FooterCache {
	return &FooterCache{limit: limit, lru: list.New(), byKey: map[footerKey]*list.Element{}}
}

// lookup returns the footer of k's file and its encoded length.
func (c *FooterCache) lookup(k footerKey) (*metadata.FileMetaData, int, bool) {
	if c == nil {
		return nil, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil, 0, false
	}
	c.lru.MoveToFront(e)
	f := e.Value.(*footer)
	return f.md, int(f.cost), true
}

// add caches md, read (and checked as k says) from k's file; encoded is
// the footer's encoded length.
func (c *FooterCache) add(k footerKey, md *metadata.FileMetaData, encoded int) {
	if c == nil {
		return
	}
	// FileMetaData computes its writer version on first use: do it here,
	// so readers sharing md only read it.
	md.WriterVersion()
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
