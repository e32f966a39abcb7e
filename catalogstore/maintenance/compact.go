package maintenance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Compaction sizes, compared with files' uncompressed size estimates (the
// seed's defaults). A file below MinSizeBytes is small; outputs aim at
// TargetSizeBytes and never exceed MaxSizeBytes. Config overrides them
// (tests use bytes, not gigabytes).
const (
	TargetSizeBytes int64 = 4 << 30            // 4 GiB
	MinSizeBytes    int64 = 3584 << 20         // 3.5 GiB
	MaxSizeBytes    int64 = 4<<30 + (1<<30)/10 // 4.1 GiB
)

// DefaultRAMMB is compaction's memory budget in MiB when the caller sets
// none (cmd/lakesql reads LAKESQL_COMPACTION_RAM_MB into it).
const DefaultRAMMB = 16384

// Strategy is a compaction rule.
type Strategy string

const (
	// StrategyAuto picks StrategySortAware when the dataset has a usable
	// sort order, else StrategyBrute.
	StrategyAuto Strategy = ""
	// StrategyBrute merges small files of a partition, without sorting.
	StrategyBrute Strategy = "brute"
	// StrategySortAware ("performance") merges files whose ranges overlap
	// on the dataset's sort key, and runs of small adjacent files, into
	// sorted files with disjoint key ranges.
	StrategySortAware Strategy = "sort_aware"
	// StrategyDeleteDebt names the rule that rewrites files carrying
	// delete debt. lakesql's DELETE is copy-on-write, so no file carries
	// any (see the package documentation): Compact answers it with
	// ErrNoDeleteDebt and changes nothing.
	StrategyDeleteDebt Strategy = "delete_debt"
)

// ParseStrategy reads a rule name: brute, sort_aware or performance (its
// alias), delete_debt; "" or auto is StrategyAuto. ErrBadStrategy
// otherwise.
func ParseStrategy(s string) (Strategy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return StrategyAuto, nil
	case "brute":
		return StrategyBrute, nil
	case "sort_aware", "performance":
		return StrategySortAware, nil
	case "delete_debt":
		return StrategyDeleteDebt, nil
	}
	return "", fmt.Errorf("%w: %q (use 'brute', 'sort_aware', 'performance' or 'delete_debt')", ErrBadStrategy, s)
}

// Stages of a compaction pass, reported through Config.Progress.
const (
	StageRead   = "read"   // reading input files
	StageWrite  = "write"  // an output file was written
	StageCommit = "commit" // committing (again after a concurrent commit)
)

// Progress reports how far a compaction pass got.
type Progress struct {
	Stage      string
	FilesDone  int   // input files read so far
	FilesTotal int   // input files of the plan
	BytesDone  int64 // uncompressed estimate of the inputs read so far
	BytesTotal int64
	Outputs    int // output files written so far
}

// Config tunes Compact. The zero value compacts with the package's sizes,
// the automatic rule and a memory budget of DefaultRAMMB.
type Config struct {
	Strategy Strategy
	// DryRun plans without writing anything.
	DryRun bool
	// Author is the author of the compaction snapshot ("maintenance" if
	// empty).
	Author string
	// Sizes in bytes of the uncompressed estimate; 0 uses the package
	// constants.
	TargetSize, MinSize, MaxSize int64
	// MemoryBudget in bytes bounds what a pass holds in memory; 0 means
	// DefaultRAMMB MiB.
	MemoryBudget int64
	// RowGroupRows of the output files (datafile default if 0).
	RowGroupRows int64
	// LeaseTTL of the maintenance lease (DefaultLeaseTTL if 0); the lease
	// is renewed as output files are written.
	LeaseTTL time.Duration
	// MaxRebases bounds how often the commit is re-based on a head that
	// concurrent appends moved (default 10).
	MaxRebases int
	// Progress, if set, is called as the pass advances, on the calling
	// goroutine (for progress bars).
	Progress func(Progress)
}

func (c Config) withDefaults() (Config, error) {
	if c.TargetSize <= 0 {
		c.TargetSize = TargetSizeBytes
	}
	if c.MinSize <= 0 {
		c.MinSize = MinSizeBytes
	}
	if c.MaxSize <= 0 {
		c.MaxSize = MaxSizeBytes
	}
	if c.MinSize > c.TargetSize || c.TargetSize > c.MaxSize {
		return c, fmt.Errorf("%w: compaction sizes need min (%d) <= target (%d) <= max (%d)", catalogstore.ErrBadValue, c.MinSize, c.TargetSize, c.MaxSize)
	}
	if c.MemoryBudget <= 0 {
		c.MemoryBudget = DefaultRAMMB << 20
	}
	if c.Author == "" {
		c.Author = "maintenance"
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
	if c.MaxRebases <= 0 {
		c.MaxRebases = 10
	}
	return c, nil
}

// outputLimit is the most one output file holds: the target, or less when
// the budget cannot hold an output's records and its encoded copy.
func (c Config) outputLimit() int64 { return max(1, min(c.TargetSize, c.MemoryBudget/2)) }

// sortLimit is the most a sorted bin holds: its records, the sorted copy
// and an encoded output must fit the budget.
func (c Config) sortLimit() int64 { return max(1, c.MemoryBudget/3) }

// Plan is what one compaction pass does (or, in a dry run, would do).
type Plan struct {
	// Type is the rule: "brute" or "sort_aware".
	Type Strategy
	// Mode says how the rule was chosen: "auto" (from the dataset's sort
	// order) or "explicit".
	Mode string
	// Reason says, for people, why these files were chosen.
	Reason string
	// SortColumn is the sort key's first column (sort_aware only).
	SortColumn string
	// Files are the input paths, bin by bin.
	Files []string
	// Bins are the groups of inputs merged together; a bin never crosses
	// a (spec id, partition values) group.
	Bins []Bin
	// InputRows and InputBytes (uncompressed estimate) total the inputs.
	InputRows  int64
	InputBytes int64
	// ExpectedOutputs is how many files the pass should write.
	ExpectedOutputs int
	// BaseSnapshotID is the snapshot the plan was made from.
	BaseSnapshotID int64
}

// Bin is a set of input files merged into ExpectedOutputs files.
type Bin struct {
	SpecID          int
	PartitionValues []*string
	Files           []manifest.DataFile
	Rows            int64
	Bytes           int64 // uncompressed estimate
	Sorted          bool
	ExpectedOutputs int
}

// CompactResult is a compaction pass: its plan and, unless it was a dry
// run, the committed snapshot and the files it wrote.
type CompactResult struct {
	Plan     *Plan
	Snapshot *catalogstore.Snapshot
	Outputs  []manifest.DataFile
	// Rebases counts the times the commit was re-based on a head that
	// concurrent commits (appends) moved.
	Rebases int
}

// estimate is a file's uncompressed size estimate.
func estimate(f manifest.DataFile) int64 {
	if f.UncompressedSize > 0 {
		return f.UncompressedSize
	}
	return f.FileSize
}

// rowBytes is a file's uncompressed estimate per row.
func rowBytes(f manifest.DataFile) float64 {
	if f.RecordCount <= 0 {
		return 0
	}
	return float64(estimate(f)) / float64(f.RecordCount)
}

// Compact runs ONE compaction pass over ds: read the head's manifest,
// select files that clear the thresholds, execute (stream the inputs into
// new files of the same partition), and commit operation=compact as a
// housekeeping snapshot (no trigger fires). It returns nil, nil when no
// file clears the thresholds. A dry run returns the plan only.
//
// The pass holds the dataset's maintenance lease (ErrLeaseHeld). It
// commits only if the rows the manifest lists for the inputs, the rows read
// and the rows written all agree (else an alertable ErrRowCountMismatch);
// appends that land meanwhile are kept, since compaction commutes with
// them: the commit is re-based on the new head as long as every input file
// is still live (else ErrInputsChanged). On any failure the pass deletes
// the files it wrote and the dataset is unchanged.
//
// Memory: an output is written from at most Config.outputLimit bytes of
// records (datafile.Write encodes a whole file in memory); a sorted bin
// holds at most a third of the budget.
func Compact(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, cfg Config) (*CompactResult, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Strategy != StrategyAuto && cfg.Strategy != StrategyBrute && cfg.Strategy != StrategySortAware {
		if cfg.Strategy, err = ParseStrategy(string(cfg.Strategy)); err != nil {
			return nil, err
		}
	}
	if cfg.Strategy == StrategyDeleteDebt {
		return nil, fmt.Errorf("%w: %s: DELETE rewrites the files it touches without the deleted rows (copy-on-write) and writes no delete files, so no file carries delete debt; the smaller rewritten files are small files, which 'brute' (or the automatic rule) merges",
			ErrNoDeleteDebt, ds.Ident().Short())
	}
	var lease *Lease
	if !cfg.DryRun {
		if lease, err = Acquire(ctx, cat, ds, cfg.Author+" (compact)", cfg.LeaseTTL); err != nil {
			return nil, err
		}
		defer releaseQuietly(ctx, lease)
	}
	// Read: fresh metadata, under the lease.
	cur, err := cat.Dataset(ctx, ds.Ident())
	if err != nil {
		return nil, err
	}
	if cur.UUID != ds.UUID {
		return nil, fmt.Errorf("%w: %s was recreated", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
	}
	files, _, err := cat.Files(ctx, cur, cur.CurrentSnapshotID)
	if err != nil {
		return nil, err
	}
	if cfg.Strategy == StrategySortAware && len(sortKey(cur)) == 0 {
		return nil, fmt.Errorf("%w: sort_aware needs a sort order and %s has none; use 'brute'", ErrBadStrategy, ds.Ident().Short())
	}
	// Select.
	plan := selectFiles(cur, files, cfg)
	if plan == nil {
		return nil, nil
	}
	if cfg.DryRun {
		return &CompactResult{Plan: plan}, nil
	}
	// Execute.
	ex := &executor{ctx: ctx, cat: cat, ds: cur, cfg: cfg, lease: lease, plan: plan, renewed: cat.Now()}
	outputs, err := ex.run()
	if err != nil {
		ex.discard()
		return nil, err
	}
	// Commit.
	snap, rebases, err := commitCompaction(ctx, cat, cur, lease, plan, outputs, cfg)
	if err != nil {
		if !catalogstore.MayHaveLanded(err) { // else the outputs may be the table's files now
			ex.discard()
		}
		return nil, err
	}
	return &CompactResult{Plan: plan, Snapshot: snap, Outputs: outputs, Rebases: rebases}, nil
}

// sortKey returns the dataset's usable sort columns (the sort order's
// columns that exist in the current schema, in order), or nil.
func sortKey(ds *catalogstore.Dataset) []schema.Column {
	var out []schema.Column
	for _, name := range ds.SortOrder {
		c, ok := ds.Schema.Column(name)
		if !ok {
			if len(out) == 0 {
				return nil // the leading column is gone: no usable order
			}
			break
		}
		out = append(out, c)
	}
	return out
}

// groupKey identifies a (spec id, partition values) group.
func groupKey(f manifest.DataFile) string {
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(f.SpecID))
	for _, v := range f.PartitionValues {
		if v == nil {
			sb.WriteString("|N")
		} else {
			sb.WriteString("|V" + strconv.Quote(*v))
		}
	}
	return sb.String()
}

// groups splits files by (spec id, partition values), keeping manifest
// order within and between groups.
func groups(files []manifest.DataFile) [][]manifest.DataFile {
	idx := map[string]int{}
	var out [][]manifest.DataFile
	for _, f := range files {
		k := groupKey(f)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], f)
	}
	return out
}

// selectFiles is the select step: the plan, or nil when nothing clears the
// thresholds.
func selectFiles(ds *catalogstore.Dataset, files []manifest.DataFile, cfg Config) *Plan {
	key := sortKey(ds)
	strategy, mode := cfg.Strategy, "explicit"
	if strategy == StrategyAuto {
		mode, strategy = "auto", StrategyBrute
		if len(key) > 0 {
			strategy = StrategySortAware
		}
	}
	p := &Plan{Type: strategy, Mode: mode, BaseSnapshotID: ds.CurrentSnapshotID}
	var overlapping, adjacent int
	parts := 0
	for _, g := range groups(files) {
		var bins []Bin
		if strategy == StrategyBrute {
			bins = bruteBins(g, cfg)
		} else {
			var o, a int
			bins, o, a = sortedBins(g, key[0], cfg)
			overlapping, adjacent = overlapping+o, adjacent+a
		}
		if len(bins) > 0 {
			parts++
		}
		p.Bins = append(p.Bins, bins...)
	}
	if len(p.Bins) == 0 {
		return nil
	}
	for _, b := range p.Bins {
		for _, f := range b.Files {
			p.Files = append(p.Files, f.Path)
		}
		p.InputRows += b.Rows
		p.InputBytes += b.Bytes
		p.ExpectedOutputs += b.ExpectedOutputs
	}
	if strategy == StrategyBrute {
		p.Reason = fmt.Sprintf("%d files in %d partition(s) are below the %s lower edge; merging them into %d file(s) of at most %s",
			len(p.Files), parts, human(cfg.MinSize), p.ExpectedOutputs, human(cfg.TargetSize))
	} else {
		p.SortColumn = key[0].Name
		p.Reason = fmt.Sprintf("%d files overlap on sort column %q and %d small files are adjacent, in %d partition(s); rewriting them as %d sorted file(s) with disjoint ranges",
			overlapping, key[0].Name, adjacent, parts, p.ExpectedOutputs)
	}
	return p
}

func newBin(files []manifest.DataFile, sorted bool, limit int64) Bin {
	b := Bin{SpecID: files[0].SpecID, PartitionValues: files[0].PartitionValues, Files: files, Sorted: sorted}
	for _, f := range files {
		b.Rows += f.RecordCount
		b.Bytes += estimate(f)
	}
	b.ExpectedOutputs = int(max(1, (b.Bytes+limit-1)/limit))
	return b
}

// bruteBins packs a group's small files (first fit, largest first) into
// bins of at most the target; bins of one file are dropped.
func bruteBins(g []manifest.DataFile, cfg Config) []Bin {
	var small []manifest.DataFile
	for _, f := range g {
		if estimate(f) < cfg.MinSize {
			small = append(small, f)
		}
	}
	if len(small) < 2 {
		return nil
	}
	order := make([]manifest.DataFile, len(small))
	copy(order, small)
	slices.SortStableFunc(order, func(a, b manifest.DataFile) int { return cmp.Compare(estimate(b), estimate(a)) })
	type open struct {
		files []manifest.DataFile
		bytes int64
	}
	var bins []*open
	for _, f := range order {
		placed := false
		for _, b := range bins {
			if b.bytes+estimate(f) <= cfg.TargetSize {
				b.files, b.bytes = append(b.files, f), b.bytes+estimate(f)
				placed = true
				break
			}
		}
		if !placed {
			bins = append(bins, &open{files: []manifest.DataFile{f}, bytes: estimate(f)})
		}
	}
	var out []Bin
	for _, b := range bins {
		if len(b.files) >= 2 {
			out = append(out, newBin(b.files, false, cfg.outputLimit()))
		}
	}
	return out
}

// keyRange is a file's range on the sort column; known is false when the
// manifest has no bounds for it (the file may hold any key).
type keyRange struct {
	f      manifest.DataFile
	lo, hi any
	known  bool
}

func rangeOf(f manifest.DataFile, col schema.Column) keyRange {
	r := keyRange{f: f}
	st, _ := f.ColumnStats(col.ID)
	if st.Missing || st.Lower == nil || st.Upper == nil {
		return r
	}
	lo, err1 := datafile.DecodeBound(col.Type, st.Lower)
	hi, err2 := datafile.DecodeBound(col.Type, st.Upper)
	if err1 == nil && err2 == nil {
		r.lo, r.hi, r.known = lo, hi, true
	}
	return r
}

// sortedBins finds, in one group, clusters of files whose ranges on the
// sort column overlap (a file without bounds overlaps every other) and
// runs of small adjacent files, and makes each a sorted bin. It returns
// the bins and how many files were chosen for overlapping and for being
// small neighbours.
func sortedBins(g []manifest.DataFile, col schema.Column, cfg Config) (bins []Bin, overlapping, adjacent int) {
	if len(g) < 2 {
		return nil, 0, 0
	}
	var known []keyRange
	unknown := false
	for _, f := range g {
		r := rangeOf(f, col)
		if !r.known {
			unknown = true
		}
		known = append(known, r)
	}
	var clusters [][]keyRange
	if unknown {
		clusters = [][]keyRange{known} // an unknown range overlaps everything
	} else {
		slices.SortStableFunc(known, func(a, b keyRange) int { return datafile.CompareBounds(a.lo, b.lo) })
		var hi any
		for i, r := range known {
			if i > 0 && datafile.CompareBounds(r.lo, hi) <= 0 {
				clusters[len(clusters)-1] = append(clusters[len(clusters)-1], r)
				if datafile.CompareBounds(r.hi, hi) > 0 {
					hi = r.hi
				}
				continue
			}
			clusters = append(clusters, []keyRange{r})
			hi = r.hi
		}
	}
	limit := cfg.sortLimit()
	outLimit := min(cfg.TargetSize, cfg.outputLimit())
	var run []manifest.DataFile // small, non-overlapping neighbours
	var runBytes int64
	flushRun := func() {
		if len(run) >= 2 {
			bins = append(bins, newBin(run, true, outLimit))
			adjacent += len(run)
		}
		run, runBytes = nil, 0
	}
	for _, c := range clusters {
		if len(c) >= 2 {
			flushRun()
			var take []manifest.DataFile
			var bytes int64
			for _, r := range c {
				if bytes+estimate(r.f) > limit && len(take) >= 2 {
					break
				}
				take, bytes = append(take, r.f), bytes+estimate(r.f)
			}
			if bytes <= limit {
				bins = append(bins, newBin(take, true, outLimit))
				overlapping += len(take)
			}
			continue
		}
		f := c[0].f
		if estimate(f) >= cfg.MinSize {
			flushRun()
			continue
		}
		if runBytes+estimate(f) > min(cfg.TargetSize, limit) {
			flushRun()
		}
		run, runBytes = append(run, f), runBytes+estimate(f)
	}
	flushRun()
	return bins, overlapping, adjacent
}

// commitCompaction commits the outputs in place of the inputs. When the
// head moved (concurrent appends), it re-reads the head, checks every input
// is still live, and commits again on the new head.
func commitCompaction(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, lease *Lease, plan *Plan, outputs []manifest.DataFile, cfg Config) (*catalogstore.Snapshot, int, error) {
	base := plan.BaseSnapshotID
	for rebases := 0; ; rebases++ {
		if rebases%8 == 0 {
			if err := lease.Check(ctx); err != nil {
				return nil, rebases, err
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(Progress{Stage: StageCommit, FilesDone: len(plan.Files), FilesTotal: len(plan.Files), BytesDone: plan.InputBytes, BytesTotal: plan.InputBytes, Outputs: len(outputs)})
		}
		snap, err := cat.Commit(ctx, ds.Ident(), catalogstore.Commit{
			Operation: catalogstore.OpCompact, Author: cfg.Author, Housekeeping: true,
			Message: fmt.Sprintf("compact (%s): %d files into %d", plan.Type, len(plan.Files), len(outputs)),
			Added:   outputs, Removed: plan.Files,
			ExpectedUUID: ds.UUID, BaseSnapshotID: base,
		})
		if err == nil {
			return snap, rebases, nil
		}
		if !errors.Is(err, catalogstore.ErrCommitConflict) {
			return nil, rebases, err
		}
		// Compaction commutes with any commit that left its inputs live.
		cur, derr := cat.Dataset(ctx, ds.Ident())
		if derr != nil {
			return nil, rebases, derr
		}
		if cur.UUID != ds.UUID {
			return nil, rebases, fmt.Errorf("%w: %s was recreated during compaction", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
		}
		if cur.CurrentSnapshotID == base {
			return nil, rebases, err // not a moved head: nothing to re-base on
		}
		files, _, ferr := cat.Files(ctx, cur, cur.CurrentSnapshotID)
		if ferr != nil {
			return nil, rebases, ferr
		}
		live := make(map[string]bool, len(files))
		for _, f := range files {
			live[f.Path] = true
		}
		gone := 0
		for _, p := range plan.Files {
			if !live[p] {
				gone++
			}
		}
		if gone > 0 {
			return nil, rebases, fmt.Errorf("%w: %d of the %d input files of %s were removed or rewritten by snapshot %d or earlier; the compaction outputs were deleted, run compaction again",
				ErrInputsChanged, gone, len(plan.Files), ds.Ident().Short(), cur.CurrentSnapshotID)
		}
		if rebases >= cfg.MaxRebases {
			return nil, rebases, fmt.Errorf("compact %s: the head kept moving (%d re-bases): %w", ds.Ident().Short(), rebases, err)
		}
		// The head moved because others made progress: retry at once.
		base = cur.CurrentSnapshotID
		if err := ctx.Err(); err != nil {
			return nil, rebases, err
		}
	}
}

// human formats a byte size.
func human(n int64) string {
	switch {
	case n >= 1<<30:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64), ".0") + " GiB"
	case n >= 1<<20:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64), ".0") + " MiB"
	case n >= 1<<10:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64), ".0") + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}
