package manifest

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// benchFiles builds n entries shaped like a wide table's: 16 columns with
// counts and 4- or 8-byte bounds on each, as the planning benchmark's.
func benchFiles(n int) []DataFile {
	const cols = 16
	files := make([]DataFile, n)
	for i := range files {
		f := DataFile{
			Path: fmt.Sprintf("ws/bench/lineitem/data/%08d.parquet", i), Format: FormatParquet,
			RecordCount: 60_000, FileSize: 4 << 20, UncompressedSize: 9 << 20,
			StatsState: StatsProvided, SequenceNumber: 1, AddedSnapshotID: 1,
			RowIDStart: int64(i) * 60_000,
		}
		for c := range cols {
			lo, hi := make([]byte, 8), make([]byte, 8)
			if c%2 == 1 {
				lo, hi = lo[:4], hi[:4]
			}
			binary.LittleEndian.PutUint32(lo, uint32(i*10+c))
			binary.LittleEndian.PutUint32(hi, uint32(i*10+c+99))
			f.FieldIDs = append(f.FieldIDs, c+1)
			f.ValueCounts = append(f.ValueCounts, 60_000)
			f.NullCounts = append(f.NullCounts, int64(c%3))
			f.NaNCounts = append(f.NaNCounts, 0)
			f.LowerBounds = append(f.LowerBounds, lo)
			f.UpperBounds = append(f.UpperBounds, hi)
			f.BoundsExact = append(f.BoundsExact, true)
			f.ColumnSizes = append(f.ColumnSizes, 200_000)
		}
		files[i] = f
	}
	return files
}

func BenchmarkDecode(b *testing.B) {
	data, err := Encode(benchFiles(100_000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeAddedBy decodes the one entry an append added to a
// 100,000 entry manifest (an incremental Iceberg export's read).
func BenchmarkDecodeAddedBy(b *testing.B) {
	files := benchFiles(100_000)
	files[len(files)-1].AddedSnapshotID = 2
	data, err := Encode(files)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		got, err := DecodeWith(data, DecodeOptions{AddedBy: 2})
		if err != nil || len(got) != 1 {
			b.Fatal(len(got), err)
		}
	}
}
