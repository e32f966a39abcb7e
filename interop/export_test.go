package interop

import (
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
