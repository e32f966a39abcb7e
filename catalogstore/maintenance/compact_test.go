package maintenance

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
)

// smallFiles appends n files of rows ids each (file i holds ids
// i*rows .. i*rows+rows-1) and returns one file's size estimate.
func smallFiles(t *testing.T, e *env, ds *catalogstore.Dataset, n, rows int64) int64 {
	t.Helper()
	for i := int64(0); i < n; i++ {
		e.appendIDs(t, ds, rangeIDs(i*rows, i*rows+rows)...)
	}
	return estimate(e.liveFiles(t, ds)[0])
}

// sizes makes a Config whose small-file edge is just above est per file
// and whose target holds perOutput files.
func sizes(est int64, perOutput int) Config {
	target := est*int64(perOutput) + est/2
	return Config{MinSize: target, TargetSize: target, MaxSize: target + est, Author: "tester"}
}

func sortedCopy(s []int64) []int64 {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func dataKeys(t *testing.T, e *env, ds *catalogstore.Dataset) []string {
	t.Helper()
	objs, err := e.b.List(context.Background(), ds.Location+"/data/")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}

func TestCompact_BruteMergesSmallFiles(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	var hooked []*catalogstore.Snapshot
	e.cat.SetHooks(catalogstore.Hooks{AfterCommit: func(_ context.Context, _ *catalogstore.Dataset, s *catalogstore.Snapshot) { hooked = append(hooked, s) }})
	est := smallFiles(t, e, ds, 10, 100)
	want := sortedCopy(e.readIDs(t, ds))
	before := e.reload(t, ds)
	keysBefore := dataKeys(t, e, ds)

	cfg := sizes(est, 20)
	cfg.DryRun = true
	res, err := Compact(ctx, e.cat, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Plan
	if p.Type != StrategyBrute || p.Mode != "auto" || len(p.Files) != 10 || p.ExpectedOutputs != 1 || p.InputRows != 1000 || p.SortColumn != "" || res.Snapshot != nil {
		t.Fatalf("dry-run plan %+v", p)
	}
	if !strings.Contains(p.Reason, "10 files") {
		t.Fatalf("reason %q", p.Reason)
	}
	if e.reload(t, ds).CurrentSnapshotID != before.CurrentSnapshotID || !slices.Equal(dataKeys(t, e, ds), keysBefore) {
		t.Fatal("a dry run changed something")
	}

	cfg.DryRun = false
	res, err = Compact(ctx, e.cat, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	snap := res.Snapshot
	if snap == nil || snap.Operation != catalogstore.OpCompact || snap.UserCreated || snap.ParentID != before.CurrentSnapshotID {
		t.Fatalf("snapshot %+v", snap)
	}
	if snap.Summary.TotalFiles != 1 || snap.Summary.TotalRecords != 1000 || snap.Summary.DeletedFiles != 10 || snap.Summary.AddedFiles != 1 {
		t.Fatalf("summary %+v", snap.Summary)
	}
	if got := sortedCopy(e.readIDs(t, ds)); !slices.Equal(got, want) {
		t.Fatalf("rows changed: %d rows, want %d", len(got), len(want))
	}
	// History is intact: the snapshot before compaction still reads its 10 files.
	old, _, err := e.cat.Files(ctx, e.reload(t, ds), before.CurrentSnapshotID)
	if err != nil || len(old) != 10 {
		t.Fatalf("old snapshot: %d files, %v", len(old), err)
	}
	if last := hooked[len(hooked)-1]; last.ID != snap.ID || last.UserCreated {
		t.Fatalf("after-commit saw %+v; compaction must not be user-created", last)
	}
	// Nothing clears the thresholds any more.
	if res, err := Compact(ctx, e.cat, ds, cfg); err != nil || res != nil {
		t.Fatalf("second pass = %+v, %v; want nil, nil", res, err)
	}
	if _, err := e.m.Get(ctx, leasePath(ds)); err == nil {
		t.Fatal("lease left behind")
	}
}

func TestCompact_BinsRespectTargetAndMemoryBudget(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 10, 100)
	want := sortedCopy(e.readIDs(t, ds))
	// Three files per bin: bins of 3, 3, 3 and a lone file left alone.
	cfg := sizes(est, 3)
	res, err := Compact(ctx, e.cat, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Bins) != 3 || len(res.Plan.Files) != 9 || res.Plan.ExpectedOutputs != 3 || len(res.Outputs) != 3 {
		t.Fatalf("plan %d bins, %d files, %d expected; %d outputs", len(res.Plan.Bins), len(res.Plan.Files), res.Plan.ExpectedOutputs, len(res.Outputs))
	}
	for _, o := range res.Outputs {
		if o.UncompressedSize > cfg.MaxSize {
			t.Fatalf("output of %d bytes over the cap %d", o.UncompressedSize, cfg.MaxSize)
		}
	}
	if n := len(e.liveFiles(t, ds)); n != 4 {
		t.Fatalf("%d live files, want 4", n)
	}
	// A budget that holds only two files' records splits a merge.
	ds2 := e.dataset(t, "t2", catalogstore.CreateDatasetOptions{})
	est = smallFiles(t, e, ds2, 6, 100)
	cfg = sizes(est, 20)
	cfg.MemoryBudget = 4*est + est
	res, err = Compact(ctx, e.cat, ds2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.ExpectedOutputs != 3 || len(res.Outputs) != 3 {
		t.Fatalf("budget-bound: %d expected, %d outputs; want 3", res.Plan.ExpectedOutputs, len(res.Outputs))
	}
	if got := sortedCopy(e.readIDs(t, ds)); !slices.Equal(got, want) {
		t.Fatal("rows changed")
	}
	if got := len(e.readIDs(t, ds2)); got != 600 {
		t.Fatalf("%d rows after budget-bound compaction, want 600", got)
	}
}

// recordNamed builds (id, name) rows with one name.
func recordNamed(t *testing.T, ds *catalogstore.Dataset, ids []int64, name string) arrow.Record {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(&ds.Schema))
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(name)
	}
	return b.NewRecord()
}

func TestCompact_NeverCrossesPartitions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	spec := partition.Spec{ID: 0, Fields: []partition.Field{{SourceID: 2, FieldID: 1000, Name: "name", Transform: partition.Identity}}}
	ds := e.dataset(t, "p", catalogstore.CreateDatasetOptions{Spec: &spec})
	for i := int64(0); i < 6; i++ {
		name := []string{"a", "b"}[i%2]
		cur := e.reload(t, ds)
		rec := recordNamed(t, cur, rangeIDs(i*10, i*10+10), name)
		f, err := datafile.Write(ctx, e.b, cur.Location+"/data/p"+string(rune('0'+i))+".parquet", &cur.Schema, []arrow.Record{rec}, datafile.WriteOptions{})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		f.SpecID, f.PartitionValues = cur.Spec.ID, []*string{&name}
		if _, err := e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "tester",
			Added: []manifest.DataFile{f}, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID}); err != nil {
			t.Fatal(err)
		}
	}
	est := estimate(e.liveFiles(t, ds)[0])
	res, err := Compact(ctx, e.cat, ds, sizes(est, 20))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Bins) != 2 || len(res.Outputs) != 2 {
		t.Fatalf("%d bins, %d outputs; want one per partition", len(res.Plan.Bins), len(res.Outputs))
	}
	for _, f := range e.liveFiles(t, ds) {
		if f.SpecID != 0 || len(f.PartitionValues) != 1 || f.PartitionValues[0] == nil || f.RecordCount != 30 {
			t.Fatalf("output %+v", f)
		}
		// Every row of a file is in its partition.
		cur := e.reload(t, ds)
		r, err := datafile.Open(ctx, e.b, f, &cur.Schema, []int{2})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			if col.Value(i) != *f.PartitionValues[0] {
				t.Fatalf("row %q in partition %q", col.Value(i), *f.PartitionValues[0])
			}
		}
		rec.Release()
		r.Close()
	}
}

func TestCompact_SortAwareWritesDisjointSortedRanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "s", catalogstore.CreateDatasetOptions{SortOrder: []string{"id"}})
	// Six files whose id ranges all overlap (file i holds i, i+6, i+12, ...).
	for i := int64(0); i < 6; i++ {
		var ids []int64
		for v := i; v < 600; v += 6 {
			ids = append(ids, v)
		}
		e.appendIDs(t, ds, ids...)
	}
	// And three small, disjoint neighbours above them.
	for i := int64(0); i < 3; i++ {
		e.appendIDs(t, ds, rangeIDs(1000+i*10, 1010+i*10)...)
	}
	want := sortedCopy(e.readIDs(t, ds))
	est := estimate(e.liveFiles(t, ds)[0])
	cfg := sizes(est, 2)
	cfg.MinSize = est + est/2 // the overlapping files are not small
	cfg.DryRun = true
	res, err := Compact(ctx, e.cat, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Type != StrategySortAware || res.Plan.Mode != "auto" || res.Plan.SortColumn != "id" || len(res.Plan.Bins) != 2 || len(res.Plan.Files) != 9 {
		t.Fatalf("plan %+v", res.Plan)
	}
	cfg.DryRun = false
	res, err = Compact(ctx, e.cat, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) < 3 {
		t.Fatalf("%d outputs; want the overlapping 6 split into several", len(res.Outputs))
	}
	if got := sortedCopy(e.readIDs(t, ds)); !slices.Equal(got, want) {
		t.Fatal("rows changed")
	}
	// Outputs are sorted inside and their ranges are disjoint.
	cur := e.reload(t, ds)
	type rng struct{ lo, hi int64 }
	var ranges []rng
	for _, f := range e.liveFiles(t, ds) {
		r := rangeOf(f, cur.Schema.Columns[0])
		if !r.known {
			t.Fatalf("output without bounds: %+v", f)
		}
		ranges = append(ranges, rng{r.lo.(int64), r.hi.(int64)})
	}
	ids := e.readIDs(t, ds)
	if !slices.IsSorted(ids) {
		t.Fatal("the compacted files, in manifest order, are not sorted")
	}
	slices.SortFunc(ranges, func(a, b rng) int { return int(a.lo - b.lo) })
	for i := 1; i < len(ranges); i++ {
		if ranges[i].lo <= ranges[i-1].hi {
			t.Fatalf("ranges overlap: %v", ranges)
		}
	}
	// Explicit sort_aware on a dataset without a sort order is refused.
	plain := e.dataset(t, "plain", catalogstore.CreateDatasetOptions{})
	if _, err := Compact(ctx, e.cat, plain, Config{Strategy: StrategySortAware}); !errors.Is(err, ErrBadStrategy) {
		t.Fatalf("sort_aware without a sort order = %v, want ErrBadStrategy", err)
	}
}

// TestCompact_ConcurrentAppendSurvives: an append that lands between the
// execute and commit steps is kept, and compaction re-bases on it.
func TestCompact_ConcurrentAppendSurvives(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 5, 50)
	cfg := sizes(est, 20)
	appended := false
	cfg.Progress = func(p Progress) {
		if p.Stage == StageCommit && !appended {
			appended = true
			e.appendIDs(t, ds, 7001, 7002, 7003)
		}
	}
	res, err := Compact(ctx, e.cat, ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rebases != 1 {
		t.Fatalf("%d re-bases, want 1", res.Rebases)
	}
	ids := e.readIDs(t, ds)
	if len(ids) != 253 || !slices.Contains(ids, 7002) {
		t.Fatalf("%d rows after compaction, want 250 + the 3 appended", len(ids))
	}
	if n := len(e.liveFiles(t, ds)); n != 2 {
		t.Fatalf("%d live files, want the output and the appended file", n)
	}
}

// TestCompact_ParallelAppendersLoseNothing runs appenders throughout a
// compaction pass.
func TestCompact_ParallelAppendersLoseNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 8, 50)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var mu sync.Mutex
	appendedRows := 0
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				select {
				case <-stop:
					return
				default:
				}
				cur, err := e.cat.Dataset(ctx, ds.Ident())
				if err != nil {
					t.Error(err)
					return
				}
				id := int64(10000 + w*1000 + i)
				rec := record(&cur.Schema, []int64{id})
				f, err := datafile.Write(ctx, e.b, cur.Location+"/data/app-"+uuid.NewString()+".parquet", &cur.Schema, []arrow.Record{rec}, datafile.WriteOptions{})
				rec.Release()
				if err != nil {
					t.Error(err)
					return
				}
				_, err = e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "app",
					Added: []manifest.DataFile{f}, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID})
				if errors.Is(err, catalogstore.ErrCommitConflict) {
					continue // refused after its retries: not committed, so not counted
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				appendedRows++
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		}(w)
	}
	cfg := sizes(est, 20)
	cfg.MaxRebases = 1000
	res, err := Compact(ctx, e.cat, ds, cfg)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot == nil || len(res.Outputs) != 1 {
		t.Fatalf("result %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d appends committed around the compaction, which re-based %d times", appendedRows, res.Rebases)
	if got := len(e.readIDs(t, ds)); got != 400+appendedRows {
		t.Fatalf("%d rows, want 400 + %d appended", got, appendedRows)
	}
}

// TestCompact_InputsRemovedMeanwhileDeletesOutputs: a writer that removes
// an input during the pass makes compaction give up, deleting its outputs.
func TestCompact_InputsRemovedMeanwhileDeletesOutputs(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 4, 50)
	victim := e.liveFiles(t, ds)[0].Path
	keysBefore := dataKeys(t, e, ds)
	cfg := sizes(est, 20)
	cfg.Progress = func(p Progress) {
		if p.Stage == StageCommit {
			cur := e.reload(t, ds)
			if _, err := e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{Operation: catalogstore.OpDelete, Author: "deleter",
				Removed: []string{victim}, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID}); err != nil {
				t.Error(err)
			}
			cfg.Progress = nil
		}
	}
	_, err := Compact(ctx, e.cat, ds, cfg)
	if !errors.Is(err, ErrInputsChanged) || !errors.Is(err, catalogstore.ErrCommitConflict) || !strings.Contains(err.Error(), "outputs were deleted") {
		t.Fatalf("Compact = %v, want ErrInputsChanged saying the outputs were deleted", err)
	}
	if !slices.Equal(dataKeys(t, e, ds), keysBefore) {
		t.Fatalf("outputs left behind: %v", dataKeys(t, e, ds))
	}
	if got := len(e.readIDs(t, ds)); got != 150 {
		t.Fatalf("%d rows, want 150 (the delete's result)", got)
	}
	if _, err := e.m.Get(ctx, leasePath(ds)); err == nil {
		t.Fatal("lease left behind")
	}
}

func TestCompact_RowCountMismatchIsAlertableAndChangesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 3, 50)
	// A manifest that claims one more row than a file holds.
	cur := e.reload(t, ds)
	files := e.liveFiles(t, ds)
	files[1].RecordCount++
	if _, err := e.cat.Commit(ctx, cur.Ident(), catalogstore.Commit{Operation: catalogstore.OpRollback, Author: "tester",
		ManifestFiles: files, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID}); err != nil {
		t.Fatal(err)
	}
	head := e.reload(t, ds).CurrentSnapshotID
	keysBefore := dataKeys(t, e, ds)
	_, err := Compact(ctx, e.cat, ds, sizes(est, 20))
	if !errors.Is(err, ErrRowCountMismatch) || !catalogstore.IsAlertable(err) {
		t.Fatalf("Compact = %v, want an alertable ErrRowCountMismatch", err)
	}
	if e.reload(t, ds).CurrentSnapshotID != head || !slices.Equal(dataKeys(t, e, ds), keysBefore) {
		t.Fatal("a failed compaction changed the dataset or left outputs")
	}
}

func TestCompact_BadInputAndHeldLease(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 3, 50)
	if _, err := Compact(ctx, e.cat, ds, Config{Strategy: "fancy"}); !errors.Is(err, ErrBadStrategy) || !errors.Is(err, catalogstore.ErrBadValue) {
		t.Fatalf("unknown rule = %v", err)
	}
	if s, err := ParseStrategy("performance"); err != nil || s != StrategySortAware {
		t.Fatalf("performance = %v, %v", s, err)
	}
	if c, err := (Config{}).withDefaults(); err != nil || c.MemoryBudget != DefaultRAMMB<<20 {
		t.Fatalf("default budget: %d, %v", c.MemoryBudget, err)
	}
	if c, err := (Config{MemoryBudget: 2 << 20}).withDefaults(); err != nil || c.MemoryBudget != 2<<20 {
		t.Fatalf("given budget: %d, %v", c.MemoryBudget, err)
	}
	if _, err := Compact(ctx, e.cat, ds, Config{MinSize: 10, TargetSize: 5, MaxSize: 20}); !errors.Is(err, catalogstore.ErrBadValue) {
		t.Fatalf("min > target = %v", err)
	}
	l, err := Acquire(ctx, e.cat, ds, "expirer", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	keysBefore := dataKeys(t, e, ds)
	if _, err := Compact(ctx, e.cat, ds, sizes(est, 20)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("Compact under another's lease = %v, want ErrLeaseHeld", err)
	}
	if !slices.Equal(dataKeys(t, e, ds), keysBefore) {
		t.Fatal("refused compaction wrote files")
	}
	// A dry run needs no lease.
	cfg := sizes(est, 20)
	cfg.DryRun = true
	if res, err := Compact(ctx, e.cat, ds, cfg); err != nil || res == nil || len(res.Plan.Files) != 3 {
		t.Fatalf("dry run under a lease = %+v, %v", res, err)
	}
	releaseQuietly(ctx, l)
}

// TestCompact_DeleteDebtAnsweredClearly: copy-on-write DELETE leaves no
// delete debt, so the rule says so and changes nothing, dry run or not.
func TestCompact_DeleteDebtAnsweredClearly(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 3, 10)
	strategy, err := ParseStrategy("DELETE_DEBT")
	if err != nil || strategy != StrategyDeleteDebt {
		t.Fatalf("ParseStrategy = %q, %v", strategy, err)
	}
	for _, dry := range []bool{true, false} {
		cfg := sizes(est, 3)
		cfg.Strategy, cfg.DryRun = strategy, dry
		res, err := Compact(ctx, e.cat, ds, cfg)
		if !errors.Is(err, ErrNoDeleteDebt) || !errors.Is(err, catalogstore.ErrNotSupported) || res != nil || !strings.Contains(err.Error(), "copy-on-write") {
			t.Fatalf("dry run %v: %v, %v", dry, res, err)
		}
	}
	if cur := e.reload(t, ds); cur.CurrentSnapshotID != 3 || cur.CurrentFiles != 3 {
		t.Fatalf("delete_debt changed the dataset: snapshot %d, %d files", cur.CurrentSnapshotID, cur.CurrentFiles)
	}
	// The lease is free: brute still compacts.
	if res, err := Compact(ctx, e.cat, ds, sizes(est, 3)); err != nil || res == nil || len(res.Outputs) != 1 {
		t.Fatalf("brute after delete_debt: %+v, %v", res, err)
	}
}
