package iceberg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/hamba/avro/v2/ocf"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// TestExport_AppendReadsOnlyAddedEntries exports after each commit of a
// history mixing appends with a delete and an overwrite. An export of an
// append decodes only the entries the append added (the general path
// decodes both snapshots' whole manifests); every snapshot's manifest
// list, manifests and the final metadata are what the general path writes
// when it exports the same history from scratch. It runs with a
// consolidated manifest per commit and over delta chains.
func TestExport_AppendReadsOnlyAddedEntries(t *testing.T) {
	for name, pol := range map[string]catalogstore.ChainPolicy{
		"consolidated": {Off: true},
		"deltas":       {MaxDeltas: 3, MaxPercent: 1 << 40},
	} {
		t.Run(name, func(t *testing.T) { testAppendReadsOnlyAddedEntries(t, pol) })
	}
}

func testAppendReadsOnlyAddedEntries(t *testing.T, pol catalogstore.ChainPolicy) {
	ctx := context.Background()
	cat, id := newTestCatalog(t, pol)
	deltas := 0
	ds, err := cat.Dataset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	file := func(i int) manifest.DataFile {
		return manifest.DataFile{
			Path: fmt.Sprintf("%s/data/%04d.parquet", ds.Location, i), Format: manifest.FormatParquet,
			RecordCount: int64(10 + i), FileSize: 4096, UncompressedSize: 8192, StatsState: manifest.StatsProvided,
			FieldIDs: []int{1, 2}, ValueCounts: []int64{10, 10}, NullCounts: []int64{0, 1}, NaNCounts: []int64{0, 0},
			LowerBounds: [][]byte{{byte(i), 0, 0, 0, 0, 0, 0, 0}, []byte("a")}, UpperBounds: [][]byte{{byte(i + 9), 0, 0, 0, 0, 0, 0, 0}, []byte("z")},
			BoundsExact: []bool{true, true}, ColumnSizes: []int64{80, 120},
		}
	}
	files := func(from, to int) []manifest.DataFile {
		var out []manifest.DataFile
		for i := from; i < to; i++ {
			out = append(out, file(i))
		}
		return out
	}
	paths := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, file(i).Path)
		}
		return out
	}
	for _, step := range []struct {
		name    string
		commit  catalogstore.Commit
		decoded int // entries the export after it decodes; -1: the general path's
	}{
		{"first append", catalogstore.Commit{Operation: catalogstore.OpAppend, Added: files(0, 5)}, -1},
		{"append 2", catalogstore.Commit{Operation: catalogstore.OpAppend, Added: files(5, 7)}, 2},
		{"delete one of the first", catalogstore.Commit{Operation: catalogstore.OpDelete, Removed: paths(1)}, -1},
		{"append 3", catalogstore.Commit{Operation: catalogstore.OpAppend, Added: files(7, 10)}, 3},
		{"overwrite all of append 2", catalogstore.Commit{Operation: catalogstore.OpOverwrite, Removed: paths(5, 6), Added: files(10, 11)}, -1},
		{"append 1", catalogstore.Commit{Operation: catalogstore.OpAppend, Added: files(11, 12)}, 1},
		{"add-files 2", catalogstore.Commit{Operation: catalogstore.OpAddFiles, Added: files(12, 14)}, 2},
	} {
		cm := step.commit
		cm.Author, cm.ExpectedUUID, cm.BaseSnapshotID = "t", ds.UUID, ds.CurrentSnapshotID
		snap, err := cat.Commit(ctx, id, cm)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if len(snap.ManifestDeltas) > 0 {
			deltas++
		}
		if ds, err = cat.Dataset(ctx, id); err != nil {
			t.Fatal(err)
		}
		x := newExport(cat, ds)
		if _, err := x.run(ctx); err != nil {
			t.Fatalf("export after %s: %v", step.name, err)
		}
		if step.decoded >= 0 && x.decoded != step.decoded {
			t.Errorf("export after %s decoded %d manifest entries, want %d", step.name, x.decoded, step.decoded)
		}
		if step.decoded < 0 && x.decoded == 0 {
			t.Errorf("export after %s decoded no entries", step.name)
		}
	}
	if !pol.Off && deltas < 4 {
		t.Fatalf("only %d snapshots wrote deltas", deltas)
	}
	incremental := exportedState(t, cat, ds)

	// The same history exported from scratch, every snapshot by the
	// general path.
	dir := ds.Location + "/" + Dir + "/"
	infos, err := cat.Blob().List(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range infos {
		if err := cat.Blob().Delete(ctx, i.Key); err != nil {
			t.Fatal(err)
		}
	}
	x := newExport(cat, ds)
	x.fullDiff = true
	if _, err := x.run(ctx); err != nil {
		t.Fatal(err)
	}
	full := exportedState(t, cat, ds)
	if !reflect.DeepEqual(incremental, full) {
		for k := range full {
			if !reflect.DeepEqual(incremental[k], full[k]) {
				t.Errorf("%s differs:\nappend path  %v\ngeneral path %v", k, incremental[k], full[k])
			}
		}
		if len(full) != len(incremental) {
			t.Errorf("append path wrote %d lists and manifests, general path %d", len(incremental), len(full))
		}
	}
}

var manifestUUID = regexp.MustCompile(`(m-\d+-\d+-\d+)-[0-9a-f]{8}\.avro`)

// exportedState decodes what the current metadata.json references: the
// metadata itself (without its metadata log, which records the history of
// exports), each snapshot's manifest list and each manifest, with
// manifest names stripped of their random part.
func exportedState(t *testing.T, cat *catalogstore.Catalog, ds *catalogstore.Dataset) map[string]any {
	t.Helper()
	ctx := context.Background()
	x := newExport(cat, ds)
	_, md, err := x.current(ctx)
	if err != nil || md == nil {
		t.Fatalf("current metadata: %v", err)
	}
	md.MetadataLog = nil
	b, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{"metadata.json": string(b)}
	for _, s := range md.Snapshots {
		raw, err := cat.Blob().Get(ctx, x.listKey(s.SnapshotID))
		if err != nil {
			t.Fatal(err)
		}
		list, err := decodeManifestList(raw)
		if err != nil {
			t.Fatal(err)
		}
		for i := range list {
			key := list[i].Path[len(x.store.URI())+1:]
			name := manifestUUID.ReplaceAllString(filepath.Base(key), "$1")
			list[i].Path = name
			if _, seen := out[name]; !seen {
				out[name] = decodeManifest(t, cat, key)
			}
		}
		out[fmt.Sprintf("list of %d", s.SnapshotID)] = list
	}
	return out
}

// decodeManifest returns a manifest's header metadata and records.
func decodeManifest(t *testing.T, cat *catalogstore.Catalog, key string) string {
	t.Helper()
	raw, err := cat.Blob().Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := ocf.NewDecoder(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for dec.HasNext() {
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if err := dec.Error(); err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{}
	for k, v := range dec.Metadata() {
		if k != "avro.schema" {
			meta[k] = string(v)
		}
	}
	return fmt.Sprintf("%v %v", meta, recs)
}

func newTestCatalog(t *testing.T, pol catalogstore.ChainPolicy) (*catalogstore.Catalog, catalogstore.Ident) {
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
	cat := catalogstore.New(m, b, catalogstore.Options{Chain: pol})
	if _, err := cat.CreateWorkspace(ctx, "w", "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateCollection(ctx, "w", "c", "t", catalogstore.CreateCollectionOptions{}); err != nil {
		t.Fatal(err)
	}
	id := catalogstore.Ident{Workspace: "w", Collection: "c", Name: "t"}
	if _, err := cat.CreateDataset(ctx, id, schema.Schema{Columns: []schema.Column{
		{Name: "id", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
		{Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	}}, "t", catalogstore.CreateDatasetOptions{}); err != nil {
		t.Fatal(err)
	}
	return cat, id
}
