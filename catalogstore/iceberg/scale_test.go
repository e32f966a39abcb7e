package iceberg_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/iceberg"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// scaleFiles is the size of the scale test's table; LAKESQL_ICEBERG_SCALE
// raises it (the target is 100,000 files exported in 10 s cold).
func scaleFiles(t *testing.T) int {
	if s := os.Getenv("LAKESQL_ICEBERG_SCALE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return 5000
}

// TestExport_Scale: a table of many files (registered, not written: the
// export never opens data files) exports cold, then an append of one file
// exports incrementally, writing one manifest whatever the table's size.
func TestExport_Scale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := sqlite.Open(ctx, filepath.Join(dir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	b, err := local.Open(filepath.Join(dir, "lake"))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalogstore.New(m, b, catalogstore.Options{})
	if _, err := cat.CreateWorkspace(ctx, "w", "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateCollection(ctx, "w", "c", "t", catalogstore.CreateCollectionOptions{}); err != nil {
		t.Fatal(err)
	}
	id := catalogstore.Ident{Workspace: "w", Collection: "c", Name: "t"}
	ds, err := cat.CreateDataset(ctx, id, schema.Schema{Columns: []schema.Column{
		{Name: "id", Type: schema.Type{Kind: schema.Int64}, Nullable: true},
		{Name: "s", Type: schema.Type{Kind: schema.String}, Nullable: true},
	}}, "t", catalogstore.CreateDatasetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := scaleFiles(t)
	files := make([]manifest.DataFile, n)
	for i := range files {
		files[i] = fakeFile(ds, i)
	}
	if _, err := cat.Commit(ctx, id, catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "t", Added: files, ExpectedUUID: ds.UUID}); err != nil {
		t.Fatal(err)
	}
	ds, _ = cat.Dataset(ctx, id)
	start := time.Now()
	res, err := iceberg.Export(ctx, cat, ds)
	if err != nil {
		t.Fatal(err)
	}
	cold := time.Since(start)
	if _, err := cat.Commit(ctx, id, catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "t",
		Added: []manifest.DataFile{fakeFile(ds, n)}, ExpectedUUID: ds.UUID, BaseSnapshotID: ds.CurrentSnapshotID}); err != nil {
		t.Fatal(err)
	}
	ds, _ = cat.Dataset(ctx, id)
	start = time.Now()
	res2, err := iceberg.Export(ctx, cat, ds)
	if err != nil {
		t.Fatal(err)
	}
	incr := time.Since(start)
	t.Logf("%d files: cold export %v (v%d), export after a one-file append %v (v%d)", n, cold, res.Version, incr, res2.Version)
	if res2.ManifestLists != 1 || res2.Version != 2 {
		t.Errorf("incremental export %+v, want one manifest list and v2", res2)
	}
}

func fakeFile(ds *catalogstore.Dataset, i int) manifest.DataFile {
	lo := binary.LittleEndian.AppendUint64(nil, uint64(i*100))
	hi := binary.LittleEndian.AppendUint64(nil, uint64(i*100+99))
	return manifest.DataFile{
		Path: fmt.Sprintf("%s/data/%08d.parquet", ds.Location, i), Format: manifest.FormatParquet,
		RecordCount: 100, FileSize: 4096, UncompressedSize: 8192, StatsState: manifest.StatsProvided,
		FieldIDs: []int{1, 2}, ValueCounts: []int64{100, 100}, NullCounts: []int64{0, 3}, NaNCounts: []int64{0, 0},
		LowerBounds: [][]byte{lo, []byte("aaa")}, UpperBounds: [][]byte{hi, []byte("zzz")},
		BoundsExact: []bool{true, true}, ColumnSizes: []int64{800, 1200},
	}
}
