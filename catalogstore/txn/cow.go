package txn

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// multiset counts row keys still to delete.
type multiset map[string]int

// deleteKeys is the multiset of the staged deletes' rows.
func (t *Table) deleteKeys() (multiset, error) {
	cols, types := allCols(t.tg.schema)
	want := multiset{}
	for _, rec := range t.deletes {
		keys, err := rowKeys(rec, cols, types)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			want[k]++
		}
	}
	return want, nil
}

// takeFrom removes from want the rows of recs it holds, and returns the
// records of the rows kept (nil when none matched: recs stay as they are).
func (t *Table) takeFrom(ctx context.Context, want multiset, recs []arrow.Record) (kept []arrow.Record, hit bool, err error) {
	return t.filter(ctx, recs, func(k string) bool {
		if want[k] > 0 {
			want[k]--
			return false
		}
		return true
	})
}

// filter returns the records of the rows of recs that keep accepts (it is
// called once per row, in order), and whether any row was left out; when
// none was, kept is nil and recs stay as they are.
func (t *Table) filter(ctx context.Context, recs []arrow.Record, keep func(key string) bool) (kept []arrow.Record, dropped bool, err error) {
	cols, types := allCols(t.tg.schema)
	return filterCols(ctx, recs, cols, types, keep)
}

// filterCols is filter over the key of the columns cols only.
func filterCols(ctx context.Context, recs []arrow.Record, cols []int, types []schema.Type, keep func(key string) bool) (kept []arrow.Record, dropped bool, err error) {
	keeps := make([][]int64, len(recs))
	for r, rec := range recs {
		keys, err := rowKeys(rec, cols, types)
		if err != nil {
			return nil, false, err
		}
		for i, k := range keys {
			if !keep(k) {
				dropped = true
				continue
			}
			keeps[r] = append(keeps[r], int64(i))
		}
	}
	if !dropped {
		return nil, false, nil
	}
	for r, rec := range recs {
		if len(keeps[r]) == 0 {
			continue
		}
		k, err := take(ctx, rec, keeps[r])
		if err != nil {
			release(kept)
			return nil, false, err
		}
		kept = append(kept, k)
	}
	return kept, true, nil
}

// cancelStaged applies the staged deletes to the transaction's own staged
// rows first, so a row inserted and then deleted in one transaction is
// never written (equal rows are indistinguishable: which copy a delete
// takes does not change the result). The deletes left are of committed
// rows. A staged file that loses rows is dropped (an orphan, as after a
// rollback) and its other rows staged again in memory.
func (t *Table) cancelStaged(ctx context.Context) error {
	want, err := t.deleteKeys()
	if err != nil {
		return err
	}
	var files []manifest.DataFile
	for _, f := range t.files {
		recs, err := t.tg.readFile(ctx, f)
		if err != nil {
			return err
		}
		kept, hit, err := t.takeFrom(ctx, want, recs)
		release(recs)
		if err != nil {
			return err
		}
		if !hit {
			files = append(files, f)
			continue
		}
		t.rows -= int(f.RecordCount)
		if err := t.restage(ctx, kept); err != nil {
			return err
		}
	}
	t.files = files
	for _, k := range t.staged.keys() {
		pr := t.staged.m[k]
		kept, hit, err := t.takeFrom(ctx, want, pr.recs)
		if err != nil {
			return err
		}
		if !hit {
			continue
		}
		t.rows -= pr.rows
		release(pr.recs)
		pr.recs, pr.rows = kept, 0
		for _, r := range kept {
			pr.rows += int(r.NumRows())
		}
		t.rows += pr.rows
		if pr.rows == 0 {
			delete(t.staged.m, k)
		}
	}
	// The deletes left are of committed rows: as many of each as want
	// still holds.
	left, dropped, err := t.filter(ctx, t.deletes, func(k string) bool {
		if want[k] > 0 {
			want[k]--
			return true
		}
		return false
	})
	if err != nil || !dropped {
		return err
	}
	release(t.deletes)
	t.deletes = left
	return nil
}

// restage adds records (owned from now on) to the staged rows.
func (t *Table) restage(ctx context.Context, recs []arrow.Record) error {
	defer release(recs)
	for _, rec := range recs {
		if _, err := t.staged.add(ctx, rec); err != nil {
			return err
		}
		t.rows += int(rec.NumRows())
	}
	return nil
}

// applyDeletes rewrites every live file holding a deleted row (copy on
// write) and returns the files it replaces and their rewrites. Rows match
// as multisets: deleting one of two equal rows keeps the other. Files
// whose bounds rule the deleted rows out are not read (deletePruner).
func (t *Table) applyDeletes(ctx context.Context) (removed []string, rewritten []manifest.DataFile, err error) {
	want, err := t.deleteKeys()
	if err != nil {
		return nil, nil, err
	}
	files, _, err := t.tg.cat.Files(ctx, t.tg.ds, t.snapshot)
	if err != nil {
		return nil, nil, err
	}
	pr := t.newDeletePruner()
	for _, f := range files {
		if !pr.mayHold(f) {
			continue
		}
		recs, err := t.tg.readFile(ctx, f)
		if err != nil {
			return nil, nil, err
		}
		kept, hit, err := t.takeFrom(ctx, want, recs)
		if err != nil {
			release(recs)
			return nil, nil, err
		}
		if !hit {
			kept, recs = recs, nil
		}
		release(recs)
		if len(t.keyDeletes) > 0 {
			old := kept
			var byKey bool
			kept, byKey, err = t.dropKeys(ctx, old, t.keyDeletes)
			release(old)
			if err != nil {
				return nil, nil, err
			}
			hit = hit || byKey
		}
		if !hit {
			release(kept)
			continue
		}
		removed = append(removed, f.Path)
		if len(kept) == 0 {
			continue
		}
		nf, err := t.tg.writeFile(ctx, kept, f.PartitionValues)
		release(kept)
		if err != nil {
			return nil, nil, err
		}
		nf.SpecID = f.SpecID // a rewrite keeps the file's partition
		rewritten = append(rewritten, nf)
	}
	return removed, rewritten, nil
}
