package catalogstore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
)

// metaBytesStore counts the bytes Put writes under metadata/ folders.
type metaBytesStore struct {
	blob.Store
	metaBytes atomic.Int64
}

func (s *metaBytesStore) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if strings.Contains(key, "/metadata/") {
		s.metaBytes.Add(int64(len(data)))
	}
	return s.Store.Put(ctx, key, bytes.NewReader(data), opts)
}

// statFile is a data file entry with statistics on 8 columns, as a
// written file's footer gives them: a random uuid name and bounds, so that
// the manifest compresses no better than a real one.
func statFile(ds *catalogstore.Dataset, n int) manifest.DataFile {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	f := fakeFile(ds, n, 10_000)
	f.Path = fmt.Sprintf("%s/data/%08x-%04x-%04x-%04x-%012x.parquet", ds.Location,
		rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xffff, rng.Uint32()&0xffff, rng.Uint64()&0xffffffffffff)
	for c := range 8 {
		lo, hi := make([]byte, 8), make([]byte, 8)
		v := rng.Uint64() >> 8
		binary.LittleEndian.PutUint64(lo, v)
		binary.LittleEndian.PutUint64(hi, v+rng.Uint64()>>40)
		f.FieldIDs = append(f.FieldIDs, c+1)
		f.ValueCounts = append(f.ValueCounts, 10_000)
		f.NullCounts = append(f.NullCounts, int64(c%3))
		f.NaNCounts = append(f.NaNCounts, 0)
		f.LowerBounds = append(f.LowerBounds, lo)
		f.UpperBounds = append(f.UpperBounds, hi)
		f.BoundsExact = append(f.BoundsExact, true)
		f.ColumnSizes = append(f.ColumnSizes, int64(40_000+n%977))
	}
	return f
}

// commitCost is what one measured run wrote.
type commitCost struct {
	base      int64 // bytes of the first commit's manifest (every live file)
	perCommit int64 // metadata bytes per commit after it, on average
	largest   int64 // the largest single commit
	bases     int   // commits among them that wrote a consolidated manifest
	docBytes  int64 // the largest snapshot document (JSON)
}

// measureCommits creates a table of live files with one commit, then
// makes commits alternately appending one file and deleting the oldest,
// so the table keeps live or live+1 files, and reports the metadata bytes
// written per commit.
func measureCommits(t testing.TB, live, commits int, policy catalogstore.ChainPolicy) commitCost {
	ctx := context.Background()
	m, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	lb, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	store := &metaBytesStore{Store: lb}
	e := &env{cat: catalogstore.New(m, store, catalogstore.Options{NoAudit: true, Chain: policy}), m: m, b: store, ws: "wsize"}
	if _, err := e.cat.CreateWorkspace(ctx, e.ws, "tester"); err != nil {
		t.Fatal(err)
	}
	ds := mustDataset(t, e)
	first := make([]manifest.DataFile, live)
	for i := range first {
		first[i] = statFile(ds, i)
	}
	head, err := e.cat.Commit(ctx, ds.Ident(), catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, Added: first})
	if err != nil {
		t.Fatal(err)
	}
	cost := commitCost{base: store.metaBytes.Load()}
	store.metaBytes.Store(0)
	for i := range commits {
		cm := catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "x", ExpectedUUID: ds.UUID, BaseSnapshotID: head.ID,
			Added: []manifest.DataFile{statFile(ds, live+i/2)}}
		if i%2 == 1 {
			cm.Operation, cm.Added, cm.Removed = catalogstore.OpDelete, nil, []string{statFile(ds, i/2).Path}
		}
		before := store.metaBytes.Load()
		if head, err = e.cat.Commit(ctx, ds.Ident(), cm); err != nil {
			t.Fatal(err)
		}
		cost.largest = max(cost.largest, store.metaBytes.Load()-before)
		if len(head.ManifestDeltas) == 0 {
			cost.bases++
		}
		doc, _ := json.Marshal(head)
		cost.docBytes = max(cost.docBytes, int64(len(doc)))
	}
	cost.perCommit = store.metaBytes.Load() / int64(commits)
	return cost
}

// TestMetadataBytesPerCommit measures the metadata a commit writes on
// tables of 10 and 1,000 live files, writing a consolidated manifest per
// commit (before deltas) and with the default chain policy, and logs the
// figures (BenchmarkMetadataBytesPerCommit adds 100,000). Sizes, not
// times, are asserted: on the larger table a commit writes far less than
// its consolidated manifest.
func TestMetadataBytesPerCommit(t *testing.T) {
	for _, live := range []int{10, 1_000} {
		before := measureCommits(t, live, 32, catalogstore.ChainPolicy{Off: true})
		after := measureCommits(t, live, 32, catalogstore.ChainPolicy{})
		t.Logf("%6d live files: base %8d B; per commit before %8d B, after %7d B (largest %7d B, %d of 32 commits wrote a base, snapshot document ≤ %d B)",
			live, before.base, before.perCommit, after.perCommit, after.largest, after.bases, after.docBytes)
		// A table this small writes a base every commit either way, and
		// two runs' manifests differ by a few bytes (timestamps, ids,
		// compression), so "no more" allows 2 %.
		if after.perCommit > before.perCommit+before.perCommit/50 {
			t.Errorf("%d live files: %d bytes per commit with deltas, %d without", live, after.perCommit, before.perCommit)
		}
		if live >= 1_000 && after.perCommit*2 > before.perCommit {
			t.Errorf("%d live files: deltas save less than half: %d vs %d bytes per commit", live, after.perCommit, before.perCommit)
		}
	}
}

// BenchmarkMetadataBytesPerCommit reports the metadata bytes per commit
// at 10, 1,000 and 100,000 live files, before deltas (Off) and with the
// default policy.
func BenchmarkMetadataBytesPerCommit(b *testing.B) {
	for _, live := range []int{10, 1_000, 100_000} {
		for _, pol := range []struct {
			name string
			p    catalogstore.ChainPolicy
		}{{"consolidated", catalogstore.ChainPolicy{Off: true}}, {"deltas", catalogstore.ChainPolicy{}}} {
			b.Run(fmt.Sprintf("files=%d/%s", live, pol.name), func(b *testing.B) {
				// Enough commits with deltas at 1,000 files for several
				// consolidations; at 100,000 a cycle is ~20,000 commits:
				// measure the deltas of its start. A consolidated commit
				// costs the same each time: a few suffice.
				commits := 512
				switch {
				case pol.p.Off && live >= 100_000:
					commits = 4
				case pol.p.Off || live >= 100_000:
					commits = 64
				}
				var c commitCost
				for range b.N {
					c = measureCommits(b, live, commits, pol.p)
				}
				b.ReportMetric(float64(c.base), "base-bytes")
				b.ReportMetric(float64(c.perCommit), "bytes/commit")
				b.ReportMetric(float64(c.largest), "max-bytes/commit")
				b.ReportMetric(float64(c.docBytes), "doc-bytes")
				b.ReportMetric(float64(c.bases), "bases")
			})
		}
	}
}

// mustDataset is env.dataset for a testing.TB.
func mustDataset(t testing.TB, e *env) *catalogstore.Dataset {
	ctx := context.Background()
	if _, err := e.cat.CreateCollection(ctx, e.ws, "c", "tester", catalogstore.CreateCollectionOptions{}); err != nil {
		t.Fatal(err)
	}
	ds, err := e.cat.CreateDataset(ctx, catalogstore.Ident{Workspace: e.ws, Collection: "c", Name: "t"}, testSchema, "tester", catalogstore.CreateDatasetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
