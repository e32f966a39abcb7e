package datafile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// Data file checksums.
//
// The Parquet format has a CRC field in every page header, but arrow-go
// (v18.9.0, the newest) neither writes nor checks it, and setting it after
// the fact would shift every offset the footer and page index record. So
// lakesql checksums the parts of a file its reader fetches separately and
// records them in the manifest entry (manifest.DataFile.PartChecksums),
// in this order:
//
//	[0]    the footer with its length and magic: the file's last 8+n bytes
//	[1]    the page index: from the first column or offset index to the
//	       end of the last (empty when the file has none)
//	[2..]  each column chunk, row group major, then leaf order: its
//	       dictionary page (when it has one) and then its data pages, as
//	       two parts, so that dictionary pruning, which reads only the
//	       dictionary page, is checked without reading the data pages
//
// Every read of a file whose entry records them is checked: the footer
// before it is decoded, and any other part before the decoder sees its
// bytes (a part read whole, as column chunks are, is checked in place; a
// part read piecemeal, as the page index and the page-skipping path's
// column chunks are, is fetched whole once, checked and served from
// memory). A mismatch is ErrChecksum naming the file and the part, never
// a wrong answer. The whole file's CRC-32C (manifest.DataFile.Checksum)
// is for deep verification, which reads every byte.

// span is the byte range [off, end) of a file.
type span struct{ off, end int64 }

// trailerLen is the footer length and "PAR1" after the footer.
const trailerLen = 8

// partSpans are the parts of a file of size bytes whose footer (md) is
// footerLen bytes long, in PartChecksums order. A part that lies outside
// the file is ErrBadFile.
func partSpans(md *metadata.FileMetaData, size, footerLen int64) ([]span, []string, error) {
	out := []span{{size - trailerLen - footerLen, size}, {}}
	names := []string{"the footer", "the page index"}
	pi := span{off: -1}
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		rmd := md.RowGroup(rg)
		for c := 0; c < rmd.NumColumns(); c++ {
			cc, err := rmd.ColumnChunk(c)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: row group %d column %d: %v", ErrBadFile, rg, c, err)
			}
			start, end := cc.DataPageOffset(), int64(0)
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
				dict := cc.DictionaryPageOffset()
				end = dict + cc.TotalCompressedSize()
				out = append(out, span{dict, start})
				names = append(names, fmt.Sprintf("the dictionary page of row group %d column %q", rg, md.Schema.Column(c).Name()))
			} else {
				end = start + cc.TotalCompressedSize()
			}
			out = append(out, span{start, end})
			names = append(names, fmt.Sprintf("the data pages of row group %d column %q", rg, md.Schema.Column(c).Name()))
			for _, loc := range locations(rmd, c) {
				if pi.off < 0 || loc.off < pi.off {
					pi.off = loc.off
				}
				pi.end = max(pi.end, loc.end)
			}
		}
	}
	if pi.off >= 0 {
		out[1] = pi
	}
	for i, s := range out {
		if s.off < 0 || s.end < s.off || s.end > size {
			return nil, nil, fmt.Errorf("%w: %s at bytes %d..%d of a %d-byte file", ErrBadFile, names[i], s.off, s.end, size)
		}
	}
	return out, names, nil
}

// locations are the page index ranges (column and offset index) of a
// column chunk.
func locations(rmd *metadata.RowGroupMetaData, c int) []span {
	var out []span
	if l, ok := rmd.ColumnIndexLocation(c); ok {
		out = append(out, span{l.Offset, l.Offset + int64(l.Length)})
	}
	if l, ok := rmd.OffsetIndexLocation(c); ok {
		out = append(out, span{l.Offset, l.Offset + int64(l.Length)})
	}
	return out
}

// Checksums computes the checksums of a whole file's bytes as a manifest
// entry records them: the file's CRC-32C and its parts' (see above). A
// file whose footer does not decode is ErrBadFile.
func Checksums(data []byte) (whole string, parts []uint32, err error) {
	defer func() {
		if p := recover(); p != nil {
			whole, parts, err = "", nil, fmt.Errorf("%w: footer decoder panic: %v", ErrBadFile, p)
		}
	}()
	size := int64(len(data))
	if size < 12 || !bytes.Equal(data[size-4:], []byte("PAR1")) {
		return "", nil, fmt.Errorf("%w: no PAR1 magic at the end", ErrBadFile)
	}
	n := int64(binary.LittleEndian.Uint32(data[size-trailerLen:]))
	if n <= 0 || n+trailerLen+4 > size {
		return "", nil, fmt.Errorf("%w: footer of %d bytes in a %d-byte file", ErrBadFile, n, size)
	}
	md, err := metadata.NewFileMetaData(data[size-trailerLen-n:size-trailerLen], nil)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	spans, _, err := partSpans(md, size, n)
	if err != nil {
		return "", nil, err
	}
	parts = make([]uint32, len(spans))
	for i, s := range spans {
		parts[i] = manifest.CRC32C(data[s.off:s.end])
	}
	return manifest.FileChecksum(manifest.CRC32C(data)), parts, nil
}

// WithChecksums returns f with the checksums of its file recorded, reading
// the whole object once (add_files registers foreign files this way: from
// then on every read of them is checked). The object must still be
// f.FileSize bytes.
func WithChecksums(ctx context.Context, store blob.Store, f manifest.DataFile) (manifest.DataFile, error) {
	data, err := store.Get(ctx, f.Path)
	if err != nil {
		return f, fmt.Errorf("checksum %s: %w", f.Path, err)
	}
	if f.FileSize > 0 && int64(len(data)) != f.FileSize {
		return f, fmt.Errorf("checksum %s: %w: the object is %d bytes, its footer was read from %d", f.Path, ErrBadFile, len(data), f.FileSize)
	}
	if f.Checksum, f.PartChecksums, err = Checksums(data); err != nil {
		return f, fmt.Errorf("checksum %s: %w", f.Path, err)
	}
	return f, nil
}

// VerifyFile reads the whole file of f once, in pieces, and compares its
// CRC-32C with the recorded one: ErrChecksum on a mismatch, nil when it
// matches or nothing is recorded (checked reports which). Deep
// verification calls it.
func VerifyFile(ctx context.Context, store blob.Store, f manifest.DataFile) (checked bool, err error) {
	if f.Checksum == "" {
		return false, nil
	}
	h := manifest.NewCRC32C()
	buf := make([]byte, min(max(f.FileSize, 1), verifyPiece))
	for off := int64(0); ; {
		n, err := store.ReadAt(ctx, f.Path, buf, off)
		h.Write(buf[:n])
		off += int64(n)
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return false, fmt.Errorf("verify %s: %w", f.Path, err)
		}
	}
	if got := manifest.FileChecksum(h.Sum32()); got != f.Checksum {
		return true, &checksumErr{msg: fmt.Sprintf("verify %s: %v: the file's is %s, the manifest records %s", f.Path, ErrChecksum, got, f.Checksum)}
	}
	return true, nil
}

// verifyPiece is how much of a file VerifyFile reads at a time.
const verifyPiece = 4 << 20

// checkedSource is the object a Reader decodes, its parts checked against
// their recorded checksums (see above). ReadAt is safe for concurrent use.
type checkedSource struct {
	*blob.ReaderAt
	path  string
	names []string // by part index
	spans []span   // by part index
	sums  []uint32
	order []int // part indexes by offset, parts 1.. only (the footer is checked on open)

	mu     sync.Mutex
	err    error          // the first checksum mismatch
	whole  map[int][]byte // parts read piecemeal: fetched whole and checked
	cached int64          // bytes in whole
}

// maxCachedParts bounds the bytes of parts a checkedSource keeps for
// piecemeal reads; past it the older ones are dropped (and fetched again
// if read again).
const maxCachedParts = 64 << 20

func newCheckedSource(src *blob.ReaderAt, path string, spans []span, names []string, sums []uint32) *checkedSource {
	order := make([]int, 0, len(spans)-1)
	for i := 1; i < len(spans); i++ {
		if spans[i].end > spans[i].off {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return int(spans[a].off - spans[b].off) })
	return &checkedSource{ReaderAt: src, path: path, names: names, spans: spans, sums: sums, order: order, whole: map[int][]byte{}}
}

// ReadAt reads p at off from the object; a part wholly inside the read is
// checked in place, one the read cuts is served from a checked copy.
func (s *checkedSource) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.ReaderAt.ReadAt(p, off)
	end := off + int64(n)
	for _, i := range s.order {
		sp := s.spans[i]
		if sp.off >= end {
			break
		}
		if sp.end <= off {
			continue
		}
		if sp.off >= off && sp.end <= end {
			if cerr := s.check(i, p[sp.off-off:sp.end-off]); cerr != nil {
				return 0, cerr
			}
			continue
		}
		part, cerr := s.part(i)
		if cerr != nil {
			return 0, cerr
		}
		lo, hi := max(off, sp.off), min(end, sp.end)
		copy(p[lo-off:hi-off], part[lo-sp.off:hi-sp.off])
	}
	return n, err
}

// part returns part i whole, checked: from memory, or fetched once.
func (s *checkedSource) part(i int) ([]byte, error) {
	s.mu.Lock()
	b, ok := s.whole[i]
	s.mu.Unlock()
	if ok {
		return b, nil
	}
	sp := s.spans[i]
	b = make([]byte, sp.end-sp.off)
	if n, err := s.ReaderAt.ReadAt(b, sp.off); n != len(b) {
		if err == nil {
			err = fmt.Errorf("%w: short read of %s", ErrBadFile, s.names[i])
		}
		return nil, err
	}
	if err := s.check(i, b); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached+int64(len(b)) > maxCachedParts {
		clear(s.whole)
		s.cached = 0
	}
	s.whole[i] = b
	s.cached += int64(len(b))
	return b, nil
}

// check compares part i's bytes with its recorded checksum.
func (s *checkedSource) check(i int, b []byte) error {
	got := manifest.CRC32C(b)
	if got == s.sums[i] {
		return nil
	}
	err := checksumError(s.path, s.names[i], s.spans[i], got, s.sums[i])
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	return err
}

// Err is the first checksum mismatch or failed read, for telling damage
// from a decoder's own complaints (Reader.decodeErr).
func (s *checkedSource) Err() error {
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.ReaderAt.Err()
}

func checksumError(path, part string, sp span, got, want uint32) error {
	return &checksumErr{msg: fmt.Sprintf("read %s: %v in %s (bytes %d..%d): crc32c %08x, recorded %08x; the file is damaged (run lakesql fsck --deep)",
		path, ErrChecksum, part, sp.off, sp.end, got, want)}
}

// checksumErr is ErrChecksum, which is also damage (ErrBadFile).
type checksumErr struct{ msg string }

func (e *checksumErr) Error() string { return e.msg }

func (e *checksumErr) Is(target error) bool { return target == ErrChecksum || target == ErrBadFile }
