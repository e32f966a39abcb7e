package engine_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/lakesql/lakesql/engine"
)

// parquetRows writes a Parquet file without field ids (as Spark, DuckDB
// or pandas write them) with columns id BIGINT and name (a string, or a
// BIGINT when nameInt: the wrong type).
func parquetRows(t *testing.T, ids []int64, names []string, nameInt bool) []byte {
	t.Helper()
	nameType := arrow.DataType(arrow.BinaryTypes.String)
	if nameInt {
		nameType = arrow.PrimitiveTypes.Int64
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "name", Type: nameType, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	for i := range ids {
		if nameInt {
			b.Field(1).(*array.Int64Builder).Append(int64(i))
		} else {
			b.Field(1).(*array.StringBuilder).Append(names[i])
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeGCS starts fake-gcs-server in-process with bucket holding objects,
// and points STORAGE_EMULATOR_HOST at it.
func fakeGCS(t *testing.T, bucket string, objects map[string][]byte) {
	t.Helper()
	var objs []fakestorage.Object
	for name, data := range objects {
		objs = append(objs, fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: name}, Content: data})
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		Scheme: "http", Host: "127.0.0.1", Port: 0, Writer: io.Discard, PublicHost: "127.0.0.1", InitialObjects: objs,
	})
	if err != nil {
		t.Fatalf("start fake-gcs-server: %v", err)
	}
	t.Cleanup(srv.Stop)
	t.Setenv("STORAGE_EMULATOR_HOST", srv.URL())
}

// TestAddFiles_URIs: add_files takes warehouse keys, absolute paths,
// file:// and gs:// URIs and globs; files in the warehouse are registered
// in place and survive DROP TABLE, others are copied in; every bad input
// is refused naming the file with nothing registered; embedded and over
// the wire.
func TestAddFiles_URIs(t *testing.T) {
	good := parquetRows(t, []int64{1, 2}, []string{"a", "b"}, false)
	fakeGCS(t, "lakesql-src", map[string][]byte{
		"in/g1.parquet": parquetRows(t, []int64{30}, []string{"g"}, false),
		"in/g2.parquet": parquetRows(t, []int64{31}, []string{"h"}, false),
	})
	for _, mode := range []string{"embedded", "wire"} {
		t.Run(mode, func(t *testing.T) {
			wh, files, outside := t.TempDir(), t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(files, "a.parquet"), good)
			writeFile(t, filepath.Join(files, "glob", "b1.parquet"), parquetRows(t, []int64{10}, []string{"x"}, false))
			writeFile(t, filepath.Join(files, "glob", "b2.parquet"), parquetRows(t, []int64{11}, []string{"y"}, false))
			writeFile(t, filepath.Join(files, "glob", "notes.txt"), []byte("not parquet"))
			writeFile(t, filepath.Join(files, "u.parquet"), parquetRows(t, []int64{20}, []string{"u"}, false))
			writeFile(t, filepath.Join(files, "bad.parquet"), []byte("PAR1 this is not parquet"))
			writeFile(t, filepath.Join(files, "wrongtype.parquet"), parquetRows(t, []int64{9}, nil, true))
			writeFile(t, filepath.Join(outside, "o.parquet"), good)
			writeFile(t, filepath.Join(wh, "incoming", "k.parquet"), parquetRows(t, []int64{40}, []string{"k"}, false))
			writeFile(t, filepath.Join(wh, "incoming", "p.parquet"), parquetRows(t, []int64{41}, []string{"p"}, false))
			e, err := engine.Open(context.Background(), engine.Config{Warehouse: wh, CreateDefaultWorkspace: true, NoAudit: true, SecureFilePriv: files})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			run := embedded(t, e)
			if mode == "wire" {
				h, _ := serve(t, e, "")
				run = wire(t, h)
			}
			f := func(p string) string { return filepath.Join(files, p) }
			const count = "SELECT COUNT(*), COALESCE(SUM(id), 0) FROM d.t"
			runScript(t, mode, run, scriptTest{
				setup: []string{"CREATE DATABASE d", "CREATE TABLE d.t (id BIGINT, name VARCHAR(20))"},
				checks: []check{
					// Bad input: each refused naming the file; nothing registered.
					{query: "CALL add_files('d.t', '" + f("missing.parquet") + "')", wantErr: "1231 missing.parquet does not exist"},
					{query: "CALL add_files('d.t', '" + f("glob") + "')", wantErr: "1231 is a folder"},
					{query: "CALL add_files('d.t', '" + f("bad.parquet") + "')", wantErr: "1231 bad.parquet"},
					{query: "CALL add_files('d.t', '" + f("glob/notes.txt") + "')", wantErr: "1231 notes.txt"},
					{query: "CALL add_files('d.t', '" + f("glob/*.csv") + "')", wantErr: "1231 matched no files"},
					{query: "CALL add_files('d.t', '" + f("wrongtype.parquet") + "')", wantErr: `1231 column "name" is stored as`},
					{query: "CALL add_files('d.t', '" + f("a.parquet") + "," + f("bad.parquet") + "')", wantErr: "1231 bad.parquet"},
					{query: "CALL add_files('d.t', '" + filepath.Join(outside, "o.parquet") + "')", wantErr: "1290 secure-file-priv"},
					{query: "CALL add_files('d.t', 'incoming/nope.parquet')", wantErr: "1231 incoming/nope.parquet does not exist"},
					{query: "CALL add_files('d.t', 'gs://lakesql-src/in/none.parquet')", wantErr: "1231 gs://lakesql-src/in/none.parquet does not exist"},
					{query: "CALL add_files('d.t', 'gs://no-such-bucket-x/in/g1.parquet')", wantErr: "1231 gs://no-such-bucket-x/in/g1.parquet"},
					{query: "CALL add_files('d.t', 'ftp://host/x.parquet')", wantErr: "1231 ftp://host/x.parquet"},
					{query: count, want: []string{"0|0"}},
					// Absolute path, file:// URI, glob, gs:// (copied in);
					// warehouse key and absolute path inside the warehouse
					// (in place).
					{query: "CALL add_files('d.t', '" + f("a.parquet") + "')", want: []string{"1|1|2|provided"}},
					{query: "CALL add_files('d.t', 'file://" + f("u.parquet") + "')", want: []string{"2|1|1|provided"}},
					{query: "CALL add_files('d.t', '" + f("glob/*.parquet") + "')", want: []string{"3|2|2|provided"}},
					{query: "CALL add_files('d.t', 'gs://lakesql-src/in/*.parquet')", want: []string{"4|2|2|provided"}},
					{query: "CALL add_files('d.t', 'incoming/k.parquet, " + filepath.Join(wh, "incoming", "p.parquet") + "')", want: []string{"5|2|2|provided"}},
					{query: "SELECT id, name FROM d.t", want: []string{"1|a", "2|b", "10|x", "11|y", "20|u", "30|g", "31|h", "40|k", "41|p"}},
					{query: "SELECT COUNT(*) FROM d.`t$files` WHERE path LIKE 'incoming/%'", want: []string{"2"}},
					{query: "SELECT COUNT(*) FROM d.`t$files` WHERE path LIKE '%/data/%'", want: []string{"6"}},
					{query: "CALL add_files('d.t', 'incoming/k.parquet')", wantErr: "1062 already live"},
					{query: "DROP TABLE d.t"},
				},
			})
			for _, p := range []string{filepath.Join(wh, "incoming", "k.parquet"), filepath.Join(wh, "incoming", "p.parquet"), f("a.parquet"), f("glob/b1.parquet")} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s after DROP TABLE: %v", p, err)
				}
			}
		})
	}
}

// TestAddFiles_NeedsFILE: without FILE, a user may register warehouse
// keys but not local files outside it, nor other buckets.
func TestAddFiles_NeedsFILE(t *testing.T) {
	ctx := context.Background()
	wh, files := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(files, "a.parquet"), parquetRows(t, []int64{1}, []string{"a"}, false))
	writeFile(t, filepath.Join(wh, "incoming", "k.parquet"), parquetRows(t, []int64{2}, []string{"k"}, false))
	e, err := engine.Open(ctx, engine.Config{Warehouse: wh, CreateDefaultWorkspace: true, NoAudit: true,
		Auth: true, RootPassword: "s3cret", SecureFilePriv: files})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	addr := listen(t, e)
	root := dial(t, addr, "root", "s3cret")
	root.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE DATABASE d", "USE d", "CREATE TABLE d.t (id BIGINT, name VARCHAR(20))",
		"CREATE USER bob IDENTIFIED BY 'pw'", "GRANT ALL ON d.* TO bob"} {
		mustExec(t, root, q)
	}
	bob := dial(t, addr, "bob", "pw")
	bob.SetMaxOpenConns(1)
	mustExec(t, bob, "USE d")
	_, err = bob.Exec("CALL add_files('d.t', '" + filepath.Join(files, "a.parquet") + "')")
	wantCode(t, "add_files of a server file without FILE", err, 1227)
	_, err = bob.Exec("CALL add_files('d.t', 'gs://some-bucket/a.parquet')")
	wantCode(t, "add_files of another bucket without FILE", err, 1227)
	if _, err := bob.Exec("CALL add_files('d.t', 'incoming/k.parquet')"); err != nil {
		t.Fatalf("add_files of a warehouse key: %v", err)
	}
	var got string
	if err := root.QueryRow("SELECT GROUP_CONCAT(name) FROM d.t").Scan(&got); err != nil || !strings.EqualFold(got, "k") {
		t.Fatalf("rows %q %v", got, err)
	}
	// Reading warehouse objects directly needs FILE (the metastore file
	// is one), and no one reads or registers a table's own files by key.
	_, err = bob.Exec("SELECT * FROM read_parquet('incoming/k.parquet')")
	wantCode(t, "read_parquet of a warehouse key without FILE", err, 1227)
	_, err = bob.Exec("SELECT * FROM read_csv('lakesql.db', 'header=false')")
	wantCode(t, "read_csv of the metastore without FILE", err, 1227)
	mustExec(t, root, "GRANT FILE ON *.* TO bob")
	_, err = bob.Exec("SELECT * FROM read_csv('lakesql.db', 'header=false')")
	wantCode(t, "read_csv of the metastore with FILE", err, 1290)
	_, err = bob.Exec("SELECT * FROM read_csv('" + filepath.Join(wh, "lakesql.db") + "', 'header=false')")
	wantCode(t, "read_csv of the metastore by its path", err, 1290)
	mustExec(t, root, "CREATE TABLE d.u (id BIGINT, name VARCHAR(20))")
	mustExec(t, root, "INSERT INTO d.u VALUES (5, 'x')")
	var own string
	if err := root.QueryRow("SELECT path FROM d.`u$files`").Scan(&own); err != nil {
		t.Fatal(err)
	}
	_, err = root.Exec("SELECT * FROM read_parquet('" + own + "')")
	wantCode(t, "read_parquet of a table's own file", err, 1231)
	_, err = bob.Exec("CALL add_files('d.t', '" + own + "')")
	wantCode(t, "add_files of another table's file", err, 1231)
}
