package provider

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/sqlerr"
)

// Metadata tables: `t$snapshots`, `t$history`, `t$files`, `t$manifests`,
// `t$partitions`, `t$refs`, `t$properties` and `t$offsets` describe dataset
// t from its documents and manifests (never from data files). They are
// read-only GMS tables, hidden from SHOW TABLES (GetTableNames lists
// datasets only), and take filters, joins and (the snapshot-scoped ones)
// AS OF: `t$files` AS OF 3 lists snapshot 3's files.

// metaKind describes one kind of metadata table.
type metaKind struct {
	cols []*sql.Column
	// asOf: the table describes one snapshot, so AS OF selects which.
	asOf bool
	rows func(ctx *sql.Context, m *metaTable) ([]sql.Row, error)
}

func col(name string, t sql.Type, nullable bool) *sql.Column {
	return &sql.Column{Name: name, Type: t, Nullable: nullable}
}

var (
	tText     = types.LongText
	tBigint   = types.Int64
	tInt      = types.Int32
	tBool     = types.Boolean
	tDatetime = types.DatetimeMaxPrecision
	tJSON     = types.JSON
)

var metaKinds = map[string]*metaKind{
	"snapshots": {asOf: true, rows: snapshotRows, cols: []*sql.Column{
		col("snapshot_id", tBigint, false), col("parent_id", tBigint, true), col("sequence_number", tBigint, false),
		col("committed_at", tDatetime, false), col("author", tText, false), col("message", tText, true),
		col("operation", tText, false), col("user_created", tBool, false), col("schema_id", tInt, false),
		col("spec_id", tInt, false), col("manifest_path", tText, false),
		col("added_files", tBigint, false), col("deleted_files", tBigint, false), col("total_files", tBigint, false),
		col("added_records", tBigint, false), col("deleted_records", tBigint, false), col("total_records", tBigint, false),
		col("total_bytes", tBigint, false), col("expired", tBool, false),
	}},
	"history": {asOf: true, rows: historyRows, cols: []*sql.Column{
		col("made_current_at", tDatetime, false), col("snapshot_id", tBigint, false),
		col("parent_id", tBigint, true), col("is_current_ancestor", tBool, false),
	}},
	"files": {asOf: true, rows: fileRows, cols: []*sql.Column{
		col("path", tText, false), col("format", tText, false), col("record_count", tBigint, false),
		col("file_size", tBigint, false), col("uncompressed_size", tBigint, false), col("spec_id", tInt, false),
		col("partition", tJSON, false), col("row_id_start", tBigint, false), col("added_snapshot_id", tBigint, false),
		col("sequence_number", tBigint, false), col("stats_state", tText, false), col("stats_error", tText, true),
		col("column_stats", tJSON, true),
	}},
	"manifests": {asOf: true, rows: manifestRows, cols: []*sql.Column{
		col("path", tText, false), col("length", tBigint, true), col("spec_id", tInt, false),
		col("snapshot_id", tBigint, false), col("added_files", tBigint, false), col("existing_files", tBigint, false),
		col("deleted_files", tBigint, false), col("added_records", tBigint, false), col("existing_records", tBigint, false),
		col("deleted_records", tBigint, false),
	}},
	"partitions": {asOf: true, rows: partitionRows, cols: []*sql.Column{
		col("partition", tJSON, false), col("spec_id", tInt, false), col("record_count", tBigint, false),
		col("file_count", tBigint, false), col("total_size", tBigint, false), col("last_updated_snapshot_id", tBigint, false),
	}},
	"refs": {rows: refRows, cols: []*sql.Column{
		col("name", tText, false), col("type", tText, false), col("snapshot_id", tBigint, true),
		col("author", tText, true), col("created_at", tDatetime, true),
	}},
	"properties": {rows: propertyRows, cols: []*sql.Column{
		col("key", tText, false), col("value", tText, true),
	}},
	"offsets": {rows: offsetRows, cols: []*sql.Column{
		col("consumer", tText, false), col("snapshot_id", tBigint, false), col("committed_at", tDatetime, false),
		col("author", tText, false), col("table_uuid", tText, false), col("snapshots_behind", tBigint, false),
	}},
}

func metaKindNames() string {
	names := make([]string, 0, len(metaKinds))
	for k := range metaKinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// metadataTable resolves `t$kind` (snapshots, history, files, ...). asOf
// is the AS OF value, if any. Metadata tables are hidden from SHOW TABLES.
func (d *Database) metadataTable(ctx *sql.Context, base, kind string, asOf any) (sql.Table, bool, error) {
	if strings.EqualFold(kind, "refreshes") && asOf == nil {
		ds, ok, err := d.dataset(ctx, base)
		if err != nil || !ok {
			return nil, false, err
		}
		t, err := d.NewRefreshesTable(ds)
		return t, err == nil, sqlerr.Wrap(err)
	}
	mk, ok := metaKinds[strings.ToLower(kind)]
	if !ok {
		return nil, false, sqlerr.Wrap(fmt.Errorf("%w: %s$%s is not a metadata table; the metadata tables of a table are %s",
			catalogstore.ErrDatasetNotFound, base, kind, metaKindNames()))
	}
	ds, ok, err := d.dataset(ctx, base)
	if err != nil || !ok {
		return nil, false, err
	}
	m := &metaTable{db: d, ds: ds, kind: strings.ToLower(kind), mk: mk, snap: ds.CurrentSnapshotID}
	if asOf != nil {
		if !mk.asOf {
			return nil, false, sqlerr.Wrap(fmt.Errorf("%w: `%s$%s` shows the current state and has no history; query it without AS OF",
				catalogstore.ErrNotSupported, ds.Name, m.kind))
		}
		snap, err := d.p.cat.ResolveSnapshotRef(ctx, ds, asOfValue(asOf))
		if err != nil {
			return nil, false, sqlerr.Wrap(err)
		}
		m.snap, m.asOf = snap.ID, true
	}
	m.full = make(sql.Schema, len(mk.cols))
	for i, c := range mk.cols {
		cc := *c
		cc.Source, cc.DatabaseSource = m.Name(), d.name
		m.full[i] = &cc
	}
	return m, true, nil
}

// metaTable is one metadata table of one dataset, at one snapshot.
type metaTable struct {
	db   *Database
	ds   *catalogstore.Dataset
	kind string
	mk   *metaKind
	snap int64 // the snapshot described: the head, or the AS OF one
	asOf bool
	full sql.Schema
	proj []string
}

var (
	_ sql.Table           = (*metaTable)(nil)
	_ sql.ProjectedTable  = (*metaTable)(nil)
	_ sql.PrimaryKeyTable = (*metaTable)(nil)
)

// Name implements sql.Nameable.
func (m *metaTable) Name() string { return m.ds.Name + "$" + m.kind }

// String implements fmt.Stringer.
func (m *metaTable) String() string { return m.db.name + "." + m.Name() }

// Collation implements sql.Table.
func (m *metaTable) Collation() sql.CollationID { return sql.Collation_Default }

// Schema implements sql.Table: the projected columns.
func (m *metaTable) Schema() sql.Schema {
	return projectedSchema(m.full, m.proj)
}

// PrimaryKeySchema implements sql.PrimaryKeyTable (no key).
func (m *metaTable) PrimaryKeySchema() sql.PrimaryKeySchema { return sql.NewPrimaryKeySchema(m.full) }

// WithProjections implements sql.ProjectedTable.
func (m *metaTable) WithProjections(cols []string) sql.Table {
	cp := *m
	cp.proj = cols
	return &cp
}

// Projections implements sql.ProjectedTable.
func (m *metaTable) Projections() []string { return m.proj }

// Partitions implements sql.Table: one partition.
func (m *metaTable) Partitions(*sql.Context) (sql.PartitionIter, error) {
	return sql.PartitionsToPartitionIter(scanPartition{}), nil
}

// PartitionRows implements sql.Table.
func (m *metaTable) PartitionRows(ctx *sql.Context, _ sql.Partition) (sql.RowIter, error) {
	rows, err := m.mk.rows(ctx, m)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	if m.proj != nil {
		idx := projectedIndexes(m.full, m.proj)
		for r, row := range rows {
			out := make(sql.Row, len(idx))
			for j, i := range idx {
				out[j] = row[i]
			}
			rows[r] = out
		}
	}
	return sql.RowsToRowIter(rows...), nil
}

func (m *metaTable) cat() *catalogstore.Catalog { return m.db.p.cat }

// ---- rows -------------------------------------------------------------

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// datetime is a committed time as DATETIME(6) shows it: UTC, µs.
func datetime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// records returns the snapshot records m describes: every one, or with AS
// OF the ancestors of that snapshot.
func (m *metaTable) records(ctx *sql.Context) ([]catalogstore.SnapshotRecord, map[int64]bool, error) {
	recs, err := m.cat().SnapshotRecords(ctx, m.ds)
	if err != nil {
		return nil, nil, err
	}
	anc := catalogstore.Ancestors(recs, m.snap)
	if m.asOf {
		kept := recs[:0]
		for _, r := range recs {
			if anc[r.ID] {
				kept = append(kept, r)
			}
		}
		recs = kept
	}
	return recs, anc, nil
}

func snapshotRows(ctx *sql.Context, m *metaTable) ([]sql.Row, error) {
	recs, _, err := m.records(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(recs))
	for _, r := range recs {
		s := r.Summary
		rows = append(rows, sql.Row{
			r.ID, nullID(r.ParentID), r.SequenceNumber, datetime(r.Timestamp), r.Author, nullString(r.Message),
			string(r.Operation), r.UserCreated, int32(r.SchemaID), int32(r.SpecID), r.ManifestKey(),
			s.AddedFiles, s.DeletedFiles, s.TotalFiles, s.AddedRecords, s.DeletedRecords, s.TotalRecords,
			s.TotalBytes, r.Expired,
		})
	}
	return rows, nil
}

func historyRows(ctx *sql.Context, m *metaTable) ([]sql.Row, error) {
	recs, anc, err := m.records(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, sql.Row{datetime(r.Timestamp), r.ID, nullID(r.ParentID), anc[r.ID]})
	}
	return rows, nil
}

// files returns the live files of m's snapshot and the schema to name
// their columns by (that snapshot's).
func (m *metaTable) files(ctx *sql.Context) ([]manifest.DataFile, *catalogstore.Snapshot, *schema.Schema, error) {
	if m.snap == 0 {
		return nil, nil, nil, nil
	}
	files, snap, err := m.cat().Files(ctx, m.ds, m.snap)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := m.cat().SchemaByID(ctx, m.ds, snap.SchemaID)
	if err != nil {
		return nil, nil, nil, err
	}
	return files, snap, s, nil
}

func fileRows(ctx *sql.Context, m *metaTable) ([]sql.Row, error) {
	files, _, s, err := m.files(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(files))
	for i := range files {
		f := &files[i]
		var stats any
		if cs := columnStats(f, s, &m.ds.Schema); cs != nil {
			stats = types.JSONDocument{Val: cs}
		}
		rows = append(rows, sql.Row{
			f.Path, f.Format, f.RecordCount, f.FileSize, f.UncompressedSize, int32(f.SpecID),
			types.JSONDocument{Val: partitionValues(f, m.ds.Specs)}, f.RowIDStart, f.AddedSnapshotID,
			f.SequenceNumber, f.StatsState, nullString(f.StatsError), stats,
		})
	}
	return rows, nil
}

// partitionValues maps a file's partition field names to its values.
func partitionValues(f *manifest.DataFile, specs []partition.Spec) map[string]any {
	out := map[string]any{}
	var fields []partition.Field
	for _, sp := range specs {
		if sp.ID == f.SpecID {
			fields = sp.Fields
		}
	}
	for i, v := range f.PartitionValues {
		name := "field_" + strconv.Itoa(i)
		if i < len(fields) {
			name = fields[i].Name
		}
		if v == nil {
			out[name] = nil
		} else {
			out[name] = *v
		}
	}
	return out
}

// columnStats decodes a file's per-column statistics, keyed by column name
// (the schema's s, else the current one's; a dropped column without either
// shows as "#id"). nil when the file has no statistics (pending, failed).
func columnStats(f *manifest.DataFile, s, cur *schema.Schema) map[string]any {
	if len(f.FieldIDs) == 0 || (f.ValueCounts == nil && f.NullCounts == nil && f.LowerBounds == nil && f.UpperBounds == nil) {
		return nil
	}
	count := func(v []int64, i int) any {
		if v == nil || v[i] < 0 {
			return nil
		}
		return v[i]
	}
	out := make(map[string]any, len(f.FieldIDs))
	for i, id := range f.FieldIDs {
		c, ok := s.ByID(id)
		if !ok {
			c, ok = cur.ByID(id)
		}
		name := c.Name
		if !ok {
			name = "#" + strconv.Itoa(id)
		}
		st := map[string]any{
			"values": count(f.ValueCounts, i),
			"nulls":  count(f.NullCounts, i),
			"nans":   count(f.NaNCounts, i),
			"lower":  nil,
			"upper":  nil,
		}
		if ok && f.LowerBounds != nil {
			st["lower"] = boundJSON(c.Type, f.LowerBounds[i])
		}
		if ok && f.UpperBounds != nil {
			st["upper"] = boundJSON(c.Type, f.UpperBounds[i])
		}
		out[name] = st
	}
	return out
}

// boundJSON decodes an Iceberg single-value bound into a JSON value:
// numbers as numbers (decimals exactly), dates, times and timestamps as
// text the way the column shows them, binary as hex. nil when absent or
// undecodable.
func boundJSON(t schema.Type, b []byte) any {
	if b == nil {
		return nil
	}
	v, err := datafile.DecodeBound(t, b)
	if err != nil {
		return nil
	}
	switch t.Kind {
	case schema.Date:
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
		}
	case schema.Time:
		if us, ok := v.(int64); ok {
			return (time.Time{}).Add(time.Duration(us) * time.Microsecond).Format("15:04:05.999999")
		}
	case schema.Timestamp:
		if us, ok := v.(int64); ok {
			return time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.999999")
		}
	case schema.Binary:
		if bs, ok := v.([]byte); ok {
			return "0x" + hex.EncodeToString(bs)
		}
	case schema.Decimal:
		if n, ok := v.(*big.Int); ok {
			return decimal.NewFromBigInt(n, -int32(t.Scale))
		}
	case schema.Float32, schema.Float64:
		if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return v
}

// manifestRows describes the snapshot's manifest by the object its chain
// ends in (its own delta, or its base; `t$snapshots`.manifest_path names
// the same object), which identifies the snapshot's live list.
func manifestRows(ctx *sql.Context, m *metaTable) ([]sql.Row, error) {
	if m.snap == 0 {
		return nil, nil
	}
	snap, err := m.cat().Snapshot(ctx, m.ds, m.snap)
	if err != nil {
		return nil, err
	}
	var length any
	if info, err := m.cat().Blob().Stat(ctx, snap.ManifestKey()); err == nil {
		length = info.Size
	}
	s := snap.Summary
	return []sql.Row{{
		snap.ManifestKey(), length, int32(snap.SpecID), snap.ID,
		s.AddedFiles, s.TotalFiles - s.AddedFiles, s.DeletedFiles,
		s.AddedRecords, s.TotalRecords - s.AddedRecords, s.DeletedRecords,
	}}, nil
}

func partitionRows(ctx *sql.Context, m *metaTable) ([]sql.Row, error) {
	files, _, _, err := m.files(ctx)
	if err != nil {
		return nil, err
	}
	type group struct {
		values          map[string]any
		spec            int
		records, size   int64
		files, lastSnap int64
	}
	groups := map[string]*group{}
	for i := range files {
		f := &files[i]
		var key strings.Builder
		fmt.Fprintf(&key, "%08d", f.SpecID)
		for _, v := range f.PartitionValues {
			if v == nil {
				key.WriteString("|N")
			} else {
				fmt.Fprintf(&key, "|v%q", *v)
			}
		}
		g, ok := groups[key.String()]
		if !ok {
			g = &group{values: partitionValues(f, m.ds.Specs), spec: f.SpecID}
			groups[key.String()] = g
		}
		g.records += f.RecordCount
		g.size += f.FileSize
		g.files++
		g.lastSnap = max(g.lastSnap, f.AddedSnapshotID)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([]sql.Row, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		rows = append(rows, sql.Row{types.JSONDocument{Val: g.values}, int32(g.spec), g.records, g.files, g.size, g.lastSnap})
	}
	return rows, nil
}

func refRows(ctx *sql.Context, m *metaTable) ([]sql.Row, error) {
	tags, err := m.cat().Tags(ctx, m.ds)
	if err != nil {
		return nil, err
	}
	rows := []sql.Row{{catalogstore.MainBranch, "BRANCH", nullID(m.ds.CurrentSnapshotID), nil, nil}}
	for _, t := range tags {
		rows = append(rows, sql.Row{t.Name, "TAG", t.SnapshotID, t.Author, datetime(t.CreatedAt)})
	}
	return rows, nil
}

func propertyRows(_ *sql.Context, m *metaTable) ([]sql.Row, error) {
	ds := m.ds
	keys := make([]string, 0, len(ds.Properties))
	for k := range ds.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([]sql.Row, 0, len(keys)+8)
	for _, k := range keys {
		rows = append(rows, sql.Row{k, ds.Properties[k]})
	}
	// What the catalog knows of the table, under lakesql's own prefix so
	// it never collides with a user property.
	info := [][2]string{
		{"lakesql.table-uuid", ds.UUID},
		{"lakesql.location", ds.Location},
		{"lakesql.dataset-type", ds.Type},
		{"lakesql.current-snapshot-id", strconv.FormatInt(ds.CurrentSnapshotID, 10)},
		{"lakesql.schema-id", strconv.Itoa(ds.Schema.ID)},
		{"lakesql.spec-id", strconv.Itoa(ds.Spec.ID)},
		{"lakesql.next-field-id", strconv.Itoa(ds.NextFieldID)},
	}
	if ds.Comment != "" {
		info = append(info, [2]string{"lakesql.comment", ds.Comment})
	}
	if len(ds.SortOrder) > 0 {
		info = append(info, [2]string{"lakesql.sort-order", strings.Join(ds.SortOrder, ",")})
	}
	for _, kv := range info {
		rows = append(rows, sql.Row{kv[0], kv[1]})
	}
	return rows, nil
}

func offsetRows(ctx *sql.Context, m *metaTable) ([]sql.Row, error) {
	offs, err := m.cat().Offsets(ctx, m.ds)
	if err != nil {
		return nil, err
	}
	rows := make([]sql.Row, 0, len(offs))
	for _, o := range offs {
		rows = append(rows, sql.Row{o.Consumer, o.SnapshotID, datetime(o.CommittedAt), o.Author, o.TableUUID,
			max(0, m.ds.CurrentSnapshotID-o.SnapshotID)})
	}
	return rows, nil
}
