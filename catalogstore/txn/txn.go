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
// table, and replacing it would lose acknowledged rows.
func (x *Txn) Table(cat *catalogstore.Catalog, ds *catalogstore.Dataset, s *schema.Schema, snapshot int64) (*Table, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	key := ds.Ident().String()
	t, ok := x.tables[key]
	if ok && t.tg.ds.UUID != ds.UUID {
		return nil, &IncarnationError{Table: ds.Ident().Short(), Statement: true}
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

// Commit makes one catalog commit per dataset with staged work, in name
// order, and empties the transaction whatever the outcome. When it spans
// several datasets it first checks that none was dropped or recreated, so
// an *IncarnationError refuses the whole transaction; a failure of one
// dataset's commit after another's landed is reported with the datasets
// committed. Other errors are the catalog's (catalogstore.CommitError).
func (x *Txn) Commit(ctx context.Context, author string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.clear()
	keys := make([]string, 0, len(x.tables))
	for k := range x.tables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 1 {
		// One table refused after another committed would half-commit
		// the transaction: check every pinned incarnation first. (A race
		// after this check is still refused by each commit's guard.)
		for _, k := range keys {
			if err := x.tables[k].checkIncarnation(ctx); err != nil {
				return err
			}
		}
	}
	var committed []string
	for _, k := range keys {
		t := x.tables[k]
		if err := t.commit(ctx, author); err != nil {
			if errors.Is(err, catalogstore.ErrIncarnationChanged) || errors.Is(err, catalogstore.ErrDatasetNotFound) {
				return &IncarnationError{Table: t.tg.ds.Ident().Short(), Committed: committed}
			}
			return err
		}
		committed = append(committed, t.tg.ds.Ident().Short())
	}
	return nil
}
