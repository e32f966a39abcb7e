package datafile

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BufferPool is a memory.Allocator that recycles the large buffers scans
// decode into: Parquet's record readers allocate fresh value, level and
// page buffers for every batch, and on the Go heap that garbage is what
// drives the collector during a scan. Buffers a record frees when it is
// released go back to the pool for the next batch, file or query. The
// pool keeps at most its limit of free buffers (they survive garbage
// collections, which a sync.Pool's would not); beyond it, freed buffers
// are left to the collector.
//
// Only a reader whose records are never referenced after their Release
// may use a pool (the vectorised aggregates copy what they keep); a row
// path that aliases strings into Arrow buffers must not. Safe for
// concurrent use; an engine keeps one for all its queries.
type BufferPool struct {
	mu    sync.Mutex
	free  [maxClass + 1][][]byte // by size class: cap 1<<class
	held  int                    // bytes in free
	limit int
}

const (
	// minClass: smaller buffers come from the Go heap, where they are
	// cheap and collected.
	minClass = 16 // 64 KiB
	maxClass = 30 // 1 GiB
)

// DefaultPoolBytes bounds the free buffers of an engine's pool: a few
// batches of every column of a few concurrent scans.
const DefaultPoolBytes = 32 << 20

// NewBufferPool returns a pool keeping at most limit bytes of free
// buffers.
func NewBufferPool(limit int) *BufferPool { return &BufferPool{limit: limit} }

var _ memory.Allocator = (*BufferPool)(nil)

// class is the size class of a buffer of n bytes, or -1 when it is not
// pooled.
func class(n int) int {
	c := bits.Len(uint(n - 1))
	if n <= 0 || c < minClass || c > maxClass {
		return -1
	}
	return c
}

// Allocate returns size zeroed bytes, 64-byte aligned like
// memory.GoAllocator's (a Go allocation of 64 KiB or more is page-aligned).
func (p *BufferPool) Allocate(size int) []byte {
	b := p.Scratch(size)
	clear(b)
	return b
}

// Scratch is Allocate without zeroing: the contents are unspecified, for
// buffers written before they are read. Free returns it.
func (p *BufferPool) Scratch(size int) []byte {
	c := class(size)
	if c < 0 {
		return memory.DefaultAllocator.Allocate(size)
	}
	p.mu.Lock()
	var b []byte
	if k := len(p.free[c]); k > 0 {
		b = p.free[c][k-1]
		p.free[c] = p.free[c][:k-1]
		p.held -= cap(b)
	}
	p.mu.Unlock()
	if b == nil {
		return make([]byte, size, 1<<c)
	}
	return b[:size]
}

// Reallocate resizes b, in place when its capacity allows (zeroing the
// bytes it grows by).
func (p *BufferPool) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		if n := len(b); size > n {
			b = b[:size]
			clear(b[n:])
			return b
		}
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free returns b to the pool if it is of a pooled size class and the
// pool has room; otherwise the collector takes it.
func (p *BufferPool) Free(b []byte) {
	c := class(cap(b))
	if c < 0 || cap(b) != 1<<c {
		return
	}
	p.mu.Lock()
	if p.held+cap(b) <= p.limit {
		p.free[c] = append(p.free[c], b[:0])
		p.held += cap(b)
	}
	p.mu.Unlock()
}
