package txn_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/catalogstore/txn"
)

// env is a catalog on SQLite and a local folder with workspace w,
// collection c.
type env struct {
	ctx context.Context
	cat *catalogstore.Catalog
	sch *schema.Schema // the datasets' schema, with field ids
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	m, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); b.Close() })
	cat := catalogstore.New(m, b, catalogstore.Options{NoAudit: true})
	if _, err := cat.CreateWorkspace(ctx, "w", "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateCollection(ctx, "w", "c", "tester", catalogstore.CreateCollectionOptions{}); err != nil {
		t.Fatal(err)
	}
	return &env{ctx: ctx, cat: cat}
}

var rowSchema = schema.Schema{Columns: []schema.Column{
	{Name: "id", Type: schema.Type{Kind: schema.Int64}},
	{Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
}}

// create makes dataset c.name with (id BIGINT, s STRING), partitioned by
// spec when given.
func (e *env) create(t *testing.T, name string, spec *partition.Spec) *catalogstore.Dataset {
	t.Helper()
	ds, err := e.cat.CreateDataset(e.ctx, id(name), rowSchema, "tester", catalogstore.CreateDatasetOptions{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	e.sch = &ds.Schema
	return ds
}

func id(name string) catalogstore.Ident {
	return catalogstore.Ident{Workspace: "w", Collection: "c", Name: name}
}

// load reads the dataset's current document.
func (e *env) load(t *testing.T, name string) *catalogstore.Dataset {
	t.Helper()
	ds, err := e.cat.Dataset(e.ctx, id(name))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// table starts (or returns) x's staged work on the dataset as loaded now.
func (e *env) table(t *testing.T, x *txn.Txn, name string) *txn.Table {
	t.Helper()
	ds := e.load(t, name)
	tt, err := x.Table(e.cat, ds, &ds.Schema, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// rec builds a record of (id, s) rows; s is "s<id>".
func (e *env) rec(ids ...int64) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(e.sch))
	defer b.Release()
	for _, i := range ids {
		b.Field(0).(*array.Int64Builder).Append(i)
		b.Field(1).(*array.StringBuilder).Append("s" + string(rune('0'+i%10)))
	}
	return b.NewRecord()
}

// stmt runs one statement on tt: appends and deletes, then Complete.
func stmt(t *testing.T, e *env, tt *txn.Table, add, del []int64) {
	t.Helper()
	if err := tt.Begin(); err != nil {
		t.Fatal(err)
	}
	if len(add) > 0 {
		r := e.rec(add...)
		if err := tt.Append(e.ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	if len(del) > 0 {
		r := e.rec(del...)
		if err := tt.Delete(r); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	if err := tt.Complete(e.ctx); err != nil {
		t.Fatal(err)
	}
}

// ids returns the ids of the dataset's current rows, sorted, and its head
// snapshot.
func (e *env) ids(t *testing.T, name string) ([]int64, int64) {
	t.Helper()
	ds := e.load(t, name)
	files, _, err := e.cat.Files(e.ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, f := range files {
		r, err := datafile.Open(e.ctx, e.cat.Blob(), f, &ds.Schema, ds.Schema.FieldIDs())
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rec.Column(0).(*array.Int64).Int64Values()...)
			rec.Release()
		}
		r.Close()
	}
	slices.Sort(out)
	return out, ds.CurrentSnapshotID
}

func wantIDs(t *testing.T, e *env, name string, want ...int64) int64 {
	t.Helper()
	got, head := e.ids(t, name)
	if !slices.Equal(got, want) {
		t.Fatalf("%s holds %v, want %v", name, got, want)
	}
	return head
}

// TestTxn_Insert: two statements' rows land in one commit; a discarded
// statement's rows do not.
func TestTxn_Insert(t *testing.T) {
	e := newEnv(t)
	e.create(t, "t", nil)
	x := txn.New()
	tt := e.table(t, x, "t")
	stmt(t, e, tt, []int64{1, 2}, nil)
	stmt(t, e, tt, []int64{3}, nil)
	if err := tt.Begin(); err != nil {
		t.Fatal(err)
	}
	r := e.rec(99)
	if err := tt.Append(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Release()
	tt.Discard()
	if x.Empty() {
		t.Fatal("transaction empty after two statements")
	}
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	if !x.Empty() {
		t.Fatal("transaction not empty after Commit")
	}
	if head := wantIDs(t, e, "t", 1, 2, 3); head != 1 {
		t.Fatalf("head snapshot %d, want 1 (one commit)", head)
	}
}

// TestTxn_DeleteCopyOnWrite: deleting one of two equal rows rewrites the
// file holding it and keeps the other copy; deleting a row nobody holds
// makes no snapshot.
func TestTxn_DeleteCopyOnWrite(t *testing.T) {
	e := newEnv(t)
	e.create(t, "t", nil)
	x := txn.New()
	stmt(t, e, e.table(t, x, "t"), []int64{1, 2, 2, 3}, nil)
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	stmt(t, e, e.table(t, x, "t"), nil, []int64{2})
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	head := wantIDs(t, e, "t", 1, 2, 3)
	ds := e.load(t, "t")
	snap, err := e.cat.Snapshot(e.ctx, ds, head)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Operation != catalogstore.OpDelete || snap.Summary.DeletedFiles != 1 || snap.Summary.AddedFiles != 1 {
		t.Fatalf("delete snapshot: %s, %d files deleted, %d added; want a delete replacing one file", snap.Operation, snap.Summary.DeletedFiles, snap.Summary.AddedFiles)
	}
	stmt(t, e, e.table(t, x, "t"), nil, []int64{42})
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	if h := wantIDs(t, e, "t", 1, 2, 3); h != head {
		t.Fatalf("a delete matching nothing made snapshot %d", h)
	}
}

// TestTxn_StagedCancel: a row inserted and deleted in one transaction is
// never written — in memory or already flushed to a staged file — and the
// delete does not also take a committed copy of it.
func TestTxn_StagedCancel(t *testing.T) {
	e := newEnv(t)
	e.create(t, "t", nil)
	x := txn.New()
	stmt(t, e, e.table(t, x, "t"), []int64{7}, nil)
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	tt := e.table(t, x, "t")
	stmt(t, e, tt, []int64{7, 8}, nil)
	stmt(t, e, tt, nil, []int64{7, 8})
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	if head := wantIDs(t, e, "t", 7); head != 1 {
		t.Fatalf("cancelled rows made snapshot %d", head)
	}

	// Staged rows flushed to a file (FlushRows of them) are cancelled too:
	// the file is dropped and its other rows written again.
	big := make([]int64, txn.FlushRows)
	for i := range big {
		big[i] = int64(100 + i)
	}
	tt = e.table(t, x, "t")
	stmt(t, e, tt, big, nil)
	stmt(t, e, tt, nil, []int64{100, 7})
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	got, _ := e.ids(t, "t")
	if len(got) != txn.FlushRows-1 || got[0] != 101 || slices.Contains(got, 7) {
		t.Fatalf("after cancelling a flushed row: %d rows from %v, want %d from 101 and no 7", len(got), got[:3], txn.FlushRows-1)
	}
}

// TestTxn_Truncate: a truncate removes committed and staged rows; rows
// staged after it are the table's content.
func TestTxn_Truncate(t *testing.T) {
	e := newEnv(t)
	e.create(t, "t", nil)
	x := txn.New()
	stmt(t, e, e.table(t, x, "t"), []int64{1, 2}, nil)
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	tt := e.table(t, x, "t")
	stmt(t, e, tt, []int64{3}, nil)
	if n := tt.Truncate(); n != 3 {
		t.Fatalf("truncate removed %d rows, want 3", n)
	}
	stmt(t, e, tt, []int64{4}, nil)
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	wantIDs(t, e, "t", 4)
}

// TestTxn_CommitConflict: appends prepared on one snapshot both land (they
// commute); a delete prepared on a snapshot another delete moved past is
// refused with a commit conflict and changes nothing.
func TestTxn_CommitConflict(t *testing.T) {
	e := newEnv(t)
	e.create(t, "t", nil)
	setup := txn.New()
	stmt(t, e, e.table(t, setup, "t"), []int64{1, 2, 3}, nil)
	if err := setup.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	a, b := txn.New(), txn.New()
	stmt(t, e, e.table(t, a, "t"), []int64{4}, nil)
	stmt(t, e, e.table(t, b, "t"), []int64{5}, nil)
	if err := a.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(e.ctx, "tester"); err != nil {
		t.Fatalf("second append on the same snapshot: %v", err)
	}
	wantIDs(t, e, "t", 1, 2, 3, 4, 5)

	stmt(t, e, e.table(t, a, "t"), nil, []int64{1})
	stmt(t, e, e.table(t, b, "t"), nil, []int64{2})
	if err := a.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	err := b.Commit(e.ctx, "tester")
	if !errors.Is(err, catalogstore.ErrCommitConflict) {
		t.Fatalf("delete on a stale snapshot: %v, want ErrCommitConflict", err)
	}
	if !b.Empty() {
		t.Fatal("a refused commit left work staged")
	}
	wantIDs(t, e, "t", 2, 3, 4, 5)
}

// TestTxn_SeveralTablesAllOrNothing: a transaction writing two tables
// whose second (by name) commit loses a race it cannot re-base — its
// DELETE was prepared on a snapshot another delete moved past — is
// refused whole: the first table's rows do not land either (the
// randomized schedule found them committed beside a 1213). When the lost
// race is only an append, the transaction re-bases and both tables take
// its rows.
func TestTxn_SeveralTablesAllOrNothing(t *testing.T) {
	e := newEnv(t)
	e.create(t, "a", nil)
	e.create(t, "b", nil)
	setup := txn.New()
	stmt(t, e, e.table(t, setup, "b"), []int64{1, 2, 3}, nil)
	if err := setup.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}

	x, rival := txn.New(), txn.New()
	stmt(t, e, e.table(t, x, "a"), []int64{10, 11}, nil)
	stmt(t, e, e.table(t, x, "b"), nil, []int64{1})
	stmt(t, e, e.table(t, rival, "b"), nil, []int64{2})
	if err := rival.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	err := x.Commit(e.ctx, "tester")
	var ce *catalogstore.CommitError
	if !errors.Is(err, catalogstore.ErrCommitConflict) || !errors.As(err, &ce) || ce.Dataset != "c.b" {
		t.Fatalf("COMMIT after a rival delete on b: %v, want a commit conflict on c.b", err)
	}
	wantIDs(t, e, "a")
	wantIDs(t, e, "b", 1, 3)

	stmt(t, e, e.table(t, x, "a"), []int64{10, 11}, nil)
	stmt(t, e, e.table(t, x, "b"), []int64{20}, nil)
	stmt(t, e, e.table(t, rival, "b"), []int64{21}, nil)
	if err := rival.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatalf("COMMIT of appends after a rival append: %v", err)
	}
	wantIDs(t, e, "a", 10, 11)
	wantIDs(t, e, "b", 1, 3, 20, 21)
}

// TestTxn_Incarnation: a dataset dropped and recreated under the
// transaction: the touch of the new incarnation and the COMMIT are
// refused with an IncarnationError, and nothing lands — not on the
// recreated dataset, nor on the other dataset the transaction wrote
// (which commits first by name).
func TestTxn_Incarnation(t *testing.T) {
	e := newEnv(t)
	e.create(t, "a", nil)
	e.create(t, "r", nil)
	x := txn.New()
	stmt(t, e, e.table(t, x, "a"), []int64{1}, nil)
	stmt(t, e, e.table(t, x, "r"), []int64{1}, nil)
	if err := e.cat.DropDataset(e.ctx, id("r"), "other"); err != nil {
		t.Fatal(err)
	}
	e.create(t, "r", nil)
	ds := e.load(t, "r")
	_, err := x.Table(e.cat, ds, &ds.Schema, ds.CurrentSnapshotID)
	var ie *txn.IncarnationError
	if !errors.As(err, &ie) || !ie.Statement || ie.Table != "c.r" || !errors.Is(err, catalogstore.ErrIncarnationChanged) {
		t.Fatalf("touching the new incarnation: %v, want a statement IncarnationError on c.r", err)
	}
	err = x.Commit(e.ctx, "tester")
	if !errors.As(err, &ie) || ie.Statement {
		t.Fatalf("COMMIT: %v, want an IncarnationError with nothing committed", err)
	}
	if err.Error() != "table c.r was dropped/recreated since the transaction first wrote it; the transaction was rolled back" {
		t.Fatalf("message %q", err)
	}
	wantIDs(t, e, "a")
	wantIDs(t, e, "r")
	if !x.Empty() {
		t.Fatal("refused transaction left work staged")
	}
}

// TestTxn_Partitioned: rows split by the spec into one file per tuple,
// each file carrying its partition value; a delete rewrites only the file
// of its partition.
func TestTxn_Partitioned(t *testing.T) {
	e := newEnv(t)
	spec := &partition.Spec{Fields: []partition.Field{{SourceID: 1, FieldID: 1000, Name: "id_bucket", Transform: partition.Bucket(2)}}}
	e.create(t, "p", spec)
	x := txn.New()
	stmt(t, e, e.table(t, x, "p"), []int64{1, 2, 3, 4, 5, 6}, nil)
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	ds := e.load(t, "p")
	files, _, err := e.cat.Files(e.ctx, ds, ds.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("%d files, want one per bucket", len(files))
	}
	for _, f := range files {
		if len(f.PartitionValues) != 1 || f.PartitionValues[0] == nil {
			t.Fatalf("file %s partition values %v", f.Path, f.PartitionValues)
		}
	}
	stmt(t, e, e.table(t, x, "p"), nil, []int64{1})
	if err := x.Commit(e.ctx, "tester"); err != nil {
		t.Fatal(err)
	}
	head := wantIDs(t, e, "p", 2, 3, 4, 5, 6)
	snap, err := e.cat.Snapshot(e.ctx, e.load(t, "p"), head)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Summary.DeletedFiles != 1 {
		t.Fatalf("delete replaced %d files, want only its partition's", snap.Summary.DeletedFiles)
	}
}
