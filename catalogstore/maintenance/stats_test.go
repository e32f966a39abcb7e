package maintenance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// appendPending commits one file registered with pending statistics and
// returns the entry Write would have given it with statistics.
func (e *env) appendPending(t *testing.T, ds *catalogstore.Dataset, ids ...int64) manifest.DataFile {
	t.Helper()
	ctx := context.Background()
	cur := e.reload(t, ds)
	rec := record(&cur.Schema, ids)
	defer rec.Release()
	key := fmt.Sprintf("%s/data/%s.parquet", cur.Location, uuid.NewString())
	full, err := datafile.Write(ctx, e.b, key, &cur.Schema, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pending := full
	pending.StatsState = manifest.StatsPending
	pending.FieldIDs, pending.ValueCounts, pending.NullCounts, pending.NaNCounts = nil, nil, nil, nil
	pending.LowerBounds, pending.UpperBounds, pending.BoundsExact, pending.ColumnSizes = nil, nil, nil, nil
	if _, err := e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "tester",
		Added: []manifest.DataFile{pending}, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID}); err != nil {
		t.Fatal(err)
	}
	return full
}

func TestRefreshStatistics_RebuildsFromFooters(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1, 2, 3)
	full := e.appendPending(t, ds, rangeIDs(10, 60)...)
	before := e.liveFiles(t, ds)
	head := e.reload(t, ds)
	res, err := RefreshStatistics(ctx, e.cat, ds, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || res.Changed != 1 {
		t.Fatalf("files %d changed %d, want 2 and 1", res.Files, res.Changed)
	}
	s := res.Snapshot
	if s.Operation != catalogstore.OpStatisticsRefresh || s.UserCreated || s.ParentID != head.CurrentSnapshotID || s.Summary.TotalRecords != 53 || s.Summary.AddedFiles != 0 {
		t.Fatalf("snapshot %+v", s)
	}
	after := e.liveFiles(t, ds)
	if len(after) != 2 {
		t.Fatalf("%d files", len(after))
	}
	got := after[1]
	if got.StatsState != manifest.StatsProvided || got.Path != full.Path || got.RecordCount != 50 {
		t.Fatalf("refreshed entry %+v", got)
	}
	// Identity is kept.
	if got.AddedSnapshotID != before[1].AddedSnapshotID || got.RowIDStart != before[1].RowIDStart || got.SequenceNumber != before[1].SequenceNumber {
		t.Fatalf("identity changed: %+v vs %+v", got, before[1])
	}
	// The bounds are those the writer computed.
	col := head.Schema.Columns[0]
	lo, hi := rangeOf(got, col), rangeOf(full, col)
	if !lo.known || lo.lo != hi.lo || lo.hi != hi.hi || lo.lo.(int64) != 10 || lo.hi.(int64) != 59 {
		t.Fatalf("bounds %v..%v, writer said %v..%v", lo.lo, lo.hi, hi.lo, hi.hi)
	}
	for i, id := range got.FieldIDs {
		if id == col.ID && (got.NullCounts[i] != 0 || got.ValueCounts[i] != 50) {
			t.Fatalf("counts %d/%d", got.ValueCounts[i], got.NullCounts[i])
		}
	}
	if ids := e.readIDs(t, ds); len(ids) != 53 {
		t.Fatalf("reads %d rows", len(ids))
	}
}

func TestRefreshStatistics_FailsWhole(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendPending(t, ds, 1, 2)
	e.appendPending(t, ds, 3, 4)
	// A manifest that miscounts a file's rows.
	cur := e.reload(t, ds)
	files := e.liveFiles(t, ds)
	files[0].RecordCount = 5
	if _, err := e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{Operation: catalogstore.OpRollback, Author: "tester",
		ManifestFiles: files, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID}); err != nil {
		t.Fatal(err)
	}
	head := e.reload(t, ds).CurrentSnapshotID
	if _, err := RefreshStatistics(ctx, e.cat, ds, "tester"); !errors.Is(err, ErrStatsMismatch) || !catalogstore.IsAlertable(err) {
		t.Fatalf("miscounted = %v, want an alertable ErrStatsMismatch", err)
	}
	// A missing file.
	files[0].RecordCount = 2
	cur = e.reload(t, ds)
	if _, err := e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{Operation: catalogstore.OpRollback, Author: "tester",
		ManifestFiles: files, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID}); err != nil {
		t.Fatal(err)
	}
	head = e.reload(t, ds).CurrentSnapshotID
	if err := e.b.Delete(ctx, files[1].Path); err != nil {
		t.Fatal(err)
	}
	if _, err := RefreshStatistics(ctx, e.cat, ds, "tester"); err == nil || !catalogstore.IsAlertable(err) {
		t.Fatalf("missing file = %v, want an alertable error", err)
	}
	if e.reload(t, ds).CurrentSnapshotID != head {
		t.Fatal("a failed refresh committed")
	}
	for _, f := range e.liveFiles(t, ds) {
		if f.StatsState != manifest.StatsPending {
			t.Fatalf("a failed refresh changed %s", f.Path)
		}
	}
}

// TestRefreshStatistics_NoOpCommitsNothing: a refresh that finds every
// entry as the footers say leaves the head where it was.
func TestRefreshStatistics_NoOpCommitsNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1, 2, 3)
	head := e.reload(t, ds)
	res, err := RefreshStatistics(ctx, e.cat, ds, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 1 || res.Changed != 0 || res.Snapshot != nil {
		t.Fatalf("files %d changed %d snapshot %+v, want 1, 0, none", res.Files, res.Changed, res.Snapshot)
	}
	if now := e.reload(t, ds); now.CurrentSnapshotID != head.CurrentSnapshotID {
		t.Fatalf("head moved from %d to %d", head.CurrentSnapshotID, now.CurrentSnapshotID)
	}
}
