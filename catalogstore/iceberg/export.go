package iceberg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Table is the Iceberg table's root under a dataset's location, and Dir its
// metadata directory: the Hadoop-catalog layout (<table>/metadata/
// version-hint.text, v<N>.metadata.json) that Spark's Hadoop catalog,
// DuckDB's version guessing and icebird expect. Outside lakesql's own
// data/ and metadata/, orphan cleanup never touches it.
const (
	Table = "iceberg"
	Dir   = Table + "/metadata"
)

// Result is what Export did.
type Result struct {
	// MetadataLocation is the URI of the current metadata.json.
	MetadataLocation string
	// Version is its number (v{Version}.metadata.json, the content of
	// version-hint.text).
	Version int
	// Written reports whether this call wrote a new metadata.json (false:
	// the existing one already described the dataset's state).
	Written bool
	// ManifestLists counts the snapshots whose manifest list this call
	// wrote.
	ManifestLists int
}

// Export makes ds's Iceberg metadata current and returns where it is. It
// writes what is missing, oldest snapshot first: each live snapshot's
// manifest list and manifests (immutable once written), then, if the
// table's state differs from the current metadata.json, a new
// v{N+1}.metadata.json and last version-hint.text. A reader following
// version-hint.text therefore only ever finds complete metadata.
//
// A dataset with a column Iceberg has no type for is refused with
// ErrNoIcebergType before anything is written. Other errors: the
// catalog's (an unreadable manifest), ErrBadMetadata, the object store's.
// Export is safe for concurrent use: concurrent exports of one dataset
// write create-only objects and the loser of a race on a version re-reads.
func Export(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset) (*Result, error) {
	res, err := newExport(cat, ds).run(ctx)
	if err != nil {
		return nil, fmt.Errorf("iceberg export of %s: %w", ds.Ident().Short(), err)
	}
	return res, nil
}

func newExport(cat *catalogstore.Catalog, ds *catalogstore.Dataset) *export {
	return &export{cat: cat, store: cat.Blob(), ds: ds, dir: ds.Location + "/" + Dir}
}

// export is the state of one Export call.
type export struct {
	cat        *catalogstore.Catalog
	store      blob.Store
	ds         *catalogstore.Dataset
	dir        string
	schemas    map[int]*schema.Schema
	iceSchemas map[int]icebergSchema
	specs      map[int]partition.Spec
	types      map[int]schema.Type // field id -> type, newest schema first
	// fullDiff makes every snapshot take the general path (tests compare
	// it with the append path).
	fullDiff bool
	// decoded counts the lakesql manifest entries this export decoded.
	decoded int
}

func (x *export) uri(key string) string { return x.store.URI() + "/" + key }

func (x *export) run(ctx context.Context) (*Result, error) {
	recs, err := x.cat.SnapshotRecords(ctx, x.ds)
	if err != nil {
		return nil, err
	}
	var live []catalogstore.Snapshot
	for _, r := range recs {
		if !r.Expired {
			live = append(live, r.Snapshot)
		}
	}
	if err := x.loadSchemas(ctx, live); err != nil {
		return nil, err
	}
	// Snapshots the current metadata.json lists have their manifest lists
	// (it is written after them): no need to look.
	_, prev, err := x.current(ctx)
	if err != nil {
		return nil, err
	}
	exported := map[int64]bool{}
	if prev != nil {
		for _, s := range prev.Snapshots {
			exported[s.SnapshotID] = true
		}
	}
	// Manifest lists, oldest first, each from its parent's.
	written := 0
	states := map[int64]*listState{}
	for i := range live {
		snap := &live[i]
		if exported[snap.ID] {
			continue
		}
		if _, err := x.store.Stat(ctx, x.listKey(snap.ID)); err == nil {
			continue
		} else if !errors.Is(err, blob.ErrNotFound) {
			return nil, err
		}
		parent, err := x.parentState(ctx, snap, states)
		if err != nil {
			return nil, err
		}
		st, err := x.exportSnapshot(ctx, snap, parent)
		if err != nil {
			return nil, err
		}
		states[snap.ID] = st
		written++
	}
	tags, err := x.cat.Tags(ctx, x.ds)
	if err != nil {
		return nil, err
	}
	md := x.metadata(live, tags)
	res, err := x.publish(ctx, md)
	if err != nil {
		return nil, err
	}
	res.ManifestLists = written
	return res, nil
}

// exportSnapshot writes snap's manifest list: from the files the snapshot
// added alone when it is an append to an exported parent, else by
// comparing its live files with the parent's.
func (x *export) exportSnapshot(ctx context.Context, snap *catalogstore.Snapshot, parent *listState) (*listState, error) {
	if !x.fullDiff && parent != nil {
		st, ok, err := x.writeAppendList(ctx, snap, parent)
		if err != nil || ok {
			return st, err
		}
	}
	files, err := x.snapFiles(ctx, snap.ID)
	if err != nil {
		return nil, err
	}
	return x.writeList(ctx, snap, files, parent)
}

// snapFiles reads all live files of snapshot id.
func (x *export) snapFiles(ctx context.Context, id int64) ([]manifest.DataFile, error) {
	files, _, err := x.cat.Files(ctx, x.ds, id)
	x.decoded += len(files)
	return files, err
}

// liveFiles returns st's live files, reading them on first use (the
// append path never needs them).
func (x *export) liveFiles(ctx context.Context, st *listState) ([]manifest.DataFile, error) {
	if !st.loaded {
		files, err := x.snapFiles(ctx, st.snapID)
		if err != nil {
			return nil, err
		}
		st.files, st.loaded = files, true
	}
	return st.files, nil
}

// parentState returns the parent's manifest list when the parent is
// exported, else nil (its manifests are then not reused).
func (x *export) parentState(ctx context.Context, snap *catalogstore.Snapshot, states map[int64]*listState) (*listState, error) {
	if snap.ParentID == 0 {
		return nil, nil
	}
	if st, ok := states[snap.ParentID]; ok {
		return st, nil
	}
	parent, err := x.cat.LiveSnapshot(ctx, x.ds, snap.ParentID)
	if errors.Is(err, catalogstore.ErrSnapshotNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if _, err := x.store.Stat(ctx, x.listKey(parent.ID)); errors.Is(err, blob.ErrNotFound) {
		return nil, nil
	}
	st, err := x.readList(ctx, parent)
	if err != nil {
		return nil, err
	}
	states[parent.ID] = st
	return st, nil
}

// loadSchemas loads and converts the current schema and those of the live
// snapshots, and the dataset's partition specs, refusing any type Iceberg
// lacks before anything is written.
func (x *export) loadSchemas(ctx context.Context, live []catalogstore.Snapshot) error {
	x.schemas = map[int]*schema.Schema{x.ds.Schema.ID: &x.ds.Schema}
	for _, s := range live {
		if _, ok := x.schemas[s.SchemaID]; ok {
			continue
		}
		sch, err := x.cat.SchemaByID(ctx, x.ds, s.SchemaID)
		if err != nil {
			return err
		}
		x.schemas[s.SchemaID] = sch
	}
	x.iceSchemas = map[int]icebergSchema{}
	x.types = map[int]schema.Type{}
	ids := make([]int, 0, len(x.schemas))
	for id := range x.schemas {
		ids = append(ids, id)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ids)))
	for _, id := range ids {
		is, err := convertSchema(x.schemas[id])
		if err != nil {
			return err
		}
		x.iceSchemas[id] = is
		for _, c := range x.schemas[id].Columns {
			if _, ok := x.types[c.ID]; !ok {
				x.types[c.ID] = c.Type
			}
		}
	}
	// The current schema's types win over older ones (newest id first
	// above); make that explicit for a current schema with a lower id.
	for _, c := range x.ds.Schema.Columns {
		x.types[c.ID] = c.Type
	}
	x.specs = map[int]partition.Spec{}
	for _, p := range append(append([]partition.Spec(nil), x.ds.Specs...), x.ds.Spec) {
		x.specs[p.ID] = p
		if _, err := specFields(p, x.sourceSchema(p)); err != nil {
			return err
		}
	}
	return nil
}

// sourceSchema is a schema holding every source column of spec p: the
// current one, or, for a spec over a column since dropped, a schema made
// of the newest definition of each field id.
func (x *export) sourceSchema(p partition.Spec) *schema.Schema {
	cur := &x.ds.Schema
	for _, f := range p.Fields {
		if _, ok := cur.ByID(f.SourceID); !ok {
			s := &schema.Schema{ID: cur.ID}
			for id, t := range x.types {
				s.Columns = append(s.Columns, schema.Column{ID: id, Name: strconv.Itoa(id), Type: t})
			}
			return s
		}
	}
	return cur
}

// metadata builds the table metadata for the live snapshots and tags.
func (x *export) metadata(live []catalogstore.Snapshot, tags []catalogstore.Tag) *metadata {
	ds := x.ds
	md := &metadata{
		FormatVersion: 2, TableUUID: ds.UUID, Location: x.uri(ds.Location + "/" + Table),
		LastSequenceNumber: ds.LastSequenceNumber,
		LastUpdatedMS:      ds.UpdatedAt.UnixMilli(),
		CurrentSchemaID:    ds.Schema.ID,
		DefaultSpecID:      ds.Spec.ID,
		LastPartitionID:    partition.FirstFieldID - 1,
		SortOrders:         []sortOrder{{OrderID: 0, Fields: []any{}}},
		CurrentSnapshotID:  -1,
		Snapshots:          []snapshotJSON{},
		SnapshotLog:        []snapshotLogEntry{},
		MetadataLog:        []metadataLogEntry{},
		Refs:               map[string]ref{},
		Properties: map[string]string{
			"lakesql.dataset":             ds.Ident().String(),
			"schema.name-mapping.default": x.nameMapping(),
		},
	}
	for k, v := range ds.Properties {
		md.Properties["lakesql.property."+k] = v
	}
	ids := make([]int, 0, len(x.iceSchemas))
	for id := range x.iceSchemas {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		md.Schemas = append(md.Schemas, x.iceSchemas[id])
	}
	md.LastColumnID = max(ds.NextFieldID-1, 0)
	for id := range x.types {
		md.LastColumnID = max(md.LastColumnID, id)
	}
	specIDs := make([]int, 0, len(x.specs))
	for id := range x.specs {
		specIDs = append(specIDs, id)
	}
	sort.Ints(specIDs)
	for _, id := range specIDs {
		md.PartitionSpecs = append(md.PartitionSpecs, convertSpec(x.specs[id]))
		for _, f := range x.specs[id].Fields {
			md.LastPartitionID = max(md.LastPartitionID, f.FieldID)
		}
	}
	liveIDs := map[int64]*catalogstore.Snapshot{}
	for i := range live {
		s := &live[i]
		liveIDs[s.ID] = s
		sj := snapshotJSON{
			SnapshotID: s.ID, SequenceNumber: s.SequenceNumber, TimestampMS: s.Timestamp.UnixMilli(),
			ManifestList: x.uri(x.listKey(s.ID)), Summary: summary(s), SchemaID: s.SchemaID,
		}
		if s.ParentID != 0 {
			p := s.ParentID
			sj.ParentSnapshotID = &p
		}
		md.Snapshots = append(md.Snapshots, sj)
		md.LastUpdatedMS = max(md.LastUpdatedMS, sj.TimestampMS)
	}
	if cur, ok := liveIDs[ds.CurrentSnapshotID]; ok {
		md.CurrentSnapshotID = cur.ID
		md.Refs[catalogstore.MainBranch] = ref{SnapshotID: cur.ID, Type: "branch"}
		// The log is the head's chain of live ancestors, oldest first.
		for s := cur; s != nil; s = liveIDs[s.ParentID] {
			md.SnapshotLog = append(md.SnapshotLog, snapshotLogEntry{TimestampMS: s.Timestamp.UnixMilli(), SnapshotID: s.ID})
		}
		for i, j := 0, len(md.SnapshotLog)-1; i < j; i, j = i+1, j-1 {
			md.SnapshotLog[i], md.SnapshotLog[j] = md.SnapshotLog[j], md.SnapshotLog[i]
		}
	}
	for _, t := range tags {
		if _, ok := liveIDs[t.SnapshotID]; ok && t.Name != catalogstore.MainBranch {
			md.Refs[t.Name] = ref{SnapshotID: t.SnapshotID, Type: "tag"}
		}
	}
	return md
}

// nameMapping is Iceberg's default name mapping: every name a field id has
// had, so files registered without Parquet field ids (add_files) are read
// by column name.
func (x *export) nameMapping() string {
	names := map[int][]string{}
	ids := make([]int, 0, len(x.schemas))
	for id := range x.schemas {
		ids = append(ids, id)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ids)))
	var order []int
	for _, sid := range ids {
		for _, c := range x.schemas[sid].Columns {
			if _, seen := names[c.ID]; !seen {
				order = append(order, c.ID)
			}
			if !contains(names[c.ID], c.Name) {
				names[c.ID] = append(names[c.ID], c.Name)
			}
		}
	}
	sort.Ints(order)
	type mapped struct {
		FieldID int      `json:"field-id"`
		Names   []string `json:"names"`
	}
	out := make([]mapped, 0, len(order))
	for _, id := range order {
		out = append(out, mapped{id, names[id]})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (x *export) metadataKey(v int) string {
	return fmt.Sprintf("%s/v%d.metadata.json", x.dir, v)
}

func (x *export) hintKey() string { return x.dir + "/version-hint.text" }

// publish writes md as the next version unless the current version
// already describes the same state, then points version-hint.text at it.
func (x *export) publish(ctx context.Context, md *metadata) (*Result, error) {
	for attempt := 0; ; attempt++ {
		v, prev, err := x.current(ctx)
		if err != nil {
			return nil, err
		}
		if prev != nil && sameState(prev, md) {
			if err := x.writeHint(ctx, v); err != nil {
				return nil, err
			}
			return &Result{MetadataLocation: x.uri(x.metadataKey(v)), Version: v}, nil
		}
		next := *md
		if prev != nil {
			next.MetadataLog = append(append([]metadataLogEntry{}, prev.MetadataLog...),
				metadataLogEntry{TimestampMS: prev.LastUpdatedMS, MetadataFile: x.uri(x.metadataKey(v))})
			next.LastUpdatedMS = max(next.LastUpdatedMS, prev.LastUpdatedMS)
		}
		b, err := json.MarshalIndent(&next, "", "  ")
		if err != nil {
			return nil, err
		}
		key := x.metadataKey(v + 1)
		err = x.store.Put(ctx, key, bytes.NewReader(b), blob.PutOptions{IfNotExists: true})
		if errors.Is(err, blob.ErrExists) && attempt < 5 {
			continue // another exporter published v+1: compare with it
		}
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", key, err)
		}
		if err := x.writeHint(ctx, v+1); err != nil {
			return nil, err
		}
		return &Result{MetadataLocation: x.uri(key), Version: v + 1, Written: true}, nil
	}
}

// current finds the newest metadata version: version-hint.text's, or a
// later one a crashed or concurrent exporter wrote before moving the hint.
// 0 and nil when none exists.
func (x *export) current(ctx context.Context) (int, *metadata, error) {
	v := 0
	b, err := x.store.Get(ctx, x.hintKey())
	switch {
	case err == nil:
		v, err = strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || v < 1 {
			return 0, nil, fmt.Errorf("%w: %s holds %q", ErrBadMetadata, x.hintKey(), b)
		}
	case !errors.Is(err, blob.ErrNotFound):
		return 0, nil, err
	}
	for {
		if _, err := x.store.Stat(ctx, x.metadataKey(v+1)); errors.Is(err, blob.ErrNotFound) {
			break
		} else if err != nil {
			return 0, nil, err
		}
		v++
	}
	if v == 0 {
		return 0, nil, nil
	}
	raw, err := x.store.Get(ctx, x.metadataKey(v))
	if err != nil {
		return 0, nil, fmt.Errorf("read %s: %w", x.metadataKey(v), err)
	}
	var md metadata
	if err := json.Unmarshal(raw, &md); err != nil {
		return 0, nil, fmt.Errorf("%w: %s: %v", ErrBadMetadata, x.metadataKey(v), err)
	}
	return v, &md, nil
}

// writeHint points version-hint.text at version v (after v's metadata.json
// exists), unless it already does.
func (x *export) writeHint(ctx context.Context, v int) error {
	want := strconv.Itoa(v)
	if b, err := x.store.Get(ctx, x.hintKey()); err == nil && strings.TrimSpace(string(b)) == want {
		return nil
	}
	if err := x.store.Put(ctx, x.hintKey(), strings.NewReader(want), blob.PutOptions{}); err != nil {
		return fmt.Errorf("write %s: %w", x.hintKey(), err)
	}
	return nil
}

// ReadMetadata returns the text of version v of ds's metadata.json, as
// Export returned it. blob.ErrNotFound if there is no such version.
func ReadMetadata(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, v int) ([]byte, error) {
	x := &export{store: cat.Blob(), ds: ds, dir: ds.Location + "/" + Dir}
	b, err := x.store.Get(ctx, x.metadataKey(v))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", x.metadataKey(v), err)
	}
	return b, nil
}
