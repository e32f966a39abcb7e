package manifest

import (
	"encoding/binary"
	"hash"
	"hash/crc64"
	"math"
)

var crcTable = crc64.MakeTable(crc64.ECMA)

// checksum hashes the logical content of a manifest: every field of every
// entry, with nil distinguished from empty. Write stores it in the footer's
// key-value metadata and Read recomputes it over what it decoded, so a
// damaged file that still parses is reported as corrupt instead of being
// answered from.
func checksum(files []DataFile) uint64 {
	h := &hasher{h: crc64.New(crcTable)}
	h.int(int64(len(files)))
	for i := range files {
		f := &files[i]
		h.str(f.Path)
		h.str(f.Format)
		h.int(f.RecordCount)
		h.int(f.FileSize)
		h.int(f.UncompressedSize)
		h.int(int64(f.SpecID))
		h.optLen(f.PartitionValues == nil, len(f.PartitionValues))
		for _, v := range f.PartitionValues {
			if v == nil {
				h.int(-1)
			} else {
				h.str(*v)
			}
		}
		h.int(f.RowIDStart)
		h.str(f.StatsState)
		h.str(f.StatsError)
		h.int(f.AddedSnapshotID)
		h.int(f.SequenceNumber)
		h.optLen(f.FieldIDs == nil, len(f.FieldIDs))
		for _, v := range f.FieldIDs {
			h.int(int64(v))
		}
		h.ints(f.ValueCounts)
		h.ints(f.NullCounts)
		h.ints(f.NaNCounts)
		h.bounds(f.LowerBounds)
		h.bounds(f.UpperBounds)
		h.optLen(f.BoundsExact == nil, len(f.BoundsExact))
		for _, b := range f.BoundsExact {
			if b {
				h.int(1)
			} else {
				h.int(0)
			}
		}
		h.ints(f.ColumnSizes)
		h.optLen(f.ColumnNames == nil, len(f.ColumnNames))
		for _, s := range f.ColumnNames {
			h.str(s)
		}
	}
	return h.h.Sum64()
}

type hasher struct {
	h   hash.Hash64
	buf [8]byte
}

func (h *hasher) int(v int64) {
	binary.LittleEndian.PutUint64(h.buf[:], uint64(v))
	h.h.Write(h.buf[:])
}

func (h *hasher) str(s string) {
	h.int(int64(len(s)))
	h.h.Write([]byte(s))
}

// optLen hashes a slice's length, with math.MinInt64 for a nil slice.
func (h *hasher) optLen(isNil bool, n int) {
	if isNil {
		h.int(math.MinInt64)
		return
	}
	h.int(int64(n))
}

func (h *hasher) ints(v []int64) {
	h.optLen(v == nil, len(v))
	for _, x := range v {
		h.int(x)
	}
}

func (h *hasher) bounds(v [][]byte) {
	h.optLen(v == nil, len(v))
	for _, b := range v {
		if b == nil {
			h.int(-1)
			continue
		}
		h.int(int64(len(b)))
		h.h.Write(b)
	}
}
