package provider

import (
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/stats"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/sqlerr"
)

// StatsProvider is GMS's statistics catalog (sql.StatsProvider) for
// lakesql tables. Row counts, null counts, min/max and average sizes come
// free from the manifest (every data file's footer stats); a histogram
// with one bucket per data file is given for columns whose files do not
// overlap (a dataset sorted or partitioned by the column). Distinct
// counts are not in the manifest: ANALYZE TABLE reads the table once and
// estimates them (a k-minimum-values sketch per column), kept for that
// table's snapshot until it changes. Without ANALYZE, the distinct count
// is bounded only for integer and date columns (by max - min + 1).
//
// GMS v0.20.0's own join coster reads only a table scan's RowCount
// (column statistics enter it only through indexes, which lakesql tables
// do not declare); lakesql's coster (engine/rewrite) reads the same
// statistics through TableStats (colstats.go), ANALYZE TABLE's distinct
// counts included. They are also shown in
// information_schema.column_statistics.
type StatsProvider struct {
	mu sync.Mutex
	// ndv holds ANALYZE TABLE's distinct counts by "db.table".
	ndv map[string]analyzed
}

// analyzed is one ANALYZE TABLE result: per field id a distinct-count
// estimate, valid for one snapshot of one dataset.
type analyzed struct {
	uuid     string
	snapshot int64
	distinct map[int]uint64
	at       time.Time
}

var _ sql.StatsProvider = (*StatsProvider)(nil)

// NewStatsProvider returns an empty provider.
func NewStatsProvider() *StatsProvider {
	return &StatsProvider{ndv: map[string]analyzed{}}
}

// lakeTable finds the lakesql table under GMS's wrappers (resolved and
// projected tables, table nodes).
func lakeTable(t sql.Table) (*Table, bool) {
	for range 8 {
		switch x := t.(type) {
		case *Table:
			return x, true
		case sql.TableNode:
			u := x.UnderlyingTable()
			if u == t {
				return nil, false
			}
			t = u
		case sql.TableWrapper:
			t = x.Underlying()
		default:
			return nil, false
		}
	}
	return nil, false
}

func statsKey(db, table string) string { return strings.ToLower(db) + "." + strings.ToLower(table) }

// RowCount implements sql.StatsProvider: the snapshot's record count.
func (p *StatsProvider) RowCount(ctx *sql.Context, db string, table sql.Table) (uint64, error) {
	t, ok := lakeTable(table)
	if !ok {
		return 0, nil
	}
	return t.records(ctx)
}

// DataLength implements sql.StatsProvider: the snapshot's bytes.
func (p *StatsProvider) DataLength(ctx *sql.Context, db string, table sql.Table) (uint64, error) {
	t, ok := lakeTable(table)
	if !ok {
		return 0, nil
	}
	return t.DataLength(ctx)
}

// records is the row count of the snapshot t reads: the dataset document's
// for the current snapshot, else the manifest's.
func (t *Table) records(ctx *sql.Context) (uint64, error) {
	if t.snapshot == 0 {
		return 0, nil
	}
	if t.snapshot == t.ds.CurrentSnapshotID {
		return uint64(t.ds.CurrentRecords), nil
	}
	files, _, err := t.liveFiles(ctx)
	if err != nil {
		return 0, err
	}
	_, n, _ := manifest.Summary(files)
	return uint64(n), nil
}

// GetTableStats implements sql.StatsProvider: one statistic per column.
func (p *StatsProvider) GetTableStats(ctx *sql.Context, db string, table sql.Table) ([]sql.Statistic, error) {
	t, ok := lakeTable(table)
	if !ok || t.snapshot == 0 {
		return nil, nil
	}
	files, _, err := t.liveFiles(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	an, ok := p.ndv[statsKey(db, t.Name())]
	p.mu.Unlock()
	if ok && (an.uuid != t.ds.UUID || an.snapshot != t.snapshot) {
		an = analyzed{} // stale: the table changed since ANALYZE
	}
	created := an.at
	if created.IsZero() {
		created = time.Now()
	}
	out := make([]sql.Statistic, 0, len(t.schema.Columns))
	for i, col := range t.schema.Columns {
		cs := summarise(files, col)
		distinct := an.distinct[col.ID]
		if distinct == 0 {
			distinct = cs.distinctBound()
		}
		var lower sql.Row
		if cs.min != nil {
			lower = sql.Row{boundJSON(col.Type, cs.minRaw)}
		}
		var sqlType sql.Type
		if i < len(t.full) {
			sqlType = t.full[i].Type
		}
		qual := sql.NewStatQualifier(db, "", t.Name(), col.Name)
		st := stats.NewStatistic(cs.rows, distinct, cs.nulls, cs.avgSize(), created, qual,
			[]string{strings.ToLower(col.Name)}, []sql.Type{sqlType}, cs.histogram(col.Type, distinct), sql.IndexClassDefault, lower)
		out = append(out, st)
	}
	return out, nil
}

// AnalyzeTable implements sql.StatsProvider: it reads the table once and
// estimates every column's distinct count. The rest of the statistics
// need no reading: they come from the manifest each time they are asked
// for.
func (p *StatsProvider) AnalyzeTable(ctx *sql.Context, table sql.Table, db string) error {
	t, ok := lakeTable(table)
	if !ok {
		return fmt.Errorf("%w: ANALYZE TABLE %s: not a lakesql table", catalogstore.ErrNotSupported, table.Name())
	}
	// Read the snapshot as stored, every column, without the session's
	// staged writes: statistics describe committed data.
	all := &Table{db: t.db, ds: t.ds, schema: t.schema, snapshot: t.snapshot, asOf: true, full: t.full}
	sketches := make([]*kmv, len(t.schema.Columns))
	seed := maphash.MakeSeed()
	for i := range sketches {
		sketches[i] = newKMV(seed)
	}
	if t.snapshot != 0 {
		it, err := all.rowsWith(ctx, all.fieldIDs(), staged{}, 0)
		if err != nil {
			return err
		}
		for {
			row, err := it.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				it.Close(ctx)
				return err
			}
			for i, v := range row {
				if i < len(sketches) && v != nil {
					sketches[i].add(v)
				}
			}
		}
		if err := it.Close(ctx); err != nil {
			return err
		}
	}
	an := analyzed{uuid: t.ds.UUID, snapshot: t.snapshot, distinct: map[int]uint64{}, at: time.Now()}
	for i, col := range t.schema.Columns {
		an.distinct[col.ID] = sketches[i].estimate()
	}
	p.mu.Lock()
	p.ndv[statsKey(db, t.Name())] = an
	p.mu.Unlock()
	return nil
}

// SetStats implements sql.StatsProvider. Statistics derive from the
// manifest and ANALYZE TABLE; they cannot be set by hand.
func (p *StatsProvider) SetStats(*sql.Context, sql.Statistic) error {
	return sqlerr.Wrap(fmt.Errorf("%w: lakesql statistics come from the manifest and ANALYZE TABLE; they cannot be set", catalogstore.ErrNotSupported))
}

// GetStats implements sql.StatsProvider. GMS asks it for index
// statistics; lakesql tables have no indexes.
func (p *StatsProvider) GetStats(*sql.Context, sql.StatQualifier, []string) (sql.Statistic, bool) {
	return nil, false
}

// DropStats implements sql.StatsProvider: it forgets ANALYZE TABLE's
// distinct counts of the qualified table.
func (p *StatsProvider) DropStats(_ *sql.Context, qual sql.StatQualifier, _ []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.ndv, statsKey(qual.Database, qual.Tab))
	return nil
}

// DropDbStats implements sql.StatsProvider: it forgets ANALYZE TABLE's
// distinct counts of every table of db.
func (p *StatsProvider) DropDbStats(_ *sql.Context, db string, _ bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	prefix := strings.ToLower(db) + "."
	for k := range p.ndv {
		if strings.HasPrefix(k, prefix) {
			delete(p.ndv, k)
		}
	}
	return nil
}

// colSummary is one column's statistics over a snapshot's files.
type colSummary struct {
	rows, nulls, bytes uint64
	min, max           any    // decoded bounds (datafile.DecodeBound), nil if unknown
	minRaw             []byte // the encoded min, for display
	// files are the per-file buckets, nil when any file lacks exact
	// bounds.
	files []fileBucket
}

type fileBucket struct {
	rows, nulls  uint64
	lower, upper any
	upperRaw     []byte
}

// summarise totals col's manifest stats over files, each file's read by
// DataFile.ColumnStatsAt, the one reading of per-file column stats.
func summarise(files []manifest.DataFile, col schema.Column) colSummary {
	var cs colSummary
	complete := true
	j := -1 // col's position in the last file: files of a table agree
	for i := range files {
		f := &files[i]
		cs.rows += uint64(f.RecordCount)
		j = f.FieldIndex(col.ID, j)
		st, ok := f.ColumnStatsAt(j)
		if st.Missing {
			if ok {
				cs.nulls += uint64(f.RecordCount) // a column added later: all NULL
			} else {
				complete = false
			}
			continue
		}
		if !ok { // pending or failed stats say nothing
			complete = false
			continue
		}
		if st.Nulls >= 0 {
			cs.nulls += uint64(st.Nulls)
		}
		if j < len(f.ColumnSizes) && f.ColumnSizes[j] > 0 {
			cs.bytes += uint64(f.ColumnSizes[j])
		}
		if st.Lower == nil || st.Upper == nil || !st.Exact {
			complete = false
			continue
		}
		lo, err1 := datafile.DecodeBound(col.Type, st.Lower)
		hi, err2 := datafile.DecodeBound(col.Type, st.Upper)
		if err1 != nil || err2 != nil {
			complete = false
			continue
		}
		if cs.min == nil || datafile.CompareBounds(lo, cs.min) < 0 {
			cs.min, cs.minRaw = lo, st.Lower
		}
		if cs.max == nil || datafile.CompareBounds(hi, cs.max) > 0 {
			cs.max = hi
		}
		cs.files = append(cs.files, fileBucket{rows: uint64(f.RecordCount), nulls: uint64(max(st.Nulls, 0)), lower: lo, upper: hi, upperRaw: st.Upper})
	}
	if !complete {
		cs.files = nil
	}
	return cs
}

func (cs colSummary) avgSize() uint64 {
	if cs.rows == 0 {
		return 0
	}
	return cs.bytes / cs.rows
}

// distinctBound is the distinct count the bounds imply without reading
// data: for integer and date domains max - min + 1, capped by the non-null
// rows; 0 (unknown) otherwise.
func (cs colSummary) distinctBound() uint64 {
	nonNull := cs.rows - min(cs.nulls, cs.rows)
	lo, ok1 := cs.min.(int64)
	hi, ok2 := cs.max.(int64)
	if l32, ok := cs.min.(int32); ok {
		lo, ok1 = int64(l32), true
	}
	if h32, ok := cs.max.(int32); ok {
		hi, ok2 = int64(h32), true
	}
	if !ok1 || !ok2 || hi < lo {
		return 0
	}
	span := uint64(hi-lo) + 1
	if span == 0 { // the whole int64 range
		return nonNull
	}
	return min(span, nonNull)
}

// histogram is one bucket per data file, ordered by upper bound, when the
// files' ranges do not overlap (each bucket's upper bound is then the
// boundary GMS expects); nil otherwise. The distinct count is spread over
// the buckets by their rows.
func (cs colSummary) histogram(t schema.Type, distinct uint64) sql.Histogram {
	if len(cs.files) == 0 {
		return nil
	}
	fs := slices.Clone(cs.files)
	slices.SortFunc(fs, func(a, b fileBucket) int { return datafile.CompareBounds(a.upper, b.upper) })
	for i := 1; i < len(fs); i++ {
		if datafile.CompareBounds(fs[i].lower, fs[i-1].upper) <= 0 {
			return nil
		}
	}
	h := make(sql.Histogram, len(fs))
	for i, f := range fs {
		var d uint64
		if cs.rows > 0 {
			d = max(1, distinct*f.rows/cs.rows)
		}
		h[i] = stats.NewHistogramBucket(f.rows, d, f.nulls, 1, sql.Row{boundJSON(t, f.upperRaw)}, nil, nil)
	}
	return h
}
