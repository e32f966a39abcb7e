package maintenance

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/faultblob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// clock is a settable clock for the catalog and maintenance.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// deltaEverywhere makes every commit that can write a delta manifest do
// so, even on these tests' tiny tables, with short chains: maintenance is
// tested over base + delta chains and their consolidation.
var deltaEverywhere = catalogstore.ChainPolicy{MaxDeltas: 3, MaxPercent: 1 << 40}

// consolidated writes one consolidated manifest per commit: for tests that
// damage or count one snapshot's manifest.
var consolidated = catalogstore.ChainPolicy{Off: true}

type env struct {
	cat   *catalogstore.Catalog
	m     meta.Store
	b     *local.Store
	clock *clock
	ws    string
	// hook, when set, runs before and after every object store operation
	// of the catalog (faultblob); a non-nil error fails the operation.
	hook atomic.Pointer[func(faultblob.Op) error]
	// alerts collects what the catalog's Alert hook received.
	mu     sync.Mutex
	alerts []error
}

// newEnv is a catalog on SQLite and a local folder, on a clock that starts
// at the real time (so that object modification times are in its past),
// writing delta chains (deltaEverywhere) unless policy says otherwise.
func newEnv(t *testing.T, policy ...catalogstore.ChainPolicy) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	m, err := sqlite.Open(ctx, filepath.Join(dir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	b, err := local.Open(filepath.Join(dir, "lake"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{m: m, b: b, clock: &clock{t: time.Now().UTC()}, ws: "w"}
	fb := faultblob.Wrap(b, faultblob.InjectorFunc(func(op faultblob.Op) error {
		if h := e.hook.Load(); h != nil {
			return (*h)(op)
		}
		return nil
	}))
	chain := deltaEverywhere
	if len(policy) > 0 {
		chain = policy[0]
	}
	e.cat = catalogstore.New(m, fb, catalogstore.Options{NoAudit: true, Now: e.clock.Now, Chain: chain})
	e.cat.SetHooks(catalogstore.Hooks{Alert: func(_ context.Context, err error) {
		e.mu.Lock()
		e.alerts = append(e.alerts, err)
		e.mu.Unlock()
	}})
	if _, err := e.cat.CreateWorkspace(ctx, e.ws, "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cat.CreateCollection(ctx, e.ws, "c", "tester", catalogstore.CreateCollectionOptions{}); err != nil {
		t.Fatal(err)
	}
	return e
}

var testSchema = schema.Schema{Columns: []schema.Column{
	{Name: "id", Type: schema.Type{Kind: schema.Int64}},
	{Name: "name", Type: schema.Type{Kind: schema.String}, Nullable: true},
}}

func (e *env) dataset(t *testing.T, name string, opts catalogstore.CreateDatasetOptions) *catalogstore.Dataset {
	t.Helper()
	ds, err := e.cat.CreateDataset(context.Background(), catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: name}, testSchema, "tester", opts)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// reload returns the dataset's current document.
func (e *env) reload(t *testing.T, ds *catalogstore.Dataset) *catalogstore.Dataset {
	t.Helper()
	cur, err := e.cat.Dataset(context.Background(), ds.Ident())
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// record builds one Arrow record of (id, name) rows for ids.
func record(s *schema.Schema, ids []int64) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, datafile.ArrowSchema(s))
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		if id%5 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", id))
		}
	}
	return b.NewRecord()
}

// writeFile writes ids as one real data file of ds (not committed).
func (e *env) writeFile(t *testing.T, ds *catalogstore.Dataset, ids []int64) manifest.DataFile {
	t.Helper()
	rec := record(&ds.Schema, ids)
	defer rec.Release()
	key := fmt.Sprintf("%s/data/%s.parquet", ds.Location, uuid.NewString())
	f, err := datafile.Write(context.Background(), e.b, key, &ds.Schema, []arrow.Record{rec}, datafile.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.SpecID = ds.Spec.ID
	return f
}

// appendIDs commits one append of one file holding ids.
func (e *env) appendIDs(t *testing.T, ds *catalogstore.Dataset, ids ...int64) *catalogstore.Snapshot {
	t.Helper()
	cur := e.reload(t, ds)
	f := e.writeFile(t, cur, ids)
	snap, err := e.cat.Commit(context.Background(), cur.Ident(), catalogstore.Commit{
		Operation: catalogstore.OpAppend, Author: "tester", Added: []manifest.DataFile{f},
		ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID,
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// rangeIDs is lo, lo+1, ..., hi-1.
func rangeIDs(lo, hi int64) []int64 {
	out := make([]int64, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// liveFiles returns the head's data files.
func (e *env) liveFiles(t *testing.T, ds *catalogstore.Dataset) []manifest.DataFile {
	t.Helper()
	cur := e.reload(t, ds)
	files, _, err := e.cat.Files(context.Background(), cur, cur.CurrentSnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readIDs reads every id of the head snapshot, in file order.
func (e *env) readIDs(t *testing.T, ds *catalogstore.Dataset) []int64 {
	t.Helper()
	cur := e.reload(t, ds)
	var out []int64
	for _, f := range e.liveFiles(t, cur) {
		r, err := datafile.Open(context.Background(), e.b, f, &cur.Schema, []int{cur.Schema.Columns[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			col := rec.Column(0).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				out = append(out, col.Value(i))
			}
			rec.Release()
		}
		r.Close()
	}
	return out
}

// exists reports whether an object exists.
func (e *env) exists(t *testing.T, key string) bool {
	t.Helper()
	_, err := e.b.Stat(context.Background(), key)
	return err == nil
}

var _ blob.Store = (*local.Store)(nil)

// setHook installs (nil: removes) the object store hook.
func (e *env) setHook(f func(faultblob.Op) error) {
	if f == nil {
		e.hook.Store(nil)
		return
	}
	e.hook.Store(&f)
}

// alertsSeen returns the alerts the catalog reported.
func (e *env) alertsSeen() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.alerts...)
}
