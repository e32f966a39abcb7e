package engine_test

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// partitionDDLScripts cover CREATE TABLE ... PARTITIONED BY, ALTER TABLE
// ... SET PARTITIONED BY and OPTIMIZE TABLE, embedded and over the wire.
var partitionDDLScripts = []scriptTest{
	{
		name: "CREATE TABLE PARTITIONED BY: one INSERT over 3 months x 2 keys writes 6 files in one snapshot",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (id BIGINT, ts DATETIME, country VARCHAR(2), v INT) PARTITIONED BY (month(ts), country)",
			`INSERT INTO t VALUES
				(1, '2026-01-05 10:00:00', 'fr', 1), (2, '2026-02-05 10:00:00', 'fr', 2), (3, '2026-03-05 10:00:00', 'fr', 3),
				(4, '2026-01-06 10:00:00', 'de', 4), (5, '2026-02-06 10:00:00', 'de', 5), (6, '2026-03-06 10:00:00', 'de', 6),
				(7, '2026-01-25 10:00:00', 'fr', 7)`,
			"CREATE TABLE IF NOT EXISTS d.every (ts DATETIME, id BIGINT, country VARCHAR(2), name TEXT, dd DATE, x INT) " +
				"PARTITIONED BY (day(ts), bucket(16, id), country, truncate(4, name), month(ts), year(dd), hour(ts), identity(x))",
			"INSERT INTO d.every VALUES ('2026-01-05 10:00:00', 1, 'fr', 'abcdef', '2026-01-05', 9)",
		},
		checks: []check{
			{query: "SELECT COUNT(*), COUNT(DISTINCT added_snapshot_id), MIN(spec_id), MAX(spec_id), SUM(record_count) FROM `t$files`", want: []string{"6|1|0|0|7"}},
			{query: "SELECT id FROM t WHERE country = 'fr' AND ts >= '2026-02-01 00:00:00'", want: []string{"2", "3"}},
			{query: "SELECT country, COUNT(*), SUM(v) FROM t GROUP BY country", want: []string{"de|3|15", "fr|4|13"}},
			{query: "SELECT COUNT(*) FROM d.`every$files`", want: []string{"1"}},
			{query: "SELECT name, x FROM d.every", want: []string{"abcdef|9"}},
			// IF NOT EXISTS on an existing table is a no-op; without it, an error.
			{query: "CREATE TABLE IF NOT EXISTS t (a INT) PARTITIONED BY (a)", want: nil},
			{query: "CREATE TABLE t (a INT) PARTITIONED BY (a)", wantErr: "1050 exists"},
			{query: "SELECT COUNT(*) FROM t", want: []string{"7"}},
		},
	},
	{
		name: "CREATE TABLE PARTITIONED BY refusals leave no table behind",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
		},
		checks: []check{
			{query: "CREATE TABLE bad (a INT) PARTITIONED BY (week(a))", wantErr: "1064 bad partition transform"},
			{query: "CREATE TABLE bad (a INT, s VARCHAR(5)) PARTITIONED BY (day(s))", wantErr: "1235 transform day cannot apply to column \"s\""},
			{query: "CREATE TABLE bad (a INT) PARTITIONED BY (nope)", wantErr: "1054 column \"nope\""},
			{query: "CREATE TABLE bad (a INT) PARTITIONED BY (bucket(0, a))", wantErr: "1064 whole number"},
			{query: "CREATE TABLE bad (a INT) PARTITIONED BY (a, identity(a))", wantErr: "1235 used twice"},
			{query: "SHOW TABLES", want: nil},
			{query: "CREATE TABLE bad (a INT, s VARCHAR(5)) PARTITIONED BY (truncate(2, s))", want: nil},
			{query: "INSERT INTO bad VALUES (1, 'abc'), (2, 'abd'), (3, 'xyz')", want: nil},
			{query: "SELECT COUNT(*), SUM(record_count) FROM `bad$files`", want: []string{"2|3"}},
			// A MySQL PARTITION BY stays refused.
			{query: "CREATE TABLE m (a INT) PARTITION BY HASH(a) PARTITIONS 4", wantErr: "1235 PARTITION BY"},
			{query: "SHOW TABLES", want: []string{"bad"}},
		},
	},
	{
		name: "ALTER TABLE SET PARTITIONED BY changes the spec of new files only",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (id INT, k INT, s VARCHAR(10))",
			"INSERT INTO t VALUES (1, 1, 'a'), (2, 2, 'b')",
			"ALTER TABLE t SET PARTITIONED BY (k)",
			"INSERT INTO t VALUES (3, 1, 'c'), (4, 2, 'd')",
		},
		checks: []check{
			{query: "SELECT spec_id, COUNT(*), SUM(record_count) FROM `t$files` GROUP BY spec_id", want: []string{"0|1|2", "1|2|2"}},
			{query: "ALTER TABLE t SET PARTITIONED BY (day(s))", wantErr: "1235 transform day cannot apply"},
			{query: "ALTER TABLE t SET PARTITIONED BY ()", want: nil},
			{query: "INSERT INTO t VALUES (5, 1, 'e'), (6, 2, 'f')", want: nil},
			{query: "SELECT spec_id, COUNT(*), SUM(record_count) FROM `t$files` GROUP BY spec_id", want: []string{"0|2|4", "1|2|2"}},
			{query: "ALTER TABLE d.t SET PARTITIONED BY (bucket(4, id), k)", want: nil},
			{query: "INSERT INTO t VALUES (7, 1, 'g')", want: nil},
			{query: "SELECT MAX(spec_id) FROM `t$files`", want: []string{"2"}},
			{query: "SELECT id FROM t WHERE k = 1", want: []string{"1", "3", "5", "7"}},
			{query: "ALTER TABLE nope SET PARTITIONED BY (k)", wantErr: "1146 nope"},
			// Other ALTER TABLEs stay MySQL's.
			{query: "ALTER TABLE t ADD COLUMN z INT", want: nil},
			{query: "SELECT COUNT(*) FROM t WHERE z IS NULL", want: []string{"7"}},
		},
	},
	{
		name: "OPTIMIZE TABLE compacts small files with identical results",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (id INT, s VARCHAR(10))",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
			"INSERT INTO t VALUES (3, 'c')",
			"INSERT INTO t VALUES (4, 'd'), (5, NULL)",
			"INSERT INTO t VALUES (6, 'f')",
		},
		checks: []check{
			{query: "SELECT COUNT(*) FROM `t$files`", want: []string{"4"}},
			{query: "SELECT id, s FROM t ORDER BY id", ordered: true, want: []string{"1|a", "2|b", "3|c", "4|d", "5|NULL", "6|f"}},
			{query: "OPTIMIZE TABLE t", want: []string{"d.t|optimize|status|OK: compacted 4 files into 1 (snapshot 5)"}},
			{query: "SELECT COUNT(*), SUM(record_count) FROM `t$files`", want: []string{"1|6"}},
			{query: "SELECT id, s FROM t ORDER BY id", ordered: true, want: []string{"1|a", "2|b", "3|c", "4|d", "5|NULL", "6|f"}},
			{query: "OPTIMIZE LOCAL TABLE d.t", want: []string{"d.t|optimize|status|Table is already up to date"}},
			{query: "OPTIMIZE TABLE nope", ordered: true, want: []string{"d.nope|optimize|Error|Table 'd.nope' doesn't exist", "d.nope|optimize|status|Operation failed"}},
		},
	},
}

func TestPartitionDDLScripts(t *testing.T) {
	for _, st := range partitionDDLScripts {
		t.Run(st.name, func(t *testing.T) {
			t.Run("embedded", func(t *testing.T) {
				runScript(t, st.name, embedded(t, enginetest.Open(t)), st)
			})
			t.Run("wire", func(t *testing.T) {
				e := enginetest.Open(t)
				h, _ := serve(t, e, "")
				runScript(t, st.name, wire(t, h), st)
			})
		})
	}
}

// TestPartitionDDLSpecs checks the specs the statements write: field ids
// from 1000, default names, an equivalent field keeping its id, new spec
// ids appended to Specs.
func TestPartitionDDLSpecs(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Open(t)
	conn := e.Connect("root")
	defer conn.Close()
	for _, q := range []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.t (id BIGINT, ts DATETIME, name TEXT) PARTITIONED BY (day(ts), bucket(16, id), truncate(4, name))",
		"ALTER TABLE d.t SET PARTITIONED BY (bucket(16, id), month(ts))",
	} {
		if err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ds, err := e.Catalog().Dataset(ctx, catalogstore.Ident{Workspace: "main", Collection: "d", Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	first := partition.Spec{ID: 0, Fields: []partition.Field{
		{SourceID: 2, FieldID: 1000, Name: "ts_day", Transform: partition.Day},
		{SourceID: 1, FieldID: 1001, Name: "id_bucket_16", Transform: partition.Bucket(16)},
		{SourceID: 3, FieldID: 1002, Name: "name_trunc_4", Transform: partition.Truncate(4)},
	}}
	second := partition.Spec{ID: 1, Fields: []partition.Field{
		{SourceID: 1, FieldID: 1001, Name: "id_bucket_16", Transform: partition.Bucket(16)},
		{SourceID: 2, FieldID: 1003, Name: "ts_month", Transform: partition.Month},
	}}
	if len(ds.Specs) != 2 || !specEqual(ds.Specs[0], first) || !specEqual(ds.Specs[1], second) || !specEqual(ds.Spec, second) {
		t.Fatalf("specs %+v, current %+v", ds.Specs, ds.Spec)
	}
	// Back to the first spec: its id is reused, nothing appended.
	if err := conn.Exec(ctx, "ALTER TABLE d.t SET PARTITIONED BY (day(ts), bucket(16, id), truncate(4, name))"); err != nil {
		t.Fatal(err)
	}
	if ds, err = e.Catalog().Dataset(ctx, ds.Ident()); err != nil || len(ds.Specs) != 2 || !specEqual(ds.Spec, first) {
		t.Fatalf("specs %+v, current %+v, %v", ds.Specs, ds.Spec, err)
	}
}

func specEqual(a, b partition.Spec) bool {
	if a.ID != b.ID || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i] != b.Fields[i] {
			return false
		}
	}
	return true
}
