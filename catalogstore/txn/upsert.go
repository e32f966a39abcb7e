package txn

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Upsert stages rec's rows (full rows in schema column order) in the
// running statement, each replacing every row of the table whose key
// columns keyCols hold equal values: committed rows, rows staged by
// earlier statements and earlier in this statement. Among rec's rows a
// later one replaces an earlier one with the same key, as REPLACE does row
// by row. A key with a NULL matches nothing (as in a MySQL unique key).
// The deletions and the rows land in the transaction's one commit per
// dataset; a discarded statement undoes both. One transaction upserts a
// dataset by one key. The caller releases rec.
//
// It is the base of REPLACE and INSERT … ON DUPLICATE KEY UPDATE by
// primary key (the provider computes the updated rows).
func (t *Table) Upsert(ctx context.Context, keyCols []int, rec arrow.Record) error {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	if t.keyCols != nil && !slices.Equal(t.keyCols, keyCols) {
		return fmt.Errorf("upsert %s: key columns %v, the transaction already upserts by %v", t.tg.ds.Ident().Short(), keyCols, t.keyCols)
	}
	t.keyCols = slices.Clone(keyCols)
	st, err := t.statement()
	if err != nil {
		return err
	}
	keys, err := t.keysOf(rec)
	if err != nil {
		return err
	}
	// The last row of each key wins; its key replaces everything before.
	last := map[string]int{}
	for i, k := range keys {
		if k != "" {
			last[k] = i
		}
	}
	var rows []int64
	for i, k := range keys {
		if k == "" || last[k] == i {
			rows = append(rows, int64(i))
		}
	}
	set := map[string]bool{}
	for k := range last {
		set[k] = true
	}
	// Rows the statement staged before, in memory or flushed.
	for _, k := range st.ps.keys() {
		pr := st.ps.m[k]
		kept, dropped, err := t.dropKeys(ctx, pr.recs, set)
		if err != nil {
			return err
		}
		if dropped {
			release(pr.recs)
			pr.recs, pr.rows = kept, rowsOf(kept)
		} else {
			release(kept)
		}
	}
	if st.files, err = t.dropKeysInFiles(ctx, st.files, set, st.ps); err != nil {
		return err
	}
	if st.keyDeletes == nil {
		st.keyDeletes = map[string]bool{}
	}
	for k := range set {
		st.keyDeletes[k] = true
	}
	piece, err := take(ctx, rec, rows)
	if err != nil {
		return err
	}
	defer piece.Release()
	return t.appendLocked(ctx, st, piece)
}

// keysOf returns the key of each row of rec over t.keyCols, "" for a key
// holding a NULL.
func (t *Table) keysOf(rec arrow.Record) ([]string, error) {
	types := make([]schema.Type, len(t.keyCols))
	for i, c := range t.keyCols {
		if c < 0 || c >= len(t.tg.schema.Columns) {
			return nil, fmt.Errorf("upsert %s: no column %d", t.tg.ds.Ident().Short(), c)
		}
		types[i] = t.tg.schema.Columns[c].Type
	}
	keys, err := rowKeys(rec, t.keyCols, types)
	if err != nil {
		return nil, err
	}
	for _, c := range t.keyCols {
		if col := rec.Column(c); col.NullN() > 0 {
			for i := range keys {
				if col.IsNull(i) {
					keys[i] = ""
				}
			}
		}
	}
	return keys, nil
}

// dropKeys returns recs less the rows whose key (over t.keyCols) is in
// set, and whether any was dropped; when none was, kept is recs again
// (retained).
func (t *Table) dropKeys(ctx context.Context, recs []arrow.Record, set map[string]bool) (kept []arrow.Record, dropped bool, err error) {
	kept = make([]arrow.Record, 0, len(recs))
	for _, rec := range recs {
		keys, err := t.keysOf(rec)
		if err != nil {
			release(kept)
			return nil, false, err
		}
		var rows []int64
		for i, k := range keys {
			if k != "" && set[k] {
				dropped = true
				continue
			}
			rows = append(rows, int64(i))
		}
		if len(rows) == 0 {
			continue
		}
		piece, err := take(ctx, rec, rows)
		if err != nil {
			release(kept)
			return nil, false, err
		}
		kept = append(kept, piece)
	}
	return kept, dropped, nil
}

// dropKeysInFiles drops the staged files holding a row whose key is in set
// and stages their other rows again in ps.
func (t *Table) dropKeysInFiles(ctx context.Context, files []manifest.DataFile, set map[string]bool, ps *parts) ([]manifest.DataFile, error) {
	var out []manifest.DataFile
	for _, f := range files {
		recs, err := t.tg.readFile(ctx, f)
		if err != nil {
			return nil, err
		}
		kept, dropped, err := t.dropKeys(ctx, recs, set)
		release(recs)
		if err != nil {
			return nil, err
		}
		if !dropped {
			release(kept)
			out = append(out, f)
			continue
		}
		for _, r := range kept {
			_, err := ps.add(ctx, r)
			r.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func rowsOf(recs []arrow.Record) int {
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	return n
}
