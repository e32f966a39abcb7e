package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// dataInOut opens an engine whose secure_file_priv is a fresh folder,
// and runs st embedded and over the wire, each on a fresh warehouse;
// files(dir) writes the fixtures into that folder first, and the
// script's "$F" stands for the folder.
func dataInOut(t *testing.T, files func(t *testing.T, dir string), st scriptTest) {
	t.Helper()
	for _, mode := range []string{"embedded", "wire"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			files(t, dir)
			e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true, SecureFilePriv: dir})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			run := embedded(t, e)
			if mode == "wire" {
				h, _ := serve(t, e, "")
				run = wire(t, h)
			}
			sub := func(s string) string { return strings.ReplaceAll(s, "$F", dir) }
			cp := scriptTest{name: st.name}
			for _, q := range st.setup {
				cp.setup = append(cp.setup, sub(q))
			}
			for _, c := range st.checks {
				c.query = sub(c.query)
				c.want = append([]string(nil), c.want...)
				for i := range c.want {
					c.want[i] = sub(c.want[i])
				}
				cp.checks = append(cp.checks, c)
			}
			runScript(t, mode, run, cp)
		})
	}
}

// TestReadParquetAndCSV: read_parquet and read_csv in SELECT, filters,
// aggregates (vectorised), joins and CREATE TABLE … AS SELECT, and each
// bad input refused naming the file.
func TestReadParquetAndCSV(t *testing.T) {
	dataInOut(t, func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "p", "a.parquet"), parquetRows(t, []int64{1, 2}, []string{"a", "b"}, false))
		writeFile(t, filepath.Join(dir, "p", "b.parquet"), parquetRows(t, []int64{3}, []string{"c"}, false))
		writeFile(t, filepath.Join(dir, "q", "a.parquet"), parquetRows(t, []int64{1}, []string{"a"}, false))
		writeFile(t, filepath.Join(dir, "q", "z.parquet"), parquetRows(t, []int64{2}, nil, true))
		writeFile(t, filepath.Join(dir, "bad.parquet"), []byte("not parquet at all"))
		writeFile(t, filepath.Join(dir, "c.csv"), []byte("id,name,day,score\n1,\"x, y\",2024-01-02,1.5\n2,,2024-03-04,2\n3,\"say \"\"hi\"\"\",2024-05-06,\n"))
		writeFile(t, filepath.Join(dir, "semi.csv"), []byte("7;seven\n8;eight\n"))
		writeFile(t, filepath.Join(dir, "open.csv"), []byte("id,name\n1,\"never closed\n"))
	}, scriptTest{
		setup: []string{"CREATE DATABASE d", "USE d"},
		checks: []check{
			{query: "SELECT id, name FROM read_parquet('$F/p/*.parquet')", want: []string{"1|a", "2|b", "3|c"}},
			{query: "SELECT COUNT(*), SUM(id) FROM read_parquet('$F/p/*.parquet') WHERE id > 1", want: []string{"2|5"}},
			{query: "SELECT name FROM read_parquet('file://$F/p/b.parquet')", want: []string{"c"}},
			{query: "SELECT id, name, day, score FROM read_csv('$F/c.csv')", want: []string{"1|x, y|2024-01-02|1.5", "2|NULL|2024-03-04|2", `3|say "hi"|2024-05-06|NULL`}},
			{query: "SELECT * FROM read_csv('$F/semi.csv', 'delim=;', 'header=false')", want: []string{"7|seven", "8|eight"}},
			{query: "SELECT p.name, c.day FROM read_parquet('$F/p/*.parquet') p JOIN read_csv('$F/c.csv') c ON p.id = c.id", want: []string{"a|2024-01-02", "b|2024-03-04", "c|2024-05-06"}},
			{query: "CREATE TABLE d.fromp AS SELECT * FROM read_parquet('$F/p/*.parquet') WHERE id <> 2"},
			{query: "CREATE TABLE d.fromc AS SELECT * FROM read_csv('$F/c.csv')"},
			{query: "SELECT id, name FROM d.fromp", want: []string{"1|a", "3|c"}},
			{query: "SELECT id, name, day, score FROM d.fromc", want: []string{"1|x, y|2024-01-02|1.5", "2|NULL|2024-03-04|2", `3|say "hi"|2024-05-06|NULL`}},
			{query: "SELECT COUNT(*) FROM read_parquet('$F/nope.parquet')", wantErr: "1231 nope.parquet does not exist"},
			{query: "SELECT COUNT(*) FROM read_parquet('$F/p')", wantErr: "1231 is a folder"},
			{query: "SELECT COUNT(*) FROM read_parquet('$F/bad.parquet')", wantErr: "1231 bad.parquet"},
			{query: "SELECT COUNT(*) FROM read_parquet('$F/p/*.orc')", wantErr: "1231 matched no files"},
			{query: "SELECT COUNT(*) FROM read_parquet('$F/q/*.parquet')", wantErr: `1231 z.parquet`},
			{query: "SELECT COUNT(*) FROM read_parquet('/etc/*.parquet')", wantErr: "1290 secure-file-priv"},
			{query: "SELECT * FROM read_csv('$F/open.csv')", wantErr: "1231 not closed"},
			{query: "SELECT * FROM read_csv('$F/c.csv', 'colour=red')", wantErr: "1231 no option"},
			{query: "SELECT * FROM read_csv('$F/none.csv')", wantErr: "1231 none.csv does not exist"},
			{query: "SHOW TABLES", want: []string{"fromc", "fromp"}},
		},
	})
}

// TestReadParquet_NoDatabaseSelected: file functions read no database,
// so they work with none selected (GMS's binder wanted one, 1046), in
// joins with qualified tables and CTAS; the stand-in database the binder
// is lent ends with the statement, and a statement naming a table
// without its database still gets 1046.
func TestReadParquet_NoDatabaseSelected(t *testing.T) {
	dataInOut(t, func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "p", "a.parquet"), parquetRows(t, []int64{1, 2}, []string{"a", "b"}, false))
		writeFile(t, filepath.Join(dir, "c.csv"), []byte("id,name\n1,x\n"))
	}, scriptTest{
		setup: []string{"CREATE DATABASE d", "CREATE TABLE d.k (id BIGINT)", "INSERT INTO d.k VALUES (2)"},
		checks: []check{
			{query: "SELECT id, name FROM read_parquet('$F/p/*.parquet')", want: []string{"1|a", "2|b"}},
			{query: "SELECT DATABASE()", want: []string{"NULL"}},
			{query: "SELECT p.name FROM read_parquet('$F/p/*.parquet') p JOIN d.k ON p.id = d.k.id", want: []string{"b"}},
			{query: "SELECT name FROM read_csv('$F/c.csv')", want: []string{"x"}},
			{query: "CREATE TABLE d.fromp AS SELECT id FROM read_parquet('$F/p/*.parquet')"},
			{query: "INSERT INTO d.fromp SELECT id FROM read_parquet('$F/p/*.parquet') WHERE id = 1"},
			{query: "SELECT COUNT(*), SUM(id) FROM d.fromp", want: []string{"3|4"}},
			{query: "SELECT p.id FROM read_parquet('$F/p/*.parquet') p JOIN k ON p.id = k.id", wantErr: "1046 No database"},
			{query: "INSERT INTO fromp SELECT id FROM read_parquet('$F/p/*.parquet')", wantErr: "1046 No database"},
			{query: "SELECT DATABASE()", want: []string{"NULL"}},
			// A statement of file functions that fails while it is planned
			// leaves no database selected either.
			{query: "SELECT nope FROM read_parquet('$F/p/*.parquet')", wantErr: "1054 nope"},
			{query: "SELECT DATABASE()", want: []string{"NULL"}},
		},
	})
}

// TestTableFunc_LeftOfJoin: a file function on the left of a join (the
// stats coster's usual order, or a JOIN_ORDER hint) reads the right
// side's columns from their own offsets; GMS had given the function's
// ResolvedTable no column ids, so the right side's columns read offset 0,
// the function's first column, and the joins kept every row.
func TestTableFunc_LeftOfJoin(t *testing.T) {
	dataInOut(t, func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "p", "a.parquet"), parquetRows(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, false))
		writeFile(t, filepath.Join(dir, "c.csv"), []byte("id,city\n1,Oslo\n2,Rome\n4,Nice\n"))
	}, scriptTest{
		setup: []string{"CREATE DATABASE d", "USE d", "CREATE TABLE k (v VARCHAR(10), id BIGINT)", "INSERT INTO k VALUES ('two', 2), ('three', 3), ('nine', 9)"},
		checks: []check{
			{query: "SELECT p.name, k.id, k.v FROM read_parquet('$F/p/*.parquet') p JOIN d.k ON p.id = d.k.id", want: []string{"b|2|two", "c|3|three"}},
			{query: "SELECT /*+ JOIN_ORDER(p, k) */ p.name, k.v FROM read_parquet('$F/p/*.parquet') p JOIN k ON p.id = k.id", want: []string{"b|two", "c|three"}},
			{query: "SELECT /*+ JOIN_ORDER(k, p) */ p.name, k.v FROM read_parquet('$F/p/*.parquet') p JOIN k ON p.id = k.id", want: []string{"b|two", "c|three"}},
			{query: "SELECT p.name, k.v FROM read_parquet('$F/p/*.parquet') p, k WHERE p.id = k.id", want: []string{"b|two", "c|three"}},
			{query: "SELECT /*+ JOIN_ORDER(p, k) */ p.name, k.v FROM read_parquet('$F/p/*.parquet') p, k WHERE p.id = k.id AND k.v <> 'two'", want: []string{"c|three"}},
			{query: "SELECT p.name, k.v FROM read_parquet('$F/p/*.parquet') p LEFT JOIN k ON p.id = k.id", want: []string{"a|NULL", "b|two", "c|three"}},
			{query: "SELECT c.city, k.v FROM read_csv('$F/c.csv') c JOIN k ON c.id = k.id", want: []string{"Rome|two"}},
			{query: "SELECT /*+ JOIN_ORDER(c, k) */ c.city, k.v FROM read_csv('$F/c.csv') c, k WHERE c.id = k.id", want: []string{"Rome|two"}},
			{query: "SELECT /*+ JOIN_ORDER(p, c, k) */ p.name, c.city, k.v FROM read_parquet('$F/p/*.parquet') p JOIN read_csv('$F/c.csv') c ON p.id = c.id JOIN k ON c.id = k.id", want: []string{"b|Rome|two"}},
			{query: "SELECT p.name, c.city, k.v FROM read_parquet('$F/p/*.parquet') p, read_csv('$F/c.csv') c, k WHERE p.id = c.id AND k.id = p.id", want: []string{"b|Rome|two"}},
			{query: "SELECT k.v FROM k WHERE k.id IN (SELECT p.id FROM read_parquet('$F/p/*.parquet') p JOIN k k2 ON p.id = k2.id WHERE k2.v <> 'three')", want: []string{"two"}},
			{query: "SELECT t.name, t.v FROM (SELECT p.name, k.v FROM read_parquet('$F/p/*.parquet') p JOIN k ON p.id = k.id) t WHERE t.v LIKE 't%'", want: []string{"b|two", "c|three"}},
		},
	})
}

// TestReadParquet_Vectorised: an aggregate over read_parquet runs as the
// vectorised scan a dataset's would.
func TestReadParquet_Vectorised(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p", "a.parquet"), parquetRows(t, []int64{1, 2}, []string{"a", "b"}, false))
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true, SecureFilePriv: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	conn := e.Connect("root")
	t.Cleanup(func() { conn.Close() })
	for _, q := range []string{"CREATE DATABASE d", "USE d"} {
		if _, err := conn.Query(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	q := "SELECT COUNT(*), SUM(id) FROM read_parquet('" + dir + "/p/*.parquet') WHERE id > 1"
	if got := enginetest.Explain(t, conn, q); !strings.Contains(got, "VectorAggregate(d.read_parquet)") {
		t.Fatalf("plan:\n%s", got)
	}
	if got := enginetest.Render(t, conn, q); got != "1|2" {
		t.Fatalf("got %q", got)
	}
}

// TestLoadData_MySQLCSVOptions: LOAD DATA reads every FIELDS and LINES
// option MySQL has, a column list with user variables and SET, and IGNORE
// n LINES; a malformed file loads nothing.
func TestLoadData_MySQLCSVOptions(t *testing.T) {
	dataInOut(t, func(t *testing.T, dir string) {
		writeFile(t, filepath.Join(dir, "q.csv"), []byte("id,name,note\n"+
			"1,\"a, b\",plain\n"+
			"2,\"say \"\"hi\"\"\",\"two\nlines\"\n"+
			"3,\"back\\\"slash\",\\N\n"+
			"4,NULL,\"NULL\"\n"))
		writeFile(t, filepath.Join(dir, "crlf.csv"), []byte("5|e|x\r\n6|f|y\r\n"))
		writeFile(t, filepath.Join(dir, "prefixed.txt"), []byte("xx7\tg\tz\nnoise\nxx8\th\tw\n"))
		writeFile(t, filepath.Join(dir, "vars.csv"), []byte("9,ii,skip\n10,jj,skip\n"))
		writeFile(t, filepath.Join(dir, "broken.csv"), []byte("11,\"open\n"))
	}, scriptTest{
		setup: []string{"CREATE DATABASE d", "USE d", "CREATE TABLE d.t (id INT, name VARCHAR(20), note TEXT)"},
		checks: []check{
			{query: `LOAD DATA INFILE '$F/q.csv' INTO TABLE d.t FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY '\\' LINES TERMINATED BY '\n' IGNORE 1 LINES`},
			{query: `LOAD DATA INFILE '$F/crlf.csv' INTO TABLE d.t FIELDS TERMINATED BY '|' LINES TERMINATED BY '\r\n'`},
			{query: `LOAD DATA INFILE '$F/prefixed.txt' INTO TABLE d.t LINES STARTING BY 'xx'`},
			{query: `LOAD DATA INFILE '$F/vars.csv' INTO TABLE d.t FIELDS TERMINATED BY ',' (id, @n, @skip) SET name = UPPER(@n), note = 'set'`},
			{query: "SELECT id, name, note FROM d.t ORDER BY id", ordered: true, want: []string{
				"1|a, b|plain", `2|say "hi"|two` + "\n" + "lines", `3|back"slash|NULL`, "4|NULL|NULL",
				"5|e|x", "6|f|y", "7|g|z", "8|h|w", "9|II|set", "10|JJ|set"}},
			{query: "SELECT COUNT(*) FROM d.t WHERE note = 'NULL'", want: []string{"1"}},
			{query: `LOAD DATA INFILE '$F/broken.csv' INTO TABLE d.t FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"'`, wantErr: "1366 not closed"},
			{query: `LOAD DATA INFILE '$F/missing.csv' INTO TABLE d.t`, wantErr: "29 missing.csv"},
			{query: "SELECT COUNT(*) FROM d.t", want: []string{"10"}},
		},
	})
}

// TestIntoOutfileAndExportParquet: SELECT … INTO OUTFILE writes MySQL's
// CSV (and LOAD DATA reads it back); export_parquet writes a table or a
// query; an existing file is refused unless overwrite is asked for.
func TestIntoOutfileAndExportParquet(t *testing.T) {
	dataInOut(t, func(t *testing.T, dir string) {}, scriptTest{
		setup: []string{"CREATE DATABASE d", "USE d",
			"CREATE TABLE d.t (id INT, name VARCHAR(20), at DATETIME, amount DECIMAL(10,2))",
			`INSERT INTO d.t VALUES (1, 'a, "b"', '2024-01-02 03:04:05', 1.50), (2, NULL, NULL, -2.00), (3, 'back\\slash', '2024-12-31 23:59:59', 0)`},
		checks: []check{
			{query: `SELECT * FROM d.t ORDER BY id INTO OUTFILE '$F/t.csv' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' LINES TERMINATED BY '\n'`},
			{query: `SELECT LOAD_FILE('$F/t.csv')`, want: []string{"1,\"a, \\\"b\\\"\",2024-01-02 03:04:05,1.50\n2,\\N,\\N,-2.00\n3,\"back\\\\slash\",2024-12-31 23:59:59,0.00\n"}},
			{query: `SELECT * FROM d.t INTO OUTFILE '$F/t.csv'`, wantErr: "1086 already exists"},
			{query: "CREATE TABLE d.back (id INT, name VARCHAR(20), at DATETIME, amount DECIMAL(10,2))"},
			{query: `LOAD DATA INFILE '$F/t.csv' INTO TABLE d.back FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"'`},
			{query: "SELECT COUNT(*) FROM d.back b JOIN d.t t ON b.id = t.id AND b.name <=> t.name AND b.at <=> t.at AND b.amount = t.amount", want: []string{"3"}},
			{query: "CALL export_parquet('d.t', '$F/t.parquet')", want: []string{"3|$F/t.parquet"}},
			// The file's timestamp[us] column reads as DATETIME(6): six digits.
			{query: "SELECT id, name, at, amount FROM read_parquet('$F/t.parquet')", want: []string{`1|a, "b"|2024-01-02 03:04:05.000000|1.50`, "2|NULL|NULL|-2.00", `3|back\slash|2024-12-31 23:59:59.000000|0.00`}},
			{query: "CALL export_parquet('d.t', '$F/t.parquet')", wantErr: "1086 already exists"},
			{query: "CALL export_parquet('SELECT id * 10 AS x FROM d.t WHERE id < 3', '$F/t.parquet', true)", want: []string{"2|$F/t.parquet"}},
			{query: "SELECT x FROM read_parquet('$F/t.parquet')", want: []string{"10", "20"}},
			{query: "CALL export_parquet('main.d.t', '$F/ws.parquet')", want: []string{"3|$F/ws.parquet"}},
			{query: "CALL export_parquet('d.nope', '$F/n.parquet')", wantErr: "1146 nope"},
			{query: "CALL export_parquet('not a query', '$F/n.parquet')", wantErr: "1231 not a query"},
			{query: "CALL export_parquet('d.t', '/etc/lakesql-export.parquet')", wantErr: "1290 secure-file-priv"},
			{query: "SELECT * FROM read_parquet('$F/n.parquet')", wantErr: "1231 does not exist"},
		},
	})
}

// TestExport_GuardsAndGCS: on a read-only server and without FILE, file
// writes are refused with nothing written; export_parquet and read_parquet
// work on gs:// (fake-gcs-server).
func TestExport_GuardsAndGCS(t *testing.T) {
	ctx := context.Background()
	fakeGCS(t, "lakesql-out", map[string][]byte{"keep.txt": []byte("x")})
	wh, dir := t.TempDir(), t.TempDir()
	open := func(readOnly bool) *engine.Engine {
		e, err := engine.Open(ctx, engine.Config{Warehouse: wh, CreateDefaultWorkspace: true, NoAudit: true,
			Auth: true, RootPassword: "s3cret", ReadOnly: readOnly, SecureFilePriv: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	e := open(false)
	addr := listen(t, e)
	root := dial(t, addr, "root", "s3cret")
	root.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (id INT)", "INSERT INTO d.t VALUES (1), (2)",
		"CREATE USER bob IDENTIFIED BY 'pw'", "GRANT ALL ON d.* TO bob", "USE d"} {
		mustExec(t, root, q)
	}
	mustExec(t, root, "CALL export_parquet('d.t', 'gs://lakesql-out/x/t.parquet')")
	var n int
	if err := root.QueryRow("SELECT SUM(id) FROM read_parquet('gs://lakesql-out/x/*.parquet')").Scan(&n); err != nil || n != 3 {
		t.Fatalf("read back from gs: %d %v", n, err)
	}
	_, err := root.Exec("CALL export_parquet('d.t', 'gs://lakesql-out/x/t.parquet')")
	wantCode(t, "export_parquet to an existing object", err, 1086)

	bob := dial(t, addr, "bob", "pw")
	bob.SetMaxOpenConns(1)
	mustExec(t, bob, "USE d")
	_, err = bob.Exec("CALL export_parquet('d.t', '" + filepath.Join(dir, "bob.parquet") + "')")
	wantCode(t, "export_parquet without FILE", err, 1227)
	absent(t, filepath.Join(dir, "bob.parquet"))
	_, err = bob.Exec("SELECT * FROM read_parquet('gs://lakesql-out/x/t.parquet')")
	wantCode(t, "read_parquet of a bucket without FILE", err, 1227)
	_, err = bob.Exec("SELECT * FROM d.t INTO OUTFILE '" + filepath.Join(dir, "bob.csv") + "'")
	wantCode(t, "INTO OUTFILE without FILE", err, 1227)
	absent(t, filepath.Join(dir, "bob.csv"))

	e.Close()
	ro := dial(t, listen(t, open(true)), "root", "s3cret")
	ro.SetMaxOpenConns(1)
	mustExec(t, ro, "USE d")
	_, err = ro.Exec("CALL export_parquet('d.t', '" + filepath.Join(dir, "ro.parquet") + "')")
	wantCode(t, "export_parquet on a read-only server", err, 1290)
	absent(t, filepath.Join(dir, "ro.parquet"))
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files left in %s: %v", dir, entries)
	}
}

// TestReadParquet_PrunesFiles: a filter on read_parquet skips the files
// whose footer bounds exclude it, as a table's scan does (the scan log
// counts them).
func TestReadParquet_PrunesFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p", "lo.parquet"), parquetRows(t, []int64{1, 2}, []string{"a", "b"}, false))
	writeFile(t, filepath.Join(dir, "p", "hi.parquet"), parquetRows(t, []int64{10, 20}, []string{"c", "d"}, false))
	var buf bytes.Buffer
	e, err := engine.Open(ctx, engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true, SecureFilePriv: dir,
		Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conn := e.Connect("root")
	for _, q := range []string{"CREATE DATABASE d", "USE d"} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if got := enginetest.Render(t, conn, "SELECT SUM(id) FROM read_parquet('"+dir+"/p/*.parquet') WHERE id >= 10"); got != "30" {
		t.Fatalf("sum %q", got)
	}
	var line string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "msg=scan ") {
			line = l
		}
	}
	for _, want := range []string{"table=d.read_parquet", "files=2", "files_read=1"} {
		if !strings.Contains(line, want) {
			t.Errorf("scan log %q lacks %s", line, want)
		}
	}
}
