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
// released go back to the pool for the next batch, file or query. Free
// buffers are held in a sync.Pool per size class, so an idle pool's
// memory goes back to the collector within two GC cycles.
//
// Only a reader whose records are never referenced after their Release
// may use a pool (the vectorised aggregates copy what they keep); a row
// path that aliases strings into Arrow buffers must not. Safe for
// concurrent use; an engine keeps one for all its queries.
type BufferPool struct {
	free [maxClass + 1]sync.Pool // by size class: *[]byte of cap 1<<class
}

const (
	// minClass: smaller buffers come from the Go heap, where they are
	// cheap and collected.
	minClass = 16 // 64 KiB
	maxClass = 30 // 1 GiB
)

// NewBufferPool returns an empty pool.
func NewBufferPool() *BufferPool { return &BufferPool{} }

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
	c := class(size)
	if c < 0 {
		return memory.DefaultAllocator.Allocate(size)
	}
	if b, ok := p.free[c].Get().(*[]byte); ok {
		buf := (*b)[:size]
		clear(buf)
		return buf
	}
	return make([]byte, size, 1<<c)
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

// Free returns b to the pool if it is of a pooled size class; otherwise
// the collector takes it.
func (p *BufferPool) Free(b []byte) {
	c := class(cap(b))
	if c < 0 || cap(b) != 1<<c {
		return
	}
	b = b[:0]
	p.free[c].Put(&b)
}
