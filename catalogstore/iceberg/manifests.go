package iceberg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// A snapshot's manifests group its live files by the snapshot that added
// them and their partition spec. A group whose files (and their stats) are
// the same as in the parent snapshot reuses the parent's manifest as is:
// an append writes one manifest and a manifest list, whatever the table's
// size. A group that lost files is rewritten with its remaining files as
// EXISTING and the lost ones as DELETED (copy-on-write DELETE, UPDATE and
// compaction); a group that lost every file keeps only that DELETED
// manifest, in the snapshot that removed them.
type groupKey struct {
	added  int64 // snapshot that added the files
	specID int
}

// manifestName is a manifest's object name; it carries its group so the
// next snapshot can tell which manifest to reuse.
func manifestName(writer int64, g groupKey) string {
	return fmt.Sprintf("m-%d-%d-%d-%s.avro", writer, g.added, g.specID, uuid.NewString()[:8])
}

func parseManifestName(p string) (groupKey, bool) {
	var writer, added int64
	var spec int
	var rest string
	n, _ := fmt.Sscanf(path.Base(p), "m-%d-%d-%d-%s", &writer, &added, &spec, &rest)
	return groupKey{added, spec}, n == 4
}

// groupFiles groups files (by pointer: entries are large) by group, each
// group sorted by path.
func groupFiles(files []manifest.DataFile) map[groupKey][]*manifest.DataFile {
	out := map[groupKey][]*manifest.DataFile{}
	for i := range files {
		f := &files[i]
		g := groupKey{f.AddedSnapshotID, f.SpecID}
		out[g] = append(out[g], f)
	}
	for _, fs := range out {
		slices.SortFunc(fs, func(a, b *manifest.DataFile) int { return strings.Compare(a.Path, b.Path) })
	}
	return out
}

// listKey is the object key of snapshot id's manifest list.
func (x *export) listKey(id int64) string {
	return fmt.Sprintf("%s/snap-%d.avro", x.dir, id)
}

// writeList writes snapshot snap's manifest list (and the manifests it
// needs), reusing the parent's manifests for unchanged groups. parent is
// the parent's manifest list and live files, or nil when the parent is not
// exported (the first snapshot, or one whose parent expired).
func (x *export) writeList(ctx context.Context, snap *catalogstore.Snapshot, files []manifest.DataFile, parent *listState) (*listState, error) {
	cur := groupFiles(files)
	var prevGroups map[groupKey][]*manifest.DataFile
	prevManifests := map[groupKey]manifestFile{}
	if parent != nil {
		pfiles, err := x.liveFiles(ctx, parent)
		if err != nil {
			return nil, err
		}
		prevGroups = groupFiles(pfiles)
		for _, m := range parent.list {
			if g, ok := parseManifestName(m.Path); ok {
				prevManifests[g] = m
			}
		}
	}
	keys := make([]groupKey, 0, len(cur)+len(prevGroups))
	for g := range cur {
		keys = append(keys, g)
	}
	for g := range prevGroups {
		if _, ok := cur[g]; !ok {
			keys = append(keys, g)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].added != keys[j].added {
			return keys[i].added > keys[j].added
		}
		return keys[i].specID < keys[j].specID
	})
	var list []manifestFile
	for _, g := range keys {
		now, before := cur[g], prevGroups[g]
		if m, ok := prevManifests[g]; ok && len(now) > 0 && sameFiles(now, before) {
			list = append(list, m)
			continue
		}
		gone := removed(before, now)
		if len(now) == 0 && len(gone) == 0 {
			continue
		}
		m, err := x.writeManifest(ctx, snap, g, now, gone)
		if err != nil {
			return nil, err
		}
		list = append(list, m)
	}
	st, err := x.putList(ctx, snap, list)
	if err != nil {
		return nil, err
	}
	st.files, st.loaded = files, true
	return st, nil
}

// putList writes snap's manifest list, unless another exporter already
// did: its list is then as good as ours, and is returned instead.
func (x *export) putList(ctx context.Context, snap *catalogstore.Snapshot, list []manifestFile) (*listState, error) {
	meta := map[string]string{
		"snapshot-id":     strconv.FormatInt(snap.ID, 10),
		"sequence-number": strconv.FormatInt(snap.SequenceNumber, 10),
		"format-version":  "2",
	}
	if snap.ParentID != 0 {
		meta["parent-snapshot-id"] = strconv.FormatInt(snap.ParentID, 10)
	}
	b, err := encodeOCF(manifestListSchema(), meta, list)
	if err != nil {
		return nil, fmt.Errorf("manifest list of snapshot %d: %w", snap.ID, err)
	}
	key := x.listKey(snap.ID)
	err = x.store.Put(ctx, key, bytes.NewReader(b), blob.PutOptions{IfNotExists: true})
	if errors.Is(err, blob.ErrExists) {
		return x.readList(ctx, snap)
	}
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", key, err)
	}
	return &listState{snapID: snap.ID, list: list}, nil
}

// listState is an exported snapshot's manifest list with its live files,
// these read only when needed (loaded).
type listState struct {
	snapID int64
	list   []manifestFile
	files  []manifest.DataFile
	loaded bool
}

// readList reads an existing manifest list of snap.
func (x *export) readList(ctx context.Context, snap *catalogstore.Snapshot) (*listState, error) {
	key := x.listKey(snap.ID)
	b, err := x.store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	list, err := decodeManifestList(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadMetadata, key, err)
	}
	return &listState{snapID: snap.ID, list: list}, nil
}

// sameFiles reports whether two sorted groups list the same files with the
// same statistics (a statistics refresh changes stats, not paths).
func sameFiles(a, b []*manifest.DataFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameFile(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameFile compares what a manifest entry is made of.
func sameFile(a, b *manifest.DataFile) bool {
	eqBytes := func(x, y [][]byte) bool {
		return len(x) == len(y) && (x == nil) == (y == nil) && slices.EqualFunc(x, y, func(p, q []byte) bool {
			return (p == nil) == (q == nil) && bytes.Equal(p, q)
		})
	}
	eqStrs := func(x, y []*string) bool {
		return slices.EqualFunc(x, y, func(p, q *string) bool { return (p == nil) == (q == nil) && (p == nil || *p == *q) })
	}
	return a.Path == b.Path && a.RecordCount == b.RecordCount && a.FileSize == b.FileSize &&
		a.SpecID == b.SpecID && a.StatsState == b.StatsState && a.AddedSnapshotID == b.AddedSnapshotID &&
		a.SequenceNumber == b.SequenceNumber && len(a.PartitionValues) == len(b.PartitionValues) &&
		eqStrs(a.PartitionValues, b.PartitionValues) &&
		slices.Equal(a.FieldIDs, b.FieldIDs) && slices.Equal(a.ValueCounts, b.ValueCounts) &&
		slices.Equal(a.NullCounts, b.NullCounts) && slices.Equal(a.NaNCounts, b.NaNCounts) &&
		slices.Equal(a.ColumnSizes, b.ColumnSizes) && slices.Equal(a.BoundsExact, b.BoundsExact) &&
		eqBytes(a.LowerBounds, b.LowerBounds) && eqBytes(a.UpperBounds, b.UpperBounds)
}

// removed lists the files of before that are not in now.
func removed(before, now []*manifest.DataFile) []*manifest.DataFile {
	keep := make(map[string]bool, len(now))
	for _, f := range now {
		keep[f.Path] = true
	}
	var out []*manifest.DataFile
	for _, f := range before {
		if !keep[f.Path] {
			out = append(out, f)
		}
	}
	return out
}

// writeManifest writes one group's manifest for snapshot snap: live files
// (ADDED when snap added them, else EXISTING) and files snap removed
// (DELETED).
func (x *export) writeManifest(ctx context.Context, snap *catalogstore.Snapshot, g groupKey, live, gone []*manifest.DataFile) (manifestFile, error) {
	spec, ok := x.specs[g.specID]
	if !ok {
		return manifestFile{}, fmt.Errorf("%w: files of partition spec %d, which %s does not have", ErrBadMetadata, g.specID, x.ds.Ident().Short())
	}
	fields, err := specFields(spec, x.sourceSchema(spec))
	if err != nil {
		return manifestFile{}, err
	}
	pt := newPartitionType(fields)
	mf := manifestFile{SpecID: int32(g.specID), SequenceNumber: snap.SequenceNumber,
		MinSequenceNumber: snap.SequenceNumber, AddedSnapshotID: snap.ID}
	entries := make([]manifestEntry, 0, len(live)+len(gone))
	sums := make([]partitionSummary, len(fields))
	add := func(f *manifest.DataFile, status int32) error {
		e, vals, err := x.entry(f, fields, pt)
		if err != nil {
			return err
		}
		if status != statusDeleted {
			for i, v := range vals {
				sums[i].add(v)
			}
		}
		e.Status = status
		seq := f.SequenceNumber
		if seq == 0 {
			seq = f.AddedSnapshotID
		}
		snapID := f.AddedSnapshotID
		switch status {
		case statusAdded:
			mf.AddedFilesCount++
			mf.AddedRowsCount += f.RecordCount
		case statusExisting:
			mf.ExistingFilesCount++
			mf.ExistingRowsCount += f.RecordCount
		case statusDeleted:
			snapID = snap.ID
			mf.DeletedFilesCount++
			mf.DeletedRowsCount += f.RecordCount
		}
		if status != statusDeleted {
			mf.MinSequenceNumber = min(mf.MinSequenceNumber, seq)
		}
		e.SnapshotID, e.SequenceNumber, e.FileSequenceNumber = &snapID, &seq, &seq
		entries = append(entries, e)
		return nil
	}
	for _, f := range live {
		status := int32(statusExisting)
		if f.AddedSnapshotID == snap.ID {
			status = statusAdded
		}
		if err := add(f, status); err != nil {
			return manifestFile{}, err
		}
	}
	for _, f := range gone {
		if err := add(f, statusDeleted); err != nil {
			return manifestFile{}, err
		}
	}
	summaries := make([]fieldSummary, len(sums))
	for i := range sums {
		summaries[i] = sums[i].record()
	}
	mf.Partitions = &summaries
	sch := x.iceSchemas[snap.SchemaID]
	schemaJSON, err := json.Marshal(sch)
	if err != nil {
		return manifestFile{}, err
	}
	specFieldsJSON, err := json.Marshal(convertSpec(spec).Fields)
	if err != nil {
		return manifestFile{}, err
	}
	meta := map[string]string{
		"schema":            string(schemaJSON),
		"schema-id":         strconv.Itoa(sch.SchemaID),
		"partition-spec":    string(specFieldsJSON),
		"partition-spec-id": strconv.Itoa(g.specID),
		"format-version":    "2",
		"content":           "data",
	}
	b, err := encodeOCF(manifestSchema(pt.avro), meta, entries)
	if err != nil {
		return manifestFile{}, fmt.Errorf("manifest of snapshot %d: %w", snap.ID, err)
	}
	key := x.dir + "/" + manifestName(snap.ID, g)
	if err := x.store.Put(ctx, key, bytes.NewReader(b), blob.PutOptions{IfNotExists: true}); err != nil {
		return manifestFile{}, fmt.Errorf("write %s: %w", key, err)
	}
	mf.Path = x.uri(key)
	mf.Length = int64(len(b))
	return mf, nil
}

// entry converts one manifest entry's data file, and returns its partition
// values too. Column statistics are
// given only when lakesql collected them (stats state "provided"), only
// for columns the table's schemas know, and bounds only when exact.
func (x *export) entry(f *manifest.DataFile, fields []partitionField, pt partitionType) (manifestEntry, []any, error) {
	if len(f.PartitionValues) != len(fields) {
		return manifestEntry{}, nil, fmt.Errorf("%w: %s has %d partition values for spec %d's %d fields", ErrBadMetadata, f.Path, len(f.PartitionValues), f.SpecID, len(fields))
	}
	vals := make([]any, len(fields))
	for i, pf := range fields {
		v, err := pf.value(f.PartitionValues[i])
		if err != nil {
			return manifestEntry{}, nil, fmt.Errorf("%s: partition %q: %w", f.Path, pf.Name, err)
		}
		vals[i] = v
	}
	df := dataFile{
		FilePath: x.uri(f.Path), FileFormat: "PARQUET", Partition: pt.value(vals),
		RecordCount: f.RecordCount, FileSize: f.FileSize,
	}
	if f.StatsState == manifest.StatsProvided {
		var sizes, values, nulls, nans []kvLong
		var lower, upper []kvBytes
		for i, id := range f.FieldIDs {
			t, ok := x.types[id]
			if !ok {
				continue
			}
			k := int32(id)
			if f.ColumnSizes != nil && f.ColumnSizes[i] >= 0 {
				sizes = append(sizes, kvLong{k, f.ColumnSizes[i]})
			}
			if f.ValueCounts != nil && f.ValueCounts[i] >= 0 {
				values = append(values, kvLong{k, f.ValueCounts[i]})
			}
			if f.NullCounts != nil && f.NullCounts[i] >= 0 {
				nulls = append(nulls, kvLong{k, f.NullCounts[i]})
			}
			if f.NaNCounts != nil && f.NaNCounts[i] >= 0 && (t.Kind == schema.Float32 || t.Kind == schema.Float64) {
				nans = append(nans, kvLong{k, f.NaNCounts[i]})
			}
			if f.BoundsExact != nil && !f.BoundsExact[i] {
				continue
			}
			if f.LowerBounds != nil {
				if b := bound(t, f.LowerBounds[i], false); b != nil {
					lower = append(lower, kvBytes{k, b})
				}
			}
			if f.UpperBounds != nil {
				if b := bound(t, f.UpperBounds[i], true); b != nil {
					upper = append(upper, kvBytes{k, b})
				}
			}
		}
		df.ColumnSizes, df.ValueCounts, df.NullCounts, df.NaNCounts = &sizes, &values, &nulls, &nans
		df.LowerBounds, df.UpperBounds = &lower, &upper
	}
	return manifestEntry{DataFile: df}, vals, nil
}
