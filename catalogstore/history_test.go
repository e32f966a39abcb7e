package catalogstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

var t0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// history is a dataset with a pinned clock and helpers to commit at given
// times.
type history struct {
	t   *testing.T
	e   *env
	cat *catalogstore.Catalog
	clk *clock
	id  catalogstore.Ident
	n   int
}

func newHistory(t *testing.T, e *env) *history {
	clk := &clock{t: t0}
	h := &history{t: t, e: e, cat: catalogstore.New(e.m, e.b, catalogstore.Options{NoAudit: true, Now: clk.now}), clk: clk}
	ds := e.dataset(t, "c", "t")
	h.id = ds.Ident()
	return h
}

func (h *history) ds() *catalogstore.Dataset {
	h.t.Helper()
	ds, err := h.cat.Dataset(context.Background(), h.id)
	if err != nil {
		h.t.Fatal(err)
	}
	return ds
}

// commit commits cm at time at (an offset from t0) on the current head.
func (h *history) commit(at time.Duration, cm catalogstore.Commit) *catalogstore.Snapshot {
	h.t.Helper()
	h.clk.set(t0.Add(at))
	ds := h.ds()
	cm.Author, cm.ExpectedUUID, cm.BaseSnapshotID = "tester", ds.UUID, ds.CurrentSnapshotID
	s, err := h.cat.Commit(context.Background(), h.id, cm)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

// file makes a new fake data file.
func (h *history) file(rows int64) manifest.DataFile {
	h.n++
	return fakeFile(h.ds(), h.n, rows)
}

func (h *history) expire(ids ...int64) {
	h.t.Helper()
	for _, id := range ids {
		if err := h.e.m.Merge(context.Background(), snapDoc(h.ds(), id), map[string]any{"expired": true}); err != nil {
			h.t.Fatal(err)
		}
	}
}

// snapDoc is a snapshot's document path as DESIGN.md lays it out.
func snapDoc(ds *catalogstore.Dataset, snap int64) string {
	return meta.Join(ds.Workspace, ds.Collection, "datasets", ds.Name, "incarnations", ds.UUID, "snapshots", fmt.Sprintf("%019d", snap))
}

func wantNotFound(t *testing.T, what string, err error, fragment string) {
	t.Helper()
	if !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
		t.Fatalf("%s: err = %v, want ErrSnapshotNotFound", what, err)
	}
	if !strings.Contains(err.Error(), fragment) {
		t.Fatalf("%s: err = %q, want it to say %q", what, err, fragment)
	}
}

func TestResolveSnapshotRef(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		h := newHistory(t, e)
		s1 := h.commit(time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(1)}})
		s2 := h.commit(2*time.Minute+123456*time.Nanosecond, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(2)}})
		s3 := h.commit(3*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(3)}})
		h.clk.set(t0.Add(time.Hour))
		if _, err := h.cat.CreateTag(ctx, h.id, "v1", s1.ID, "tester"); err != nil {
			t.Fatal(err)
		}
		ds := h.ds()
		cases := []struct {
			ref  any
			want int64
		}{
			{int64(2), s2.ID}, {int8(1), s1.ID}, {uint16(3), s3.ID}, {"2", s2.ID}, {" 3 ", s3.ID},
			{"v1", s1.ID}, {"main", s3.ID},
			{t0.Add(time.Minute), s1.ID},                          // exactly at a commit
			{t0.Add(150 * time.Second), s2.ID},                    // between commits
			{t0.Add(2*time.Minute + 123*time.Microsecond), s2.ID}, // the µs committed_at shows
			{t0.Add(2*time.Minute + 122*time.Microsecond), s1.ID},
			{t0.Add(59 * time.Minute), s3.ID},
			{"2024-03-01 12:02:30", s2.ID}, {"2024-03-01T12:01:00", s1.ID}, {"2024-03-01 12:02:00.000123", s2.ID},
			{"2024-03-01T13:02:30+01:00", s2.ID}, {"2024-03-01 12:05", s3.ID},
		}
		for _, c := range cases {
			got, err := h.cat.ResolveSnapshotRef(ctx, ds, c.ref)
			if err != nil || got.ID != c.want {
				t.Errorf("ResolveSnapshotRef(%v) = %v, %v; want snapshot %d", c.ref, got, err, c.want)
			}
		}
		_, err := h.cat.ResolveSnapshotRef(ctx, ds, int64(9))
		wantNotFound(t, "unknown id", err, "has no snapshot 9")
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, "nope")
		wantNotFound(t, "unknown tag", err, `no snapshot, tag or time "nope"`)
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, t0)
		wantNotFound(t, "before the first", err, "before the first snapshot")
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, "2024-03-01")
		wantNotFound(t, "date before the first", err, "before the first snapshot")
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, t0.Add(2*time.Hour))
		wantNotFound(t, "future", err, "in the future")
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, 1.5)
		wantNotFound(t, "float", err, "give a snapshot id")

		h.expire(s1.ID)
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, int64(1))
		wantNotFound(t, "expired id", err, "has expired")
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, "v1")
		wantNotFound(t, "tag of an expired snapshot", err, "has expired")
		_, err = h.cat.ResolveSnapshotRef(ctx, ds, t0.Add(90*time.Second))
		wantNotFound(t, "time of an expired snapshot", err, "has expired")
		if got, err := h.cat.ResolveSnapshotRef(ctx, ds, "2"); err != nil || got.ID != 2 {
			t.Fatalf("live snapshot after an expiry = %v, %v", got, err)
		}
	})
}

func TestTags(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		h := newHistory(t, e)
		if _, err := h.cat.CreateTag(ctx, h.id, "empty", 0, "tester"); !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			t.Fatalf("tag of an empty table = %v", err)
		}
		h.commit(time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(1)}})
		h.commit(2*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(1)}})
		head, err := h.cat.CreateTag(ctx, h.id, "release-2", 0, "ann")
		if err != nil || head.SnapshotID != 2 || head.Author != "ann" || !head.CreatedAt.Equal(t0.Add(2*time.Minute)) {
			t.Fatalf("CreateTag(head) = %+v, %v", head, err)
		}
		if _, err := h.cat.CreateTag(ctx, h.id, "first", 1, "ann"); err != nil {
			t.Fatal(err)
		}
		_, err = h.cat.CreateTag(ctx, h.id, "first", 2, "ann")
		if !errors.Is(err, catalogstore.ErrTagExists) || !errors.Is(err, catalogstore.ErrBadValue) {
			t.Fatalf("duplicate tag = %v", err)
		}
		for _, bad := range []string{"", "1st", "a b", "main"} {
			if _, err := h.cat.CreateTag(ctx, h.id, bad, 1, "ann"); !errors.Is(err, catalogstore.ErrBadIdentifier) {
				t.Errorf("CreateTag(%q) = %v, want ErrBadIdentifier", bad, err)
			}
		}
		if _, err := h.cat.CreateTag(ctx, h.id, "gone", 7, "ann"); !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			t.Fatalf("tag of a missing snapshot = %v", err)
		}
		missing := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "nope"}
		if _, err := h.cat.CreateTag(ctx, missing, "x", 0, "ann"); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
			t.Fatalf("tag of a missing table = %v", err)
		}
		tags, err := h.cat.Tags(ctx, h.ds())
		if err != nil || len(tags) != 2 || tags[0].Name != "first" || tags[0].SnapshotID != 1 || tags[1].Name != "release-2" || tags[1].SnapshotID != 2 {
			t.Fatalf("Tags = %+v, %v", tags, err)
		}
		dropped, err := h.cat.DropTag(ctx, h.id, "first", "ann")
		if err != nil || dropped.SnapshotID != 1 {
			t.Fatalf("DropTag = %+v, %v", dropped, err)
		}
		_, err = h.cat.DropTag(ctx, h.id, "first", "ann")
		if !errors.Is(err, catalogstore.ErrTagNotFound) || !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			t.Fatalf("drop a dropped tag = %v", err)
		}
		if _, err := h.cat.ResolveSnapshotRef(ctx, h.ds(), "first"); !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			t.Fatalf("dropped tag still resolves: %v", err)
		}
		h.expire(1)
		if _, err := h.cat.CreateTag(ctx, h.id, "late", 1, "ann"); err == nil || !strings.Contains(err.Error(), "expired") {
			t.Fatalf("tag of an expired snapshot = %v", err)
		}
		// Tags move with a rename (they live below the dataset document).
		to := catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "renamed"}
		if err := h.cat.RenameDataset(ctx, h.id, to, "ann"); err != nil {
			t.Fatal(err)
		}
		ds, _ := h.cat.Dataset(ctx, to)
		if got, err := h.cat.ResolveSnapshotRef(ctx, ds, "release-2"); err != nil || got.ID != 2 {
			t.Fatalf("tag after rename = %v, %v", got, err)
		}
	})
}

func TestRollbackToSnapshot(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		h := newHistory(t, e)
		f1, f2, f3 := h.file(10), h.file(20), h.file(30)
		s1 := h.commit(time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{f1}})
		h.commit(2*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{f2}})
		h.commit(3*time.Minute, catalogstore.Commit{Operation: catalogstore.OpOverwrite, Removed: []string{f1.Path}, Added: []manifest.DataFile{f3}})
		h.clk.set(t0.Add(4 * time.Minute))
		rb, err := h.cat.RollbackToSnapshot(ctx, h.id, s1.ID, "ann")
		if err != nil {
			t.Fatal(err)
		}
		if rb.ID != 4 || rb.ParentID != 3 || rb.Operation != catalogstore.OpRollback || !rb.UserCreated || rb.Author != "ann" ||
			rb.ManifestPath != s1.ManifestPath || rb.Summary.TotalFiles != 1 || rb.Summary.TotalRecords != 10 {
			t.Fatalf("rollback snapshot = %+v", rb)
		}
		ds := h.ds()
		if ds.CurrentSnapshotID != 4 || ds.CurrentRecords != 10 || ds.CurrentFiles != 1 {
			t.Fatalf("dataset after rollback: head %d, %d records, %d files", ds.CurrentSnapshotID, ds.CurrentRecords, ds.CurrentFiles)
		}
		files, _, err := h.cat.Files(ctx, ds, 4)
		if err != nil || len(files) != 1 || files[0].Path != f1.Path {
			t.Fatalf("files after rollback = %v, %v", files, err)
		}
		// The snapshots rolled back over stay readable.
		if old, _, err := h.cat.Files(ctx, ds, 3); err != nil || len(old) != 2 {
			t.Fatalf("snapshot 3 after rollback = %v, %v", old, err)
		}
		// Rolling back to the head changes nothing.
		same, err := h.cat.RollbackToSnapshot(ctx, h.id, 4, "ann")
		if err != nil || same.ID != 4 || h.ds().CurrentSnapshotID != 4 {
			t.Fatalf("rollback to the head = %v, %v", same, err)
		}
		for _, bad := range []int64{0, -1, 42} {
			if _, err := h.cat.RollbackToSnapshot(ctx, h.id, bad, "ann"); !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
				t.Errorf("rollback to %d = %v", bad, err)
			}
		}
		h.expire(2)
		_, err = h.cat.RollbackToSnapshot(ctx, h.id, 2, "ann")
		wantNotFound(t, "rollback to an expired snapshot", err, "has expired")
		if h.ds().CurrentSnapshotID != 4 {
			t.Fatal("a refused rollback moved the head")
		}
		// An append after the rollback builds on the restored files.
		h.commit(5*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(5)}})
		if ds := h.ds(); ds.CurrentRecords != 15 || ds.CurrentFiles != 2 {
			t.Fatalf("append after rollback: %d records, %d files", ds.CurrentRecords, ds.CurrentFiles)
		}
	})
}

func paths(files []manifest.DataFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path[strings.LastIndexByte(f.Path, '/')+1:]
	}
	return out
}

func TestPlanChanges(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		h := newHistory(t, e)
		f1, f2 := h.file(1), h.file(2)
		f12 := h.file(3)
		f12b, f3 := h.file(3), h.file(4)
		h.commit(1*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{f1}})
		h.commit(2*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{f2}})
		h.commit(3*time.Minute, catalogstore.Commit{Operation: catalogstore.OpCompact, Housekeeping: true, Removed: []string{f1.Path, f2.Path}, Added: []manifest.DataFile{f12}})
		h.commit(4*time.Minute, catalogstore.Commit{Operation: catalogstore.OpOverwrite, Removed: []string{f12.Path}, Added: []manifest.DataFile{f12b}})
		h.commit(5*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{f3}})
		h.clk.set(t0.Add(time.Hour))
		ds := h.ds()
		render := func(p *catalogstore.ChangePlan) string {
			var parts []string
			for _, c := range p.Commits {
				parts = append(parts, strings.Join([]string{
					string(rune('0' + c.Snapshot.ID)), "+" + strings.Join(paths(c.Added), ","), "-" + strings.Join(paths(c.Removed), ","),
				}, " "))
			}
			return strings.Join(parts, "; ")
		}
		cases := []struct {
			from, to int64
			want     string
		}{
			{0, 5, "1 +f0001.parquet -; 2 +f0002.parquet -; 4 +f0004.parquet -f0003.parquet; 5 +f0005.parquet -"},
			{2, 5, "4 +f0004.parquet -f0003.parquet; 5 +f0005.parquet -"},
			{2, 3, ""}, // only the compaction
			{5, 5, ""},
			{0, 0, ""},
		}
		for _, c := range cases {
			p, err := h.cat.PlanChanges(ctx, ds, c.from, c.to)
			if err != nil {
				t.Fatalf("PlanChanges(%d, %d): %v", c.from, c.to, err)
			}
			if got := render(p); got != c.want {
				t.Errorf("PlanChanges(%d, %d) = %q, want %q", c.from, c.to, got, c.want)
			}
		}
		if _, err := h.cat.PlanChanges(ctx, ds, 4, 2); !errors.Is(err, catalogstore.ErrBadValue) {
			t.Fatalf("from after to = %v", err)
		}
		if _, err := h.cat.PlanChanges(ctx, ds, 0, 9); !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			t.Fatalf("to after the head = %v", err)
		}
		// Bounds by time: (12:01:30, 12:04:00] is snapshots (1, 4].
		from, err := h.cat.ResolveChangeBound(ctx, ds, t0.Add(90*time.Second), false)
		if err != nil || from != 1 {
			t.Fatalf("lower bound = %d, %v", from, err)
		}
		to, err := h.cat.ResolveChangeBound(ctx, ds, "2024-03-01 12:04:00", true)
		if err != nil || to != 4 {
			t.Fatalf("upper bound = %d, %v", to, err)
		}
		if b, err := h.cat.ResolveChangeBound(ctx, ds, "2020-01-01", false); err != nil || b != 0 {
			t.Fatalf("a lower bound before the first snapshot = %d, %v; want 0", b, err)
		}
		if b, err := h.cat.ResolveChangeBound(ctx, ds, nil, true); err != nil || b != 5 {
			t.Fatalf("NULL upper bound = %d, %v; want the head", b, err)
		}
		if _, err := h.cat.ResolveChangeBound(ctx, ds, "2999-01-01", true); !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			t.Fatalf("future upper bound = %v", err)
		}
		if _, err := h.cat.CreateTag(ctx, h.id, "cut", 2, "ann"); err != nil {
			t.Fatal(err)
		}
		if b, err := h.cat.ResolveChangeBound(ctx, ds, "cut", false); err != nil || b != 2 {
			t.Fatalf("tag bound = %d, %v", b, err)
		}
		if _, err := h.cat.ResolveChangeBound(ctx, ds, "no-such-tag", false); !errors.Is(err, catalogstore.ErrBadValue) {
			t.Fatalf("unknown bound = %v", err)
		}

		// A truncate in the window cannot be replayed.
		h.commit(6*time.Minute, catalogstore.Commit{Operation: catalogstore.OpTruncate, ReplaceAll: true})
		h.commit(7*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(1)}})
		ds = h.ds()
		_, err = h.cat.PlanChanges(ctx, ds, 4, 7)
		if !errors.Is(err, catalogstore.ErrChangesUnavailable) || !strings.Contains(err.Error(), "truncate") || !strings.Contains(err.Error(), "full scan") {
			t.Fatalf("window across a truncate = %v", err)
		}
		if p, err := h.cat.PlanChanges(ctx, ds, 6, 7); err != nil || len(p.Commits) != 1 || p.Commits[0].Snapshot.ID != 7 {
			t.Fatalf("window after the truncate = %+v, %v", p, err)
		}
		// Below the retention floor: expired in the window, or as the start.
		h.expire(1, 2)
		for _, w := range [][2]int64{{0, 5}, {1, 5}, {2, 5}} {
			_, err := h.cat.PlanChanges(ctx, ds, w[0], w[1])
			if !errors.Is(err, catalogstore.ErrChangesUnavailable) || !errors.Is(err, catalogstore.ErrSnapshotNotFound) || !strings.Contains(err.Error(), "reconcile from a full scan") {
				t.Errorf("PlanChanges(%d, %d) below the floor = %v", w[0], w[1], err)
			}
		}
		if p, err := h.cat.PlanChanges(ctx, ds, 3, 5); err != nil || len(p.Commits) != 2 {
			t.Fatalf("window above the floor = %+v, %v", p, err)
		}
		// A purged snapshot document is below the floor too.
		if err := e.m.Delete(ctx, snapDoc(h.ds(), 3)); err != nil {
			t.Fatal(err)
		}
		if _, err := h.cat.PlanChanges(ctx, ds, 3, 5); !errors.Is(err, catalogstore.ErrChangesUnavailable) {
			t.Fatalf("window from a purged snapshot = %v", err)
		}
	})
}

func TestRollback_ChangeFeedSeesTheRestoredFiles(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		h := newHistory(t, e)
		f1, f2 := h.file(1), h.file(1)
		h.commit(time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{f1}})
		h.commit(2*time.Minute, catalogstore.Commit{Operation: catalogstore.OpOverwrite, Removed: []string{f1.Path}, Added: []manifest.DataFile{f2}})
		h.clk.set(t0.Add(3 * time.Minute))
		if _, err := h.cat.RollbackToSnapshot(ctx, h.id, 1, "ann"); err != nil {
			t.Fatal(err)
		}
		p, err := h.cat.PlanChanges(ctx, h.ds(), 2, 3)
		if err != nil || len(p.Commits) != 1 {
			t.Fatalf("plan = %+v, %v", p, err)
		}
		c := p.Commits[0]
		if got := paths(c.Added); len(got) != 1 || got[0] != "f0001.parquet" {
			t.Fatalf("rollback added %v, want f0001", got)
		}
		if got := paths(c.Removed); len(got) != 1 || got[0] != "f0002.parquet" {
			t.Fatalf("rollback removed %v, want f0002", got)
		}
	})
}

func TestConsumerOffsets(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		h := newHistory(t, e)
		for i := 1; i <= 4; i++ {
			h.commit(time.Duration(i)*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(1)}})
		}
		if _, ok, err := h.cat.ConsumerFloor(ctx, h.ds()); ok || err != nil {
			t.Fatalf("floor without offsets = %v, %v", ok, err)
		}
		steps := []struct {
			consumer string
			snap     int64
			prev     int64
			err      error
		}{
			{"billing", 2, 0, nil},
			{"billing", 3, 2, nil},
			{"billing", 3, 3, nil}, // the same again is fine
			{"billing", 1, 0, catalogstore.ErrOffsetRegression},
			{"search", 1, 0, nil},
			{"search", 9, 0, catalogstore.ErrSnapshotNotFound},
			{"bad name", 1, 0, catalogstore.ErrBadIdentifier},
			{"search", -1, 0, catalogstore.ErrBadValue},
		}
		for _, s := range steps {
			prev, err := h.cat.CommitOffset(ctx, s.consumer, h.id, s.snap, "ann")
			if s.err != nil {
				if !errors.Is(err, s.err) {
					t.Fatalf("CommitOffset(%s, %d) = %v, want %v", s.consumer, s.snap, err, s.err)
				}
				continue
			}
			if err != nil || prev != s.prev {
				t.Fatalf("CommitOffset(%s, %d) = %d, %v; want previous %d", s.consumer, s.snap, prev, err, s.prev)
			}
		}
		_, err := h.cat.CommitOffset(ctx, "billing", h.id, 1, "ann")
		if !errors.Is(err, catalogstore.ErrBadValue) || !strings.Contains(err.Error(), "up to snapshot 3") {
			t.Fatalf("regression error = %v", err)
		}
		ds := h.ds()
		offs, err := h.cat.Offsets(ctx, ds)
		if err != nil || len(offs) != 2 || offs[0].Consumer != "billing" || offs[0].SnapshotID != 3 || offs[0].TableUUID != ds.UUID ||
			offs[1].Consumer != "search" || offs[1].SnapshotID != 1 || offs[1].Author != "ann" {
			t.Fatalf("Offsets = %+v, %v", offs, err)
		}
		if floor, ok, err := h.cat.ConsumerFloor(ctx, ds); !ok || err != nil || floor != 1 {
			t.Fatalf("ConsumerFloor = %d, %v, %v; want 1", floor, ok, err)
		}
		h.expire(2)
		if _, err := h.cat.CommitOffset(ctx, "search", h.id, 2, "ann"); !errors.Is(err, catalogstore.ErrSnapshotNotFound) {
			t.Fatalf("offset at an expired snapshot = %v", err)
		}

		// Drop and recreate: the new incarnation has no offsets, even if
		// an offset document of the old one is left behind.
		old := ds.UUID
		if err := h.cat.DropDataset(ctx, h.id, "ann"); err != nil {
			t.Fatal(err)
		}
		ds = e.dataset(t, "c", "t")
		if err := e.m.Set(ctx, ds.DocRoot()+"/offsets/billing", map[string]any{
			"consumer": "billing", "table-uuid": old, "snapshot-id": int64(3)}); err != nil {
			t.Fatal(err)
		}
		if offs, err := h.cat.Offsets(ctx, ds); err != nil || len(offs) != 0 {
			t.Fatalf("recreated table inherited offsets %+v, %v", offs, err)
		}
		if _, ok, _ := h.cat.ConsumerFloor(ctx, ds); ok {
			t.Fatal("recreated table inherited a consumer floor")
		}
		h.commit(10*time.Minute, catalogstore.Commit{Operation: catalogstore.OpAppend, Added: []manifest.DataFile{h.file(1)}})
		prev, err := h.cat.CommitOffset(ctx, "billing", h.id, 1, "ann")
		if err != nil || prev != 0 {
			t.Fatalf("first offset of the new incarnation = %d, %v (the old cursor must not count)", prev, err)
		}
		if offs, _ := h.cat.Offsets(ctx, h.ds()); len(offs) != 1 || offs[0].SnapshotID != 1 || offs[0].TableUUID == old {
			t.Fatalf("offsets of the new incarnation = %+v", offs)
		}
	})
}
