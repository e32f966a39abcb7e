package provider

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/scan"
)

// keyIndex answers, for a statement writing a table with a primary key,
// which row of the table (committed, staged by the transaction, written
// by the statement so far) holds a key. It is what makes INSERT refuse a
// duplicate (1062), and REPLACE and INSERT … ON DUPLICATE KEY UPDATE find
// the row they replace.
//
// It never reads the table whole: a lookup prunes the committed files by
// their key-column bounds in the manifest, reads the key columns only of a
// file that may hold the key, and the full rows of a file only when its
// keys include one looked up. Appending new keys beyond the bounds of
// every file reads nothing.
type keyIndex struct {
	t     *Table
	key   []int // the key columns (indexes into the schema) in key order
	files []manifest.DataFile
	path  string // the files' manifest (the pruner's cache key)
	// keysOf[i] is the key set of files[i] once its key columns were read;
	// full[i] is set when its rows are in live.
	keysOf []map[string]bool
	full   []bool
	// live holds the table's rows by key as far as they were loaded
	// (normally one per key; tables written before keys were enforced may
	// hold more).
	live map[string][]sql.Row
	// drop counts rows (by rowKey) deleted by the transaction that were
	// not loaded yet: they are dropped when their file is.
	drop map[string]int
	// undo reverts the running statement's changes (DiscardChanges); the
	// index outlives the statement only when it completes.
	undo []func(*sql.Context)
}

// valid reports whether the index describes t as a statement now reads
// it: the same snapshot and schema version.
func (ki *keyIndex) valid(t *Table) bool {
	return ki.t.ds.UUID == t.ds.UUID && ki.t.snapshot == t.snapshot && ki.t.schema.ID == t.schema.ID
}

// complete keeps the running statement's changes.
func (ki *keyIndex) complete() { ki.undo = nil }

// discard reverts the running statement's changes.
func (ki *keyIndex) discard(ctx *sql.Context) {
	for i := len(ki.undo) - 1; i >= 0; i-- {
		ki.undo[i](ctx)
	}
	ki.undo = nil
}

// newKeyIndex loads the index's starting point: the manifest's file list
// and the rows the transaction staged (which are in memory or few).
func newKeyIndex(ctx *sql.Context, w *WriteSet, t *Table) (*keyIndex, error) {
	ki := &keyIndex{t: t, key: t.schema.Key(), live: map[string][]sql.Row{}, drop: map[string]int{}}
	st, err := pendingRows(ctx, w, t, t.schema.FieldIDs())
	if err != nil {
		return nil, err
	}
	for _, r := range st.deletes {
		ki.drop[rowKey(r)]++
	}
	if t.snapshot != 0 && !st.truncated {
		files, snap, err := t.db.p.cat.Files(ctx, t.ds, t.snapshot)
		if err != nil {
			return nil, err
		}
		ki.files, ki.path = files, snap.ManifestKey()
		ki.keysOf, ki.full = make([]map[string]bool, len(files)), make([]bool, len(files))
	}
	for _, r := range st.rows {
		if err := ki.add(ctx, r); err != nil {
			return nil, err
		}
	}
	return ki, nil
}

// keyOf returns the key of full row r ("" when a key column is NULL,
// which matches nothing) and its values, converted to the columns' types
// so rows from a client and rows read back key alike.
func (ki *keyIndex) keyOf(ctx *sql.Context, r sql.Row) (string, sql.Row, error) {
	vals := make(sql.Row, len(ki.key))
	for i, c := range ki.key {
		if r[c] == nil {
			return "", nil, nil
		}
		v, _, err := ki.t.full[c].Type.Convert(ctx, r[c])
		if err != nil {
			return "", nil, err
		}
		vals[i] = v
	}
	return rowKey(vals), vals, nil
}

// add records full row r as present, unless a pending delete takes it
// (rows loaded from the table).
func (ki *keyIndex) add(ctx *sql.Context, r sql.Row) error {
	if rk := rowKey(r); ki.drop[rk] > 0 {
		ki.drop[rk]--
		return nil
	}
	return ki.put(ctx, r)
}

// insert records full row r, written by the running statement.
func (ki *keyIndex) insert(ctx *sql.Context, r sql.Row) error {
	if err := ki.put(ctx, r); err != nil {
		return err
	}
	ki.undo = append(ki.undo, func(ctx *sql.Context) { ki.take(ctx, r) })
	return nil
}

func (ki *keyIndex) put(ctx *sql.Context, r sql.Row) error {
	k, _, err := ki.keyOf(ctx, r)
	if err != nil || k == "" {
		return err
	}
	ki.live[k] = append(ki.live[k], r)
	return nil
}

// take removes full row r from live and reports whether it was there.
func (ki *keyIndex) take(ctx *sql.Context, r sql.Row) bool {
	k, _, err := ki.keyOf(ctx, r)
	if err != nil {
		return false
	}
	rk := rowKey(r)
	for i, x := range ki.live[k] {
		if rowKey(x) == rk {
			ki.live[k] = append(ki.live[k][:i:i], ki.live[k][i+1:]...)
			return true
		}
	}
	return false
}

// remove records full row r as deleted by the running statement.
func (ki *keyIndex) remove(ctx *sql.Context, r sql.Row) error {
	if _, _, err := ki.keyOf(ctx, r); err != nil {
		return err
	}
	r = r.Copy()
	if ki.take(ctx, r) {
		ki.undo = append(ki.undo, func(ctx *sql.Context) { _ = ki.put(ctx, r) })
		return nil
	}
	// Not loaded yet (a scanned row of an UPDATE): drop it on load.
	rk := rowKey(r)
	ki.drop[rk]++
	ki.undo = append(ki.undo, func(ctx *sql.Context) {
		if ki.drop[rk] > 0 {
			ki.drop[rk]--
			return
		}
		_ = ki.put(ctx, r) // a load took the drop: the row is live again
	})
	return nil
}

// existing returns a row holding full row r's key, if any.
func (ki *keyIndex) existing(ctx *sql.Context, r sql.Row) (sql.Row, error) {
	k, vals, err := ki.keyOf(ctx, r)
	if err != nil || k == "" {
		return nil, err
	}
	if err := ki.load(ctx, k, vals); err != nil {
		return nil, err
	}
	if rows := ki.live[k]; len(rows) > 0 {
		return rows[0], nil
	}
	return nil, nil
}

// load reads what the committed files may hold of key k (with values
// vals): the key columns of each file whose bounds admit it, and the full
// rows of a file whose keys include k.
func (ki *keyIndex) load(ctx *sql.Context, k string, vals sql.Row) error {
	if len(ki.files) == 0 {
		return nil
	}
	p := ki.t.db.p
	cands := p.pruner.Prune(ki.path, ki.files, ki.t.ds.Specs, ki.predicates(vals))
	may := make(map[string]bool, len(cands))
	for _, f := range cands {
		may[f.Path] = true
	}
	for i, f := range ki.files {
		if !may[f.Path] || ki.full[i] {
			continue
		}
		if ki.keysOf[i] == nil {
			if err := ki.readKeys(ctx, i); err != nil {
				return err
			}
		}
		if ki.keysOf[i][k] {
			if err := ki.readFull(ctx, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// predicates are key = vals, for pruning files by their bounds.
func (ki *keyIndex) predicates(vals sql.Row) []scan.Predicate {
	exprs := make([]sql.Expression, len(ki.key))
	for i, c := range ki.key {
		col := ki.t.full[c]
		exprs[i] = expression.NewEquals(expression.NewGetField(c, col.Type, col.Name, false), expression.NewLiteral(vals[i], col.Type))
	}
	return scan.Predicates(ki.t.schema, exprs)
}

func (ki *keyIndex) readKeys(ctx *sql.Context, i int) error {
	ids := make([]int, len(ki.key))
	for j, c := range ki.key {
		ids[j] = ki.t.schema.Columns[c].ID
	}
	rows, err := ki.read(ctx, i, ids)
	if err != nil {
		return err
	}
	set := make(map[string]bool, len(rows))
	full := make(sql.Row, len(ki.t.schema.Columns))
	for _, r := range rows {
		for j, c := range ki.key {
			full[c] = r[j]
		}
		k, _, err := ki.keyOf(ctx, full)
		if err != nil {
			return err
		}
		set[k] = true
	}
	ki.keysOf[i] = set
	return nil
}

func (ki *keyIndex) readFull(ctx *sql.Context, i int) error {
	rows, err := ki.read(ctx, i, ki.t.schema.FieldIDs())
	if err != nil {
		return err
	}
	ki.full[i] = true
	for _, r := range rows {
		if err := ki.add(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

func (ki *keyIndex) read(ctx *sql.Context, i int, ids []int) ([]sql.Row, error) {
	p := ki.t.db.p
	rows, err := scan.ReadAll(ctx, scan.Request{Store: p.cat.Blob(), Files: ki.files[i : i+1], Schema: ki.t.schema,
		FieldIDs: ids, Footers: p.footers})
	if err != nil {
		return nil, fmt.Errorf("check primary key of %s: %w", ki.t, err)
	}
	return rows, nil
}

// duplicate is MySQL's 1062 for key vals of r on table t, carrying the
// row that holds the key (GMS's REPLACE deletes it, and ON DUPLICATE KEY
// UPDATE updates it).
func (ki *keyIndex) duplicate(ctx *sql.Context, r, existing sql.Row) error {
	parts := make([]string, len(ki.key))
	for i, c := range ki.key {
		v, err := ki.t.full[c].Type.SQL(ctx, nil, r[c])
		if err != nil {
			parts[i] = fmt.Sprint(r[c])
			continue
		}
		parts[i] = v.ToString()
	}
	msg := fmt.Sprintf("Duplicate entry '%s' for key '%s.PRIMARY'", strings.Join(parts, "-"), ki.t.ds.Name)
	return sql.NewUniqueKeyErr(msg, true, existing)
}
