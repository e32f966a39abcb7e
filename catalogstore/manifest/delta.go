package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// A delta manifest records one commit's change to the live list instead of
// the whole list: the entries it added and the paths of the files it
// removed. A snapshot's live list is then a consolidated base manifest
// with a short chain of deltas applied in order (chain.go), so a commit to
// a large table writes metadata in proportion to its change.
//
// A delta is a version 3 manifest file with footer key
// lakesql.manifest.kind = "delta" and one more column, removed (bool):
// rows with removed false are added entries, exactly as in a consolidated
// manifest; rows with removed true carry only the path of a file the delta
// removes (every other field zero or null). The footer also names the
// link the delta applies over (lakesql.manifest.prev: the base's name for
// the first delta, else the previous delta's) and its position in the
// chain (lakesql.manifest.seq, from 1), so a chain wired wrongly is
// reported as corrupt instead of answering a wrong list. The checksum is
// the same whole-file CRC-32C as a consolidated manifest's. Read and
// Decode refuse a delta (and ReadDelta a consolidated manifest): neither
// is ever mistaken for the other.

// Delta is the change one delta manifest records. Apply removes Removed
// first, then appends Added, in order.
type Delta struct {
	// Prev names the chain link the delta applies over: the base
	// manifest's object name (its key's last element) for the first
	// delta of a chain, else the previous delta's.
	Prev string
	// Seq is the delta's position in its chain, from 1.
	Seq int
	// Added are the entries the delta makes live.
	Added []DataFile
	// Removed are the paths of the live files the delta drops.
	Removed []string
}

// Entries is the number of rows the delta's file holds.
func (d *Delta) Entries() int { return len(d.Added) + len(d.Removed) }

// EncodeDelta returns the bytes of the delta manifest d, as WriteDelta
// stores them. An added entry that fails Validate, an empty removed path
// or a missing Prev gives ErrInvalid.
func EncodeDelta(d *Delta) ([]byte, error) {
	if d.Prev == "" || d.Seq < 1 {
		return nil, fmt.Errorf("%w: delta without the link it applies over (prev %q, seq %d)", ErrInvalid, d.Prev, d.Seq)
	}
	for i, p := range d.Removed {
		if p == "" {
			return nil, fmt.Errorf("%w: removed path %d is empty", ErrInvalid, i)
		}
	}
	removed := d.Removed
	if removed == nil {
		removed = []string{} // not nil: encode writes the delta schema
	}
	return encode(d.Added, removed, [][2]string{
		{metaKind, kindDelta},
		{metaPrev, d.Prev},
		{metaSeq, strconv.Itoa(d.Seq)},
	})
}

// WriteDelta writes d at key, created with IfNotExists (an existing key
// gives blob.ErrExists), and returns its size in bytes. Errors as
// EncodeDelta.
func WriteDelta(ctx context.Context, store blob.Store, key string, d *Delta) (int64, error) {
	data, err := EncodeDelta(d)
	if err != nil {
		return 0, fmt.Errorf("write delta manifest %s: %w", key, err)
	}
	if err := store.Put(ctx, key, bytes.NewReader(data), blob.PutOptions{IfNotExists: true}); err != nil {
		return 0, fmt.Errorf("write delta manifest %s: %w", key, err)
	}
	return int64(len(data)), nil
}

// ReadDelta reads the delta manifest at key, decoding what opts selects of
// its added entries (the removed paths are always decoded; with
// opts.AddedBy only the entries that snapshot added are kept). Errors as
// Read: a damaged file, or a consolidated manifest, wraps ErrCorrupt.
// Safe for concurrent use.
func ReadDelta(ctx context.Context, store blob.Store, key string, opts DecodeOptions) (*Delta, error) {
	data, err := store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read delta manifest %s: %w", key, err)
	}
	d, err := DecodeDelta(data, opts)
	if err != nil {
		return nil, fmt.Errorf("read delta manifest %s: %w", key, err)
	}
	return d, nil
}

// DecodeDelta decodes delta manifest bytes as EncodeDelta produced them.
// Failures wrap ErrCorrupt.
func DecodeDelta(data []byte, opts DecodeOptions) (d *Delta, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, MarkCorrupt(fmt.Errorf("decoder panic: %v", r))
		}
	}()
	d, err = decode(data, opts, true)
	if err != nil {
		return nil, MarkCorrupt(err)
	}
	return d, nil
}

// readLink reads the footer fields naming the link d applies over.
func (d *Delta) readLink(kv metadata.KeyValueMetadata) error {
	prev, seq := kv.FindValue(metaPrev), kv.FindValue(metaSeq)
	if prev == nil || *prev == "" || seq == nil {
		return errors.New("delta manifest without the link it applies over")
	}
	n, err := strconv.Atoi(*seq)
	if err != nil || n < 1 {
		return fmt.Errorf("delta manifest with bad position %q", *seq)
	}
	d.Prev, d.Seq = *prev, n
	return nil
}

// splitRemoved separates a delta's decoded rows into its added entries and
// its removed paths, by the removed column.
func splitRemoved(rows []DataFile, col arrow.Array) ([]DataFile, []string, error) {
	flags, ok := col.(*array.Boolean)
	if !ok || flags.Len() != len(rows) {
		return nil, nil, errors.New("removed: missing or misaligned column")
	}
	added := rows[:0:0]
	var removed []string
	for i := range rows {
		if !flags.Value(i) {
			added = append(added, rows[i])
			continue
		}
		if rows[i].Path == "" {
			return nil, nil, fmt.Errorf("removal row %d without a path", i)
		}
		removed = append(removed, rows[i].Path)
	}
	return added, removed, nil
}

// Apply returns live with d applied: every entry whose path d removes is
// dropped, then d's added entries are appended, so the order is the one a
// consolidated manifest written by the same commit has. live is not
// modified (it may be a cached list). A removed path that is not live, or
// an added path that already is, gives ErrCorrupt: a chain that does not
// fit its base is never answered from.
func Apply(live []DataFile, d *Delta) ([]DataFile, error) {
	gone := make(map[string]bool, len(d.Removed))
	for _, p := range d.Removed {
		gone[p] = true
	}
	out := make([]DataFile, 0, len(live)+len(d.Added))
	found := map[string]bool{}
	for _, f := range live {
		if gone[f.Path] {
			found[f.Path] = true
			continue
		}
		out = append(out, f)
	}
	if len(found) != len(gone) {
		for p := range gone {
			if !found[p] {
				return nil, MarkCorrupt(fmt.Errorf("delta %d removes %s, which is not live", d.Seq, p))
			}
		}
	}
	paths := make(map[string]bool, len(out))
	for _, f := range out {
		paths[f.Path] = true
	}
	for _, f := range d.Added {
		if paths[f.Path] {
			return nil, MarkCorrupt(fmt.Errorf("delta %d adds %s, which is already live", d.Seq, f.Path))
		}
		paths[f.Path] = true
		out = append(out, f)
	}
	return out, nil
}

// Merge returns one delta equivalent to applying a and then b: a file a
// adds and b removes appears in neither list, and the added entries keep
// their order, so Apply(Apply(l, a), b) and Apply(l, Merge(a, b)) are the
// same list. The result applies where a does (a's Prev and Seq).
func Merge(a, b *Delta) *Delta {
	dropped := make(map[string]bool, len(b.Removed))
	for _, p := range b.Removed {
		dropped[p] = true
	}
	out := &Delta{Prev: a.Prev, Seq: a.Seq}
	addedByA := make(map[string]bool, len(a.Added))
	for _, f := range a.Added {
		addedByA[f.Path] = true
		if !dropped[f.Path] {
			out.Added = append(out.Added, f)
		}
	}
	out.Added = append(out.Added, b.Added...)
	out.Removed = append(out.Removed, a.Removed...)
	for _, p := range b.Removed {
		if !addedByA[p] {
			out.Removed = append(out.Removed, p)
		}
	}
	return out
}
