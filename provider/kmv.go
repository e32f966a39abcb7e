package provider

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"time"

	"github.com/shopspring/decimal"
)

// kmvSize is the k of the k-minimum-values sketch: the estimate's
// relative standard error is about 1/sqrt(k-2), ≈ 2% here, in 8k × 8
// bytes per column.
const kmvSize = 2048

// kmv estimates a column's distinct count from the k smallest hashes of
// its values (Bar-Yossef et al.; Beyer et al.'s unbiased (k-1)/U_k).
// Below k distinct values the count is exact.
type kmv struct {
	seed maphash.Seed
	h    maxHeap
	in   map[uint64]struct{}
	buf  [8]byte
}

func newKMV(seed maphash.Seed) *kmv {
	return &kmv{seed: seed, in: map[uint64]struct{}{}}
}

func (s *kmv) add(v any) {
	x := s.hash(v)
	if _, dup := s.in[x]; dup {
		return
	}
	if len(s.h) < kmvSize {
		heap.Push(&s.h, x)
		s.in[x] = struct{}{}
		return
	}
	if x >= s.h[0] {
		return
	}
	delete(s.in, s.h[0])
	s.h[0] = x
	heap.Fix(&s.h, 0)
	s.in[x] = struct{}{}
}

func (s *kmv) estimate() uint64 {
	if len(s.h) < kmvSize {
		return uint64(len(s.h))
	}
	// U_k is the k-th smallest hash as a fraction of the hash space.
	u := float64(s.h[0]) / math.MaxUint64
	if u == 0 {
		return uint64(len(s.h))
	}
	return uint64(float64(kmvSize-1) / u)
}

// hash hashes a GMS row value; equal SQL values of one column hash alike.
func (s *kmv) hash(v any) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	putInt := func(i uint64) {
		binary.LittleEndian.PutUint64(s.buf[:], i)
		h.Write(s.buf[:])
	}
	switch x := v.(type) {
	case int8:
		putInt(uint64(x))
	case int16:
		putInt(uint64(x))
	case int32:
		putInt(uint64(x))
	case int64:
		putInt(uint64(x))
	case int:
		putInt(uint64(x))
	case uint8:
		putInt(uint64(x))
	case uint16:
		putInt(uint64(x))
	case uint32:
		putInt(uint64(x))
	case uint64:
		putInt(x)
	case float32:
		putInt(math.Float64bits(float64(x)))
	case float64:
		putInt(math.Float64bits(x))
	case bool:
		if x {
			putInt(1)
		} else {
			putInt(0)
		}
	case string:
		h.WriteString(x)
	case []byte:
		h.Write(x)
	case decimal.Decimal:
		// Normalised so 1.50 and 1.5 (one value) hash alike.
		h.WriteString(x.String())
	case time.Time:
		putInt(uint64(x.UnixNano()))
	default:
		fmt.Fprint(&h, v)
	}
	return h.Sum64()
}

// maxHeap keeps the largest of the k smallest hashes on top.
type maxHeap []uint64

func (m maxHeap) Len() int           { return len(m) }
func (m maxHeap) Less(i, j int) bool { return m[i] > m[j] }
func (m maxHeap) Swap(i, j int)      { m[i], m[j] = m[j], m[i] }
func (m *maxHeap) Push(x any)        { *m = append(*m, x.(uint64)) }
func (m *maxHeap) Pop() any {
	old := *m
	x := old[len(old)-1]
	*m = old[:len(old)-1]
	return x
}
