package txn

import (
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Txn is a session's open write transaction: per dataset, the rows and
// files it adds, the rows it deletes, and whether it truncates. Nothing in
// it is visible to other sessions until Commit. It is safe for concurrent
// use, though a session runs one statement at a time.
type Txn struct {
	mu     sync.Mutex
	tables map[string]*Table // by dataset ident
}

// New returns an empty transaction.
func New() *Txn { return &Txn{tables: map[string]*Table{}} }

// Table returns the staged work on dataset ds (read at snapshot, under
// schema s), starting it at the transaction's first touch of ds, which
// pins ds's incarnation. A touch of another incarnation under the same
// name is an *IncarnationError: the staged work belongs to the dropped
// table, and replacing it would lose acknowledged rows. So is a touch
// under another schema (the table was altered since).
func (x *Txn) Table(cat *catalogstore.Catalog, ds *catalogstore.Dataset, s *schema.Schema, snapshot int64) (*Table, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	key := ds.Ident().String()
	t, ok := x.tables[key]
	if ok && t.tg.ds.UUID != ds.UUID {
		return nil, &IncarnationError{Table: ds.Ident().Short(), Statement: true}
	}
	if ok && t.tg.schema.ID != s.ID {
		// Its staged rows have the old schema's columns: rows of the new
		// one cannot join them (ALTER TABLE by another session).
		return nil, &IncarnationError{Table: ds.Ident().Short(), Statement: true, Altered: true}
	}
	if ok {
		return t, nil
	}
	staged, err := newParts(s, ds)
	if err != nil {
		return nil, err
	}
	t = &Table{x: x, tg: target{cat: cat, ds: ds, schema: s}, snapshot: snapshot, staged: staged}
	x.tables[key] = t
	return t, nil
}

// lookup returns the staged work on incarnation uuid of id, if any.
func (x *Txn) lookup(id catalogstore.Ident, uuid string) (*Table, bool) {
	t, ok := x.tables[id.String()]
	if !ok || t.tg.ds.UUID != uuid {
		return nil, false
	}
	return t, true
}

// Has reports whether anything is staged on incarnation uuid of id.
func (x *Txn) Has(id catalogstore.Ident, uuid string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.lookup(id, uuid)
	return ok
}

// Empty reports whether nothing is staged.
func (x *Txn) Empty() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.tables) == 0
}

// Forget drops staged work on a dataset (the session dropped it).
func (x *Txn) Forget(id catalogstore.Ident) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if t, ok := x.tables[id.String()]; ok {
		t.release()
		delete(x.tables, id.String())
	}
}

// Len is how many datasets have staged work.
func (x *Txn) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.tables)
}

// Rollback discards everything staged. Files already written for staged
// rows are orphans for cleanup; they are never referenced.
func (x *Txn) Rollback() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clear()
}

func (x *Txn) clear() {
	for k, t := range x.tables {
		t.release()
		delete(x.tables, k)
	}
}

// Commit makes the catalog commits of every dataset with staged work, and
// empties the transaction whatever the outcome. One dataset is one
// catalog commit; several are one catalog CommitAll, so they land
// together or not at all. A table dropped or recreated since the
// transaction first wrote it refuses the whole transaction with an
// *IncarnationError. Other errors are the catalog's
// (catalogstore.CommitError).
func (x *Txn) Commit(ctx context.Context, author string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.clear()
	keys := make([]string, 0, len(x.tables))
	for k := range x.tables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 1 {
		t := x.tables[keys[0]]
		if err := t.commit(ctx, author); err != nil {
			if errors.Is(err, catalogstore.ErrIncarnationChanged) || errors.Is(err, catalogstore.ErrDatasetNotFound) {
				return &IncarnationError{Table: t.tg.ds.Ident().Short()}
			}
			return err
		}
		return nil
	}
	// Check every pinned incarnation before writing any file: the common
	// refusal costs nothing. (A race after this check is still refused
	// by the guards of the one metastore transaction.)
	for _, k := range keys {
		if err := x.tables[k].checkIncarnation(ctx); err != nil {
			return err
		}
	}
	var commits []catalogstore.DatasetCommit
	var writers []*Table
	// Nothing references the files of a refused transaction.
	discard := func() {
		for i, dc := range commits {
			writers[i].tg.discard(ctx, dc.Commit.Added)
		}
	}
	for _, k := range keys {
		t := x.tables[k]
		cm, ok, err := t.prepare(ctx, author)
		if err != nil {
			discard()
			return err
		}
		if ok {
			commits = append(commits, catalogstore.DatasetCommit{ID: t.tg.ds.Ident(), Commit: cm})
			writers = append(writers, t)
		}
	}
	var err error
	switch len(commits) {
	case 0:
		return nil
	case 1:
		_, err = writers[0].tg.cat.Commit(ctx, commits[0].ID, commits[0].Commit)
	default:
		_, err = writers[0].tg.cat.CommitAll(ctx, commits)
	}
	return commitErr(err, commits, discard)
}

// commitErr maps the error of a transaction's catalog commit: a refusal
// discards the transaction's files, and a dropped or recreated table is
// an *IncarnationError naming it.
func commitErr(err error, commits []catalogstore.DatasetCommit, discard func()) error {
	if err == nil {
		return nil
	}
	if refused(err) {
		discard()
	}
	if errors.Is(err, catalogstore.ErrIncarnationChanged) || errors.Is(err, catalogstore.ErrDatasetNotFound) {
		table := commits[0].ID.Short()
		var ce *catalogstore.CommitError
		if errors.As(err, &ce) {
			table = ce.Dataset
		}
		return &IncarnationError{Table: table}
	}
	return err
}
