package interop

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// TestIcebergGo_ForeignFilesAndEmptyTable: a Parquet file written without
// field ids and registered with add_files reads through the exported name
// mapping, after a rename too; a table without snapshots reads empty.
func TestIcebergGo_ForeignFilesAndEmptyTable(t *testing.T) {
	l := newLake(t)
	l.exec("CREATE DATABASE c", "CREATE TABLE c.t (id BIGINT, name VARCHAR(10))", "CREATE TABLE c.empty (x INT)",
		"INSERT INTO c.t VALUES (1, 'own')")
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{7, 8}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"x", "y"}, []bool{true, false})
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sch, &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.e.Catalog().Blob().Put(context.Background(), "incoming/x.parquet", &buf, blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	l.exec("CALL add_files('c.t', 'incoming/x.parquet')", "ALTER TABLE c.t RENAME COLUMN name TO label")
	tbl := openTable(t, l.metadata("c.t"))
	equalRows(t, "foreign file", scanRows(t, tbl.Scan(), nil), canonical(l.query("SELECT * FROM c.t"), nil))

	empty := openTable(t, l.metadata("c.empty"))
	if got := scanRows(t, empty.Scan(), nil); len(got) != 0 {
		t.Errorf("empty table reads %v", got)
	}
}
