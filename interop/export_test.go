package interop

import (
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// allTypesDDL has a column of every type lakesql exports.
const allTypesDDL = `CREATE TABLE c.t (
	id BIGINT, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, u8 TINYINT UNSIGNED, u16 SMALLINT UNSIGNED,
	f32 FLOAT, f64 DOUBLE, d DECIMAL(10,2), d18 DECIMAL(18,4), d30 DECIMAL(30,5),
	s VARCHAR(40), bin VARBINARY(16), dt DATE, tm TIME(6), ts DATETIME(6), j JSON)`

var allTypesJSON = map[string]bool{"j": true}

// TestIcebergGo_AllTypes: every exported type reads back exactly, NULLs,
// extremes, NaN and negative zero included, from two files.
func TestIcebergGo_AllTypes(t *testing.T) {
	l := newLake(t)
	l.exec("CREATE DATABASE c", allTypesDDL,
		`INSERT INTO c.t VALUES
		(1, true, -128, -32768, -2147483648, 0, 0, -1.5, -0.0, -99999999.99, -99999999999999.9999, -1234567890123456789012345.12345,
		 '', x'', '1000-01-01', '00:00:00', '1970-01-01 00:00:00', '{}'),
		(2, false, 127, 32767, 2147483647, 255, 65535, 3.25, 1e300, 99999999.99, 99999999999999.9999, 1234567890123456789012345.12345,
		 'héllo wörld', x'00ff10', '9999-12-31', '23:59:59.999999', '2038-01-19 03:14:07.999999', '{"a": [1, 2, {"b": null}]}'),
		(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
		`INSERT INTO c.t (id, f64, s, ts) VALUES (4, 0.1, 'second file', '2024-02-29 12:00:00.5')`)
	loc := l.metadata("c.t")
	want := canonical(l.query("SELECT * FROM c.t"), allTypesJSON)
	if len(want) != 4 {
		t.Fatalf("lakesql has %d rows", len(want))
	}
	tbl := openTable(t, loc)
	equalRows(t, "iceberg-go scan", scanRows(t, tbl.Scan(), allTypesJSON), want)

	// iceberg-go prunes with lakesql's bounds: id = 4 is only in the
	// second file.
	if n := plannedFiles(t, tbl.Scan(table.WithRowFilter(iceberg.EqualTo(iceberg.Reference("id"), int64(4))))); n != 1 {
		t.Errorf("iceberg-go planned %d files for id = 4, want 1", n)
	}
	if n := plannedFiles(t, tbl.Scan(table.WithRowFilter(iceberg.GreaterThan(iceberg.Reference("i32"), int32(2147483647))))); n != 0 {
		t.Errorf("iceberg-go planned %d files for i32 > max, want 0", n)
	}
	got := scanRows(t, tbl.Scan(table.WithRowFilter(iceberg.EqualTo(iceberg.Reference("s"), "second file"))), allTypesJSON)
	equalRows(t, "filtered scan", got, canonical(l.query("SELECT * FROM c.t WHERE s = 'second file'"), allTypesJSON))
}

// TestIcebergGo_PartitionedAndEvolved: identity, bucket and time
// partitions, a spec change, added, renamed and dropped columns; iceberg-go
// reads every row and prunes by partition.
func TestIcebergGo_PartitionedAndEvolved(t *testing.T) {
	l := newLake(t)
	l.exec("CREATE DATABASE c",
		"CREATE TABLE c.t (id BIGINT, region VARCHAR(8), ts DATETIME(6), amount DECIMAL(12,2), qty INT) PARTITIONED BY (region, day(ts), bucket(4, id))",
		`INSERT INTO c.t VALUES (1, 'eu', '2024-01-01 10:00:00', 1.50, 1), (2, 'us', '2024-01-01 11:00:00', 2.50, 2),
			(3, 'eu', '2024-01-02 00:00:00', 3.50, 3), (4, NULL, NULL, NULL, NULL), (5, 'apac', '2023-12-31 23:59:59.999999', -5.00, 5)`,
		"ALTER TABLE c.t SET PARTITIONED BY (month(ts), truncate(2, region))",
		"INSERT INTO c.t VALUES (6, 'eu', '2024-03-01 00:00:00', 6.00, 6), (7, 'useast', '2024-04-15 12:00:00', 7.25, 7)",
		"ALTER TABLE c.t ADD COLUMN note VARCHAR(20)",
		"ALTER TABLE c.t RENAME COLUMN qty TO quantity",
		"INSERT INTO c.t VALUES (8, 'eu', '2024-05-01 00:00:00', 8.00, 8, 'late')",
		"ALTER TABLE c.t DROP COLUMN amount",
		"ALTER TABLE c.t MODIFY COLUMN quantity BIGINT")
	loc := l.metadata("c.t")
	tbl := openTable(t, loc)
	equalRows(t, "evolved table", scanRows(t, tbl.Scan(), nil), canonical(l.query("SELECT * FROM c.t"), nil))
	if got := len(tbl.Metadata().PartitionSpecs()); got != 2 {
		t.Errorf("iceberg-go sees %d partition specs, want 2", got)
	}
	// region = 'us' is in one file of the first spec; truncate(2) of the
	// second spec keeps the 'useast' file a candidate, and its bounds
	// rule it out.
	filter := table.WithRowFilter(iceberg.EqualTo(iceberg.Reference("region"), "us"))
	if n, all := plannedFiles(t, tbl.Scan(filter)), plannedFiles(t, tbl.Scan()); n != 1 || all < 7 {
		t.Errorf("iceberg-go planned %d of %d files for region = 'us', want 1 of at least 7", n, all)
	}
	equalRows(t, "region = 'us'", scanRows(t, tbl.Scan(filter), nil), canonical(l.query("SELECT * FROM c.t WHERE region = 'us'"), nil))
}

// TestIcebergGo_HistoryTagsDeleteCompaction: an older snapshot by id, a
// tag, a copy-on-write DELETE and UPDATE and a compaction each read as
// lakesql reads them, and map to Iceberg's operations.
func TestIcebergGo_HistoryTagsDeleteCompaction(t *testing.T) {
	l := newLake(t)
	l.exec("CREATE DATABASE c",
		"CREATE TABLE c.t (id BIGINT, v VARCHAR(10))",
		"INSERT INTO c.t VALUES (1, 'a'), (2, 'b')",
		"INSERT INTO c.t VALUES (3, 'c'), (4, 'd')",
		"CALL create_tag('c.t', 'before_delete')",
		"INSERT INTO c.t VALUES (5, 'e')")
	first := l.snapshotIDs("c.t")[0]
	l.metadata("c.t") // exported before the delete: the next export is incremental
	l.exec("DELETE FROM c.t WHERE id = 2",
		"UPDATE c.t SET v = 'dd' WHERE id = 4",
		"INSERT INTO c.t VALUES (6, 'f')",
		"OPTIMIZE TABLE c.t")
	loc := l.metadata("c.t")
	tbl := openTable(t, loc)

	equalRows(t, "head", scanRows(t, tbl.Scan(), nil), canonical(l.query("SELECT * FROM c.t"), nil))
	equalRows(t, "snapshot by id", scanRows(t, tbl.Scan(table.WithSnapshotID(first)), nil),
		canonical(l.query(fmt.Sprintf("SELECT * FROM c.t FOR VERSION AS OF %d", first)), nil))
	tagged, err := tbl.Scan().UseRef("before_delete")
	if err != nil {
		t.Fatalf("iceberg-go: tag: %v", err)
	}
	equalRows(t, "tag", scanRows(t, tagged, nil), canonical(l.query("SELECT * FROM c.t FOR VERSION AS OF 'before_delete'"), nil))

	// Every lakesql snapshot is an Iceberg snapshot readable by id.
	ops := map[string]int{}
	for _, id := range l.snapshotIDs("c.t") {
		snap := tbl.Metadata().SnapshotByID(id)
		if snap == nil {
			t.Fatalf("snapshot %d is not in the Iceberg metadata", id)
		}
		ops[string(snap.Summary.Operation)]++
		equalRows(t, fmt.Sprintf("snapshot %d", id), scanRows(t, tbl.Scan(table.WithSnapshotID(id)), nil),
			canonical(l.query(fmt.Sprintf("SELECT * FROM c.t FOR VERSION AS OF %d", id)), nil))
	}
	// 4 appends, the DELETE (rewrites the file: overwrite), the UPDATE
	// (overwrite), the compaction (replace).
	if ops["append"] != 4 || ops["overwrite"] != 2 || ops["replace"] != 1 {
		t.Errorf("operations %v, want 4 append, 2 overwrite, 1 replace", ops)
	}
	if cur := tbl.CurrentSnapshot(); cur.Summary.Operation != table.OpReplace {
		t.Errorf("head operation %s, want replace (compaction)", cur.Summary.Operation)
	}
}

// TestIcebergGo_RollbackAndExpiry: a rollback is a new snapshot whose
// files are an older one's; expired snapshots leave the metadata at the
// next export while the head still reads.
func TestIcebergGo_RollbackAndExpiry(t *testing.T) {
	l := newLake(t)
	l.exec("CREATE DATABASE c", "CREATE TABLE c.t (id BIGINT)",
		"INSERT INTO c.t VALUES (1)", "INSERT INTO c.t VALUES (2)", "DELETE FROM c.t WHERE id = 1", "INSERT INTO c.t VALUES (3)")
	ids := l.snapshotIDs("c.t")
	l.exec(fmt.Sprintf("CALL rollback_to_snapshot('c.t', %d)", ids[1]))
	tbl := openTable(t, l.metadata("c.t"))
	equalRows(t, "after rollback", scanRows(t, tbl.Scan(), nil), canonical(l.query("SELECT * FROM c.t"), nil))
	if got := len(canonical(l.query("SELECT * FROM c.t"), nil)); got != 2 {
		t.Fatalf("lakesql has %d rows after the rollback, want 2", got)
	}
	l.exec("CALL expire_snapshots('c.t', '0s', 1)")
	tbl = openTable(t, l.metadata("c.t"))
	if n := len(tbl.Metadata().Snapshots()); n != 1 {
		t.Errorf("%d snapshots exported after expiring all but the head, want 1", n)
	}
	equalRows(t, "after expiry", scanRows(t, tbl.Scan(), nil), canonical(l.query("SELECT * FROM c.t"), nil))
}
