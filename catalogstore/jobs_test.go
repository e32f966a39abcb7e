package catalogstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// recQueue records what it is given, or fails.
type recQueue struct {
	mu   sync.Mutex
	jobs []catalogstore.Job
	fail error
}

func (q *recQueue) Enqueue(_ context.Context, j *catalogstore.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail != nil {
		return q.fail
	}
	q.jobs = append(q.jobs, *j)
	return nil
}

func (q *recQueue) n() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.jobs)
}

// countingStore counts reads of trigger collections outside transactions.
type countingStore struct {
	meta.Store
	triggerLists atomic.Int64
}

func (s *countingStore) List(ctx context.Context, coll string) ([]meta.Doc, error) {
	if strings.HasSuffix(coll, "/triggers") {
		s.triggerLists.Add(1)
	}
	return s.Store.List(ctx, coll)
}

// audited is a catalog over e's stores that writes audit lines into buf and
// alerts into alerts.
type audited struct {
	cat    *catalogstore.Catalog
	buf    *syncBuffer
	mu     sync.Mutex
	alerts []error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// audits returns the audit lines (with action, if set).
func (s *syncBuffer) audits(t *testing.T, action string) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(s.b.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == "audit" && (action == "" || m["action"] == action) {
			out = append(out, m)
		}
	}
	return out
}

func (s *syncBuffer) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

func newAudited(e *env, store meta.Store) *audited {
	a := &audited{buf: &syncBuffer{}}
	a.cat = catalogstore.New(store, e.b, catalogstore.Options{Logger: slog.New(slog.NewJSONHandler(a.buf, nil))})
	return a
}

func (a *audited) alert(_ context.Context, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.alerts = append(a.alerts, err)
}

func appendTo(t *testing.T, cat *catalogstore.Catalog, id catalogstore.Ident, author string, n int) *catalogstore.Snapshot {
	t.Helper()
	ds, err := cat.Dataset(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cat.Commit(context.Background(), id, catalogstore.Commit{
		Operation: catalogstore.OpAppend, Author: author, Added: []manifest.DataFile{fakeFile(ds, n, 10)},
		ExpectedUUID: ds.UUID, BaseSnapshotID: ds.CurrentSnapshotID,
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestFire_UserCommitsFireOneJobPerView(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		cs := &countingStore{Store: e.m}
		a := newAudited(e, cs)
		q := &recQueue{}
		a.cat.SetHooks(catalogstore.Hooks{AfterCommit: a.cat.TriggerHook(q, catalogstore.FireOptions{}), Alert: a.alert})
		src := e.dataset(t, "c", "src")
		plain := e.dataset(t, "c", "plain")
		if _, err := e.mv(t, "mart", "v1", src.Ident()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.mv(t, "mart", "v2", src.Ident(), plain.Ident()); err != nil {
			t.Fatal(err)
		}
		// A dataset without triggers: the commit reads no trigger collection.
		cs.triggerLists.Store(0)
		e.dataset(t, "c", "lonely")
		appendTo(t, a.cat, e.id("c", "lonely"), "ada", 1)
		if n := cs.triggerLists.Load(); n != 0 || q.n() != 0 {
			t.Fatalf("a commit on a dataset without triggers read triggers %d times, enqueued %d", n, q.n())
		}
		snap := appendTo(t, a.cat, src.Ident(), "ada", 2)
		if q.n() != 2 {
			t.Fatalf("enqueued %d jobs, want one per view", q.n())
		}
		targets := map[string]bool{}
		for _, j := range q.jobs {
			targets[j.Target] = true
			got, err := a.cat.Job(ctx, j.ExecutionID)
			if err != nil || got.Status != catalogstore.JobPending || got.Author != "ada" || got.Source != src.Ident().String() ||
				got.SourceSnapshotID != snap.ID || got.Kind != catalogstore.JobKindRefresh {
				t.Fatalf("job document %+v, %v", got, err)
			}
		}
		if !targets[e.id("mart", "v1").String()] || !targets[e.id("mart", "v2").String()] {
			t.Fatalf("targets %v", targets)
		}
		trigs, _ := a.cat.Triggers(ctx, src.Ident())
		for _, tr := range trigs {
			if tr.LastFiredStatus != "enqueued" || tr.LastExecutionID == "" || tr.LastFiredAt == nil {
				t.Fatalf("trigger after a fire %+v", tr)
			}
		}
		// Housekeeping never fires.
		ds, _ := a.cat.Dataset(ctx, src.Ident())
		files, _, _ := a.cat.Files(ctx, ds, ds.CurrentSnapshotID)
		if _, err := a.cat.Commit(ctx, src.Ident(), catalogstore.Commit{
			Operation: catalogstore.OpCompact, Housekeeping: true, Author: "maintenance",
			Removed: []string{files[0].Path}, Added: []manifest.DataFile{fakeFile(ds, 9, 10)},
			ExpectedUUID: ds.UUID, BaseSnapshotID: ds.CurrentSnapshotID,
		}); err != nil {
			t.Fatal(err)
		}
		if q.n() != 2 {
			t.Fatalf("a compaction fired %d jobs", q.n()-2)
		}
		if !catalogstore.FiresFor(&catalogstore.Dataset{MVState: catalogstore.MVState{TriggerCount: 1}}, &catalogstore.Snapshot{UserCreated: true, Operation: catalogstore.OpTruncate}) {
			t.Error("a truncate fires")
		}
		if catalogstore.FiresFor(&catalogstore.Dataset{MVState: catalogstore.MVState{TriggerCount: 1}}, &catalogstore.Snapshot{UserCreated: true, Operation: catalogstore.OpStatisticsRefresh}) {
			t.Error("a statistics refresh never fires")
		}
		if jobs := jobsOf(t, a.cat, e.ws, true); len(jobs) != 2 {
			t.Fatalf("pending jobs %+v", jobs)
		}
	})
}

func TestFire_CoalescesWithinTheInterval(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a := newAudited(e, e.m)
		q := &recQueue{}
		a.cat.SetHooks(catalogstore.Hooks{AfterCommit: a.cat.TriggerHook(q, catalogstore.FireOptions{MinInterval: time.Hour}), Alert: a.alert})
		src := e.dataset(t, "c", "src")
		if _, err := e.mv(t, "mart", "v", src.Ident()); err != nil {
			t.Fatal(err)
		}
		appendTo(t, a.cat, src.Ident(), "ada", 1)
		last := appendTo(t, a.cat, src.Ident(), "ada", 2)
		appendTo(t, a.cat, src.Ident(), "ada", 3)
		if q.n() != 1 {
			t.Fatalf("three fires within the interval enqueued %d jobs, want 1", q.n())
		}
		j, _ := a.cat.Job(ctx, q.jobs[0].ExecutionID)
		if j.Coalesced != 2 || j.SourceSnapshotID != last.ID+1 {
			t.Fatalf("coalesced job %+v", j)
		}
		// Another author's commit gets its own job (its own rights).
		appendTo(t, a.cat, src.Ident(), "bob", 4)
		if q.n() != 2 {
			t.Fatalf("another author's fire enqueued %d jobs in all, want 2", q.n())
		}
		// Once the job runs, a new fire makes a new job.
		if _, claimed, err := a.cat.ClaimJob(ctx, q.jobs[1].ExecutionID); err != nil || !claimed {
			t.Fatalf("claim: %v %v", claimed, err)
		}
		appendTo(t, a.cat, src.Ident(), "bob", 5)
		if q.n() != 3 {
			t.Fatalf("a fire after the job started enqueued %d in all, want 3", q.n())
		}
	})
}

// TestFire_EnqueueFailure: the commit stands; the job is failed, the
// trigger says fire_failed, an alert is raised and one trigger.fire_failed
// audit record written.
func TestFire_EnqueueFailure(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a := newAudited(e, e.m)
		q := &recQueue{fail: errors.New("cloud tasks is down")}
		a.cat.SetHooks(catalogstore.Hooks{AfterCommit: a.cat.TriggerHook(q, catalogstore.FireOptions{}), Alert: a.alert})
		src := e.dataset(t, "c", "src")
		if _, err := e.mv(t, "mart", "v", src.Ident()); err != nil {
			t.Fatal(err)
		}
		snap := appendTo(t, a.cat, src.Ident(), "ada", 1)
		if ds, _ := a.cat.Dataset(ctx, src.Ident()); ds.CurrentSnapshotID != snap.ID {
			t.Fatal("the commit must stand")
		}
		jobs := jobsOf(t, a.cat, e.ws, false)
		if len(jobs) != 1 || jobs[0].Status != catalogstore.JobFailed || !strings.Contains(jobs[0].Message, "cloud tasks is down") {
			t.Fatalf("jobs %+v", jobs)
		}
		trigs, _ := a.cat.Triggers(ctx, src.Ident())
		if trigs[0].LastFiredStatus != "fire_failed" {
			t.Fatalf("trigger %+v", trigs[0])
		}
		if len(a.alerts) != 1 || !catalogstore.IsAlertable(a.alerts[0]) {
			t.Fatalf("alerts %v", a.alerts)
		}
		recs := a.buf.audits(t, "trigger.fire_failed")
		if len(recs) != 1 || recs[0]["trigger"] != "refresh__mart__v" || recs[0]["author"] != "ada" ||
			recs[0]["execution_id"] != jobs[0].ExecutionID || !strings.Contains(recs[0]["error"].(string), "cloud tasks is down") {
			t.Fatalf("fire_failed audit %v", recs)
		}
		// A panicking queue is a failure like any other.
		a.cat.SetHooks(catalogstore.Hooks{AfterCommit: a.cat.TriggerHook(panicQueue{}, catalogstore.FireOptions{}), Alert: a.alert})
		appendTo(t, a.cat, src.Ident(), "ada", 2)
		if len(a.alerts) != 2 {
			t.Fatalf("alerts after a panicking queue %v", a.alerts)
		}
	})
}

type panicQueue struct{}

func (panicQueue) Enqueue(context.Context, *catalogstore.Job) error { panic("boom") }

func TestJobs_ClaimIsExclusive(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		job, err := e.cat.CreateJob(ctx, e.id("c", "v"), "ada", "manual")
		if err != nil {
			t.Fatal(err)
		}
		var wins atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, claimed, err := e.cat.ClaimJob(ctx, job.ExecutionID)
				if err != nil {
					t.Error(err)
				}
				if claimed {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d workers claimed the job", wins.Load())
		}
		if err := e.cat.FinishJob(ctx, job.ExecutionID, catalogstore.JobSucceeded, ""); err != nil {
			t.Fatal(err)
		}
		got, _ := e.cat.Job(ctx, job.ExecutionID)
		if got.Status != catalogstore.JobSucceeded || got.Attempts != 1 || got.FinishedAt == nil || !got.Status.Final() {
			t.Fatalf("job %+v", got)
		}
		if _, claimed, _ := e.cat.ClaimJob(ctx, job.ExecutionID); claimed {
			t.Fatal("a finished job was claimed")
		}
		if _, err := e.cat.Job(ctx, "nope"); !errors.Is(err, catalogstore.ErrJobNotFound) {
			t.Fatalf("missing job: %v", err)
		}
	})
}

// TestAudit_OneLinePerMutation: every catalog mutation writes exactly one
// structured audit line with action, resource type, workspace, collection,
// name, author and time; NoAudit turns them off.
func TestAudit_OneLinePerMutation(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a := newAudited(e, e.m)
		src := e.dataset(t, "c", "src")
		e.dataset(t, "mart", "v")
		steps := []struct {
			action, resource, coll, name string
			do                           func() error
		}{
			{"create", "collection", "k", "k", func() error {
				_, err := a.cat.CreateCollection(ctx, e.ws, "k", "ada", catalogstore.CreateCollectionOptions{})
				return err
			}},
			{"alter", "workspace", "", e.ws, func() error {
				return a.cat.SetWorkspaceProperty(ctx, e.ws, catalogstore.PropEgressProtection, true, "ada")
			}},
			{"create", "materialized_view", "mart", "v", func() error {
				_, err := a.cat.RegisterMaterializedView(ctx, e.id("mart", "v"), "ada", catalogstore.MaterializedViewSpec{SQL: "x", Sources: []catalogstore.Ident{src.Ident()}})
				return err
			}},
			{"append", "snapshot", "c", "src", func() error {
				appendTo(t, a.cat, src.Ident(), "ada", 1)
				return nil
			}},
			{"refresh", "materialized_view", "mart", "v", func() error {
				return a.cat.RecordRefresh(ctx, e.id("mart", "v"), catalogstore.Refresh{Status: catalogstore.RefreshOK, Author: "ada", Trigger: "manual"})
			}},
			{"drop", "materialized_view", "mart", "v", func() error {
				return a.cat.DropMaterializedView(ctx, e.id("mart", "v"), "ada")
			}},
		}
		for _, s := range steps {
			a.buf.reset()
			if err := s.do(); err != nil {
				t.Fatalf("%s %s: %v", s.action, s.resource, err)
			}
			lines := a.buf.audits(t, "")
			if len(lines) != 1 {
				t.Fatalf("%s %s wrote %d audit lines, want 1: %v", s.action, s.resource, len(lines), lines)
			}
			l := lines[0]
			want := map[string]string{"action": s.action, "resource": s.resource, "workspace": e.ws, "collection": s.coll, "name": s.name, "author": "ada"}
			for k, v := range want {
				if l[k] != v {
					t.Errorf("%s %s: %s = %v, want %q (%v)", s.action, s.resource, k, l[k], v, l)
				}
			}
			if ts, _ := l["time"].(string); ts == "" {
				t.Errorf("%s %s: no time: %v", s.action, s.resource, l)
			}
		}
		quiet := catalogstore.New(e.m, e.b, catalogstore.Options{NoAudit: true, Logger: slog.New(slog.NewJSONHandler(a.buf, nil))})
		a.buf.reset()
		if _, err := quiet.CreateCollection(ctx, e.ws, "q", "ada", catalogstore.CreateCollectionOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := len(a.buf.audits(t, "")); n != 0 {
			t.Fatalf("NoAudit wrote %d audit lines", n)
		}
	})
}

// TestCallerErrorsAreNeverAlertable: no caller-error sentinel of the
// catalog carries the alertable marker, however it is wrapped.
func TestCallerErrorsAreNeverAlertable(t *testing.T) {
	callerErrors := []error{
		catalogstore.ErrBadIdentifier, catalogstore.ErrWorkspaceNotFound, catalogstore.ErrWorkspaceExists,
		catalogstore.ErrCollectionNotFound, catalogstore.ErrCollectionExists, catalogstore.ErrCollectionNotEmpty,
		catalogstore.ErrDatasetNotFound, catalogstore.ErrDatasetExists, catalogstore.ErrViewNotFound,
		catalogstore.ErrViewExists, catalogstore.ErrSnapshotNotFound, catalogstore.ErrLocked,
		catalogstore.ErrDeletionProtected, catalogstore.ErrEgressRestricted, catalogstore.ErrUnknownProperty,
		catalogstore.ErrBadValue, catalogstore.ErrSchema, catalogstore.ErrNotSupported,
		catalogstore.ErrNotMaterializedView, catalogstore.ErrRefreshDenied, catalogstore.ErrJobNotFound,
		&catalogstore.EgressError{Operation: "copy", Destination: "w", Refused: []catalogstore.EgressRefusal{{Workspace: "o"}}},
	}
	for _, err := range callerErrors {
		for _, wrapped := range []error{err, fmt.Errorf("context: %w", err), errors.Join(errors.New("x"), err)} {
			if catalogstore.IsAlertable(wrapped) {
				t.Errorf("%v is a caller error and must not be alertable", wrapped)
			}
		}
	}
	if !catalogstore.IsAlertable(catalogstore.MarkAlertable(catalogstore.ErrManifestUnreadable, catalogstore.SeverityCritical, "f", nil)) {
		t.Error("a marked platform inconsistency is alertable")
	}
}

// jobsOf lists the jobs (the pending ones) targeting workspace ws: jobs/ is
// shared by every workspace of a metastore.
func jobsOf(t *testing.T, cat *catalogstore.Catalog, ws string, pending bool) []catalogstore.Job {
	t.Helper()
	list := cat.Jobs
	if pending {
		list = cat.PendingJobs
	}
	all, err := list(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []catalogstore.Job
	for _, j := range all {
		if strings.HasPrefix(j.Target, ws+".") {
			out = append(out, j)
		}
	}
	return out
}
