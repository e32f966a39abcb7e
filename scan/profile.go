package scan

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
)

// Profiles collects what the scans of one statement read, one Profile per
// scanned table (EXPLAIN ANALYZE). A statement that is not profiled has
// none in its context and its scans count nothing extra. Safe for
// concurrent use.
type Profiles struct {
	mu    sync.Mutex
	byKey map[any]*Profile
}

type profilesKey struct{}

// NewProfiles returns an empty collection.
func NewProfiles() *Profiles { return &Profiles{byKey: map[any]*Profile{}} }

// WithProfiles returns ctx carrying ps: the scans run under it record
// into ps.
func WithProfiles(ctx context.Context, ps *Profiles) context.Context {
	return context.WithValue(ctx, profilesKey{}, ps)
}

// ProfileFor returns the profile of the scan keyed by key (the table
// value the plan holds) when ctx is profiled, else nil. Every method of a
// nil *Profile is a no-op, so scans call them unconditionally.
func ProfileFor(ctx context.Context, key any) *Profile {
	ps, _ := ctx.Value(profilesKey{}).(*Profiles)
	if ps == nil {
		return nil
	}
	return ps.Get(key)
}

// Get returns key's profile, made on first use.
func (ps *Profiles) Get(key any) *Profile {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.byKey[key]
	if !ok {
		p = &Profile{}
		ps.byKey[key] = p
	}
	return p
}

// Lookup returns key's profile, or nil when no scan recorded under key.
func (ps *Profiles) Lookup(key any) *Profile {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.byKey[key]
}

// Profile is what one table's scans read in a statement: the files and
// row groups considered and what each pruning step ruled out, the rows
// decoded, the bytes fetched from the object store, the time spent and
// the peak memory of decoded buffers. Safe for concurrent use; a nil
// *Profile records nothing.
type Profile struct {
	mu sync.Mutex
	// Runs is the times the scan ran (a scan on the inner side of a
	// nested loop runs once per outer row).
	Runs int
	// Vectorised reports that the scan ran as a vectorised (column
	// vector) pipeline rather than feeding GMS rows.
	Vectorised bool
	// Files is the files of the snapshot considered; FilesPartitionPruned
	// those the partition values ruled out, FilesBoundsPruned those the
	// manifest's column bounds ruled out (of the rest): by the filters, or
	// as a top-N ran, by the rows it had found.
	Files, FilesPartitionPruned, FilesBoundsPruned int
	// FilesCached is the files answered from the decoded-row cache.
	FilesCached int
	// RowGroups is the row groups of the files read; RowGroupsStatsPruned
	// those their footer statistics ruled out, RowGroupsDictPruned those
	// a dictionary then ruled out.
	RowGroups, RowGroupsStatsPruned, RowGroupsDictPruned int
	// RowsPageSkipped is the rows of row groups read that the page index
	// ruled out (never decoded); RowsRead the rows decoded.
	RowsPageSkipped, RowsRead int64
	// Time is the wall time the scan's runs took.
	Time time.Duration

	bytes   atomic.Int64
	memCur  atomic.Int64
	memPeak atomic.Int64
}

// BytesRead is the bytes fetched from the object store (data already in
// a cache costs none).
func (p *Profile) BytesRead() int64 { return p.bytes.Load() }

// PeakMemory is the most bytes of decoded column buffers the scan held
// at once.
func (p *Profile) PeakMemory() int64 { return p.memPeak.Load() }

// start counts a run and returns the function that ends it, adding its
// time.
func (p *Profile) start(vectorised bool) func() {
	if p == nil {
		return func() {}
	}
	t0 := time.Now()
	p.mu.Lock()
	p.Runs++
	p.Vectorised = p.Vectorised || vectorised
	p.mu.Unlock()
	return func() { p.addTime(time.Since(t0)) }
}

// pruned records a run's file pruning: of all, kept remain after
// partition and bound pruning by preds. Only a profiled scan pays for
// telling the two apart.
func (p *Profile) pruned(all, kept []manifest.DataFile, specs []partition.Spec, preds []Predicate) {
	if p == nil {
		return
	}
	part := 0
	if len(kept) < len(all) {
		for i := range all {
			if !partitionMightMatch(&all[i], specs, preds) {
				part++
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Files += len(all)
	p.FilesPartitionPruned += part
	p.FilesBoundsPruned += len(all) - len(kept) - part
}

// skipped records a file a run ruled out by its manifest bounds as it
// ran (a top-N's file that cannot beat the rows already found).
func (p *Profile) skipped() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.FilesBoundsPruned++
}

// addStats records the row-group and row counts of a run (or a file).
func (p *Profile) addStats(st Stats) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.RowGroups += st.RowGroups
	p.RowGroupsStatsPruned += st.RowGroups - st.RowGroupsRead - st.RowGroupsDictPruned
	p.RowGroupsDictPruned += st.RowGroupsDictPruned
	p.RowsPageSkipped += st.RowsSkipped
	p.RowsRead += st.Rows - st.RowsSkipped
}

// cached records a file answered from the decoded-row cache: its rows,
// and its row groups (from the footer, normally cached too) as read, for
// a cached file was read whole.
func (p *Profile) cached(ctx context.Context, req Request, f manifest.DataFile, rows int64) {
	if p == nil {
		return
	}
	n, err := datafile.NumRowGroups(ctx, req.Store, f, req.Footers)
	if err != nil {
		n = 0 // a statistic only: the rows came from the cache
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.FilesCached++
	p.RowGroups += n
	p.RowsRead += rows
}

// store returns s counting the bytes read through it into p.
func (p *Profile) store(s blob.Store) blob.Store {
	if p == nil || s == nil {
		return s
	}
	return profiledStore{Store: s, p: p}
}

// alloc returns a counting the bytes it holds into p (nil a: the Go heap).
func (p *Profile) alloc(a memory.Allocator) memory.Allocator {
	if p == nil {
		return a
	}
	if a == nil {
		a = memory.DefaultAllocator
	}
	return &profiledAlloc{inner: a, p: p}
}

func (p *Profile) hold(n int64) {
	cur := p.memCur.Add(n)
	for {
		peak := p.memPeak.Load()
		if cur <= peak || p.memPeak.CompareAndSwap(peak, cur) {
			return
		}
	}
}

// profiledStore counts the bytes its reads return.
type profiledStore struct {
	blob.Store
	p *Profile
}

func (s profiledStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Store.Get(ctx, key)
	s.p.bytes.Add(int64(len(b)))
	return b, err
}

func (s profiledStore) ReadAt(ctx context.Context, key string, b []byte, off int64) (int, error) {
	n, err := s.Store.ReadAt(ctx, key, b, off)
	s.p.bytes.Add(int64(n))
	return n, err
}

// profiledAlloc tracks the bytes of the buffers it has handed out and
// not yet had back.
type profiledAlloc struct {
	inner memory.Allocator
	p     *Profile
}

func (a *profiledAlloc) Allocate(size int) []byte {
	b := a.inner.Allocate(size)
	a.p.hold(int64(cap(b)))
	return b
}

func (a *profiledAlloc) Reallocate(size int, b []byte) []byte {
	old := int64(cap(b))
	nb := a.inner.Reallocate(size, b)
	a.p.hold(int64(cap(nb)) - old)
	return nb
}

func (a *profiledAlloc) Free(b []byte) {
	a.p.hold(-int64(cap(b)))
	a.inner.Free(b)
}

// Pruned records a row scan's file pruning, which its caller does before
// NewRowIter: of all, kept remain after pruning by preds.
func (p *Profile) Pruned(all, kept []manifest.DataFile, specs []partition.Spec, preds []Predicate) {
	p.pruned(all, kept, specs, preds)
}

// wholeFile is the Stats of reading every row group of r.
func wholeFile(r *datafile.Reader) Stats {
	stats := r.RowGroupStats()
	st := Stats{RowGroups: len(stats), RowGroupsRead: len(stats)}
	for _, rg := range stats {
		st.Rows += rg.NumRows
	}
	return st
}

// timed returns it adding the time its calls take to p: the time the
// consumer waited on the scan (readers decode ahead in the background).
func (p *Profile) timed(it sql.RowIter) sql.RowIter {
	if p == nil {
		return it
	}
	return &timedIter{it: it, p: p}
}

type timedIter struct {
	it sql.RowIter
	p  *Profile
}

func (t *timedIter) Next(ctx *sql.Context) (sql.Row, error) {
	t0 := time.Now()
	r, err := t.it.Next(ctx)
	t.p.addTime(time.Since(t0))
	return r, err
}

func (t *timedIter) Close(ctx *sql.Context) error {
	t0 := time.Now()
	err := t.it.Close(ctx)
	t.p.addTime(time.Since(t0))
	return err
}

func (p *Profile) addTime(d time.Duration) {
	p.mu.Lock()
	p.Time += d
	p.mu.Unlock()
}
