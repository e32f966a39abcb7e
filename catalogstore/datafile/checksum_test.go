package datafile_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// TestChecksum_PageSkippingReadsChecked: the page-skipping path reads a
// column chunk piecemeal (a buffered stream, seeks past pages); its parts
// are still checked before the decoder sees them, and a clean file reads
// the same rows through the checked copy.
func TestChecksum_PageSkippingReadsChecked(t *testing.T) {
	st := newMemStore()
	f, _ := writePages(t, st)
	ranges := map[int][]datafile.RowRange{0: {{Start: 10, End: 20}, {Start: 3000, End: 3100}}}
	clean := readRanges(t, st, f, 64, ranges)
	unchecked := f
	unchecked.Checksum, unchecked.PartChecksums = "", nil
	plain := readRanges(t, st, unchecked, 64, ranges)
	for j := range clean {
		if !array.Equal(clean[j], plain[j]) {
			t.Fatalf("column %d read checked differs from unchecked", j)
		}
	}
	good := st.objs[f.Path]
	// Flip a byte in the middle of the first column chunk's data pages,
	// likely in a page the ranges skip: still caught.
	bad := bytes.Clone(good)
	bad[len(good)/8] ^= 0x40
	st.objs["bad"] = bad
	df := f
	df.Path = "bad"
	r, err := datafile.OpenWith(context.Background(), st, df, &pagesSchema, []int{1, 2, 3, 4}, datafile.ReadOptions{BatchRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for rg, rs := range ranges {
		if err := r.SelectRows(rg, rs); err != nil {
			t.Fatal(err)
		}
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			t.Fatal("a damaged file read without error")
		}
		if err != nil {
			if !errors.Is(err, datafile.ErrChecksum) {
				t.Fatalf("Next = %v, want ErrChecksum", err)
			}
			break
		}
		rec.Release()
	}
}

// TestChecksum_AddFilesRegistration: a file registered from its footer
// gets its checksums from one read of the whole object (WithChecksums),
// the same a writer records, and reads of it are checked from then on.
func TestChecksum_AddFilesRegistration(t *testing.T) {
	st := newMemStore()
	written, _ := writeVocab(t, st, "t/data/all.parquet")
	f, err := datafile.ReadFooter(context.Background(), st, written.Path, 0, &vocab)
	if err != nil {
		t.Fatal(err)
	}
	if f.Checksum != "" || f.PartChecksums != nil {
		t.Fatalf("ReadFooter read the whole file: %q", f.Checksum)
	}
	f, err = datafile.WithChecksums(context.Background(), st, f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Checksum != written.Checksum || len(f.PartChecksums) != len(written.PartChecksums) {
		t.Fatalf("registered checksums %q %v, written %q %v", f.Checksum, f.PartChecksums, written.Checksum, written.PartChecksums)
	}
	if ok, err := datafile.VerifyFile(context.Background(), st, f); !ok || err != nil {
		t.Fatalf("VerifyFile of a sound file = %v, %v", ok, err)
	}
	st.objs[f.Path][len(st.objs[f.Path])/2] ^= 1
	if ok, err := datafile.VerifyFile(context.Background(), st, f); !ok || !errors.Is(err, datafile.ErrChecksum) {
		t.Fatalf("VerifyFile of a damaged file = %v, %v, want ErrChecksum", ok, err)
	}
	if ok, err := datafile.VerifyFile(context.Background(), st, manifest.DataFile{Path: f.Path}); ok || err != nil {
		t.Fatalf("VerifyFile without a recorded checksum = %v, %v, want unchecked", ok, err)
	}
}
