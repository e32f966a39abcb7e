package scan

import (
	"container/list"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
)

// DefaultCacheBytes is the default budget of decoded rows kept in memory.
const DefaultCacheBytes = 64 << 20

// Cache keeps decoded data files (as rows) by path and projection, least
// recently used first out, within a byte budget. Data files are
// write-once, so entries never go stale. Safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // of *cacheEntry, most recent at the front
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key  string
	rows []sql.Row
	size int64
}

// NewCache returns a cache bounded by maxBytes (estimated).
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *Cache) get(key string) ([]sql.Row, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).rows, true
}

func (c *Cache) put(key string, rows []sql.Row, size int64) {
	if size > c.max/4 {
		return // one file must not flush the whole cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, rows: rows, size: size})
	c.size += size
	for c.size > c.max && c.order.Len() > 0 {
		e := c.order.Back()
		ce := e.Value.(*cacheEntry)
		c.order.Remove(e)
		delete(c.byKey, ce.key)
		c.size -= ce.size
	}
}

// estimateRows guesses the memory rows hold: 16 bytes an interface value
// plus the payload of strings and byte slices.
func estimateRows(rows []sql.Row) int64 {
	var n int64
	for _, r := range rows {
		n += int64(24 + 16*len(r))
		for _, v := range r {
			switch x := v.(type) {
			case string:
				n += int64(len(x))
			case []byte:
				n += int64(len(x))
			}
		}
	}
	return n
}
