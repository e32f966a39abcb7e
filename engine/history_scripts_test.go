package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// historyScripts cover time travel, tags and rollback, metadata tables, the
// change feed and consumer offsets (issue 6, items 4-7).
var historyScripts = []scriptTest{
	{
		name: "time travel by snapshot id, tag and main, with the schema of the snapshot",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT, b VARCHAR(10))",
			"INSERT INTO t VALUES (1, 'x'), (2, 'y')", // snapshot 1
			"INSERT INTO t VALUES (3, 'z')",           // 2
			"CALL create_tag('d.t', 'v1', 1)",
			"ALTER TABLE t ADD COLUMN c BIGINT",
			"INSERT INTO t VALUES (4, 'w', 40)", // 3
			"DELETE FROM t WHERE a = 1",         // 4
		},
		checks: []check{
			{query: "SELECT a, b FROM t FOR VERSION AS OF 1", want: []string{"1|x", "2|y"}},
			{query: "SELECT * FROM t AS OF 2", want: []string{"1|x", "2|y", "3|z"}},
			{query: "SELECT * FROM d.t FOR VERSION AS OF 'v1'", want: []string{"1|x", "2|y"}},
			{query: "SELECT * FROM t AS OF 'main'", want: []string{"2|y|NULL", "3|z|NULL", "4|w|40"}},
			{query: "SELECT * FROM t", want: []string{"2|y|NULL", "3|z|NULL", "4|w|40"}},
			{query: "SELECT COUNT(*), SUM(a), MAX(a) FROM t AS OF 3", want: []string{"4|10|4"}},
			{query: "SELECT a FROM t AS OF 3 WHERE a > 2", want: []string{"3", "4"}},
			{query: "SELECT c FROM t AS OF 2", wantErr: "1054 c"},
			// A self-join of two snapshots: the rows deleted since v1, and
			// rows common to both with the newer schema's column.
			{query: "SELECT o.a FROM t FOR VERSION AS OF 'v1' AS o LEFT JOIN t n ON o.a = n.a WHERE n.a IS NULL", want: []string{"1"}},
			{query: "SELECT o.a, n.a, n.c FROM t AS OF 1 o JOIN t AS OF 3 n ON o.a = n.a", want: []string{"1|1|NULL", "2|2|NULL"}},
			{query: "SELECT a FROM t AS OF 4 WHERE a NOT IN (SELECT a FROM t AS OF 2)", want: []string{"4"}},
			{query: "DESCRIBE t AS OF 2", ordered: true, want: []string{"a|int|YES||NULL|", "b|varchar(10)|YES||NULL|"}},
			{query: "SHOW CREATE TABLE t AS OF 1", want: []string{"t|CREATE TABLE `t` (\n  `a` int,\n  `b` varchar(10)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin"}},
			{query: "SHOW TABLES AS OF 1", want: []string{"t"}},
			// Bad references: clear errors, ER_KEY_NOT_FOUND.
			{query: "SELECT * FROM t AS OF 99", wantErr: "1032 has no snapshot 99"},
			{query: "SELECT * FROM t AS OF 'nope'", wantErr: "1032 no snapshot, tag or time"},
			{query: "SELECT * FROM t FOR SYSTEM_TIME AS OF '2000-01-01 00:00:00'", wantErr: "1032 before the first snapshot"},
			{query: "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP('2999-01-01')", wantErr: "1032 in the future"},
			{query: "SELECT * FROM t FOR SYSTEM_TIME AS OF DATE_ADD(NOW(), INTERVAL 1 DAY)", wantErr: "1032 in the future"},
			// Range forms are refused by name.
			{query: "SELECT * FROM t FOR SYSTEM_TIME BETWEEN '2000-01-01' AND '2999-01-01'", wantErr: "1235 BETWEEN"},
			{query: "SELECT * FROM t FOR SYSTEM_TIME FROM '2000-01-01' TO '2999-01-01'", wantErr: "1235 range"},
			{query: "SELECT * FROM t FOR SYSTEM_TIME CONTAINED IN ('2000-01-01', '2999-01-01')", wantErr: "1235 range"},
			{query: "SELECT * FROM t FOR SYSTEM_TIME ALL", wantErr: "1235 ALL"},
			{query: "SELECT * FROM t FOR VERSION BETWEEN 1 AND 2", wantErr: "1235 table_changes"},
			{query: "SELECT * FROM t FOR VERSION ALL", wantErr: "1235 range"},
			{query: "SELECT * FROM (SELECT a FROM t FOR SYSTEM_TIME ALL) s", wantErr: "1235 range"},
			// Reading AS OF into a write is fine; the old snapshot is a source.
			{query: "CREATE TABLE t_v1 AS SELECT a, b FROM t FOR VERSION AS OF 'v1'", want: nil},
			{query: "SELECT a, b FROM t_v1", want: []string{"1|x", "2|y"}},
		},
	},
	{
		name: "metadata tables",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (id BIGINT, name VARCHAR(20), amount DECIMAL(10,2), day DATE, ts DATETIME(6), f DOUBLE)",
			"INSERT INTO t VALUES (1, 'ann', 1.50, '2024-01-02', '2024-01-02 10:00:00.5', 1.5), (2, NULL, -3.25, '2023-12-31', '2023-12-31 23:59:59', NULL)",
			"INSERT INTO t VALUES (3, 'cid', NULL, NULL, NULL, 2.5)",
			"DELETE FROM t WHERE id = 3",
			"CALL create_tag('d.t', 'before-delete', 2)",
		},
		checks: []check{
			{query: "SELECT snapshot_id, parent_id, sequence_number, operation, user_created, author, schema_id, added_files, deleted_files, total_files, added_records, deleted_records, total_records, expired FROM `t$snapshots` ORDER BY snapshot_id", ordered: true, want: []string{
				"1|NULL|1|append|1|root|0|1|0|1|2|0|2|0",
				"2|1|2|append|1|root|0|1|0|2|1|0|3|0",
				"3|2|3|delete|1|root|0|0|1|1|0|1|2|0",
			}},
			{query: "SELECT snapshot_id FROM `t$snapshots` WHERE operation = 'append' AND total_records > 2", want: []string{"2"}},
			{query: "SELECT snapshot_id FROM `t$snapshots` AS OF 2", want: []string{"1", "2"}},
			{query: "SELECT COUNT(*) FROM `T$SNAPSHOTS`", want: []string{"3"}},
			{query: "SELECT snapshot_id, parent_id, is_current_ancestor FROM `t$history`", want: []string{"1|NULL|1", "2|1|1", "3|2|1"}},
			{query: "SELECT COUNT(*) FROM `t$history` h JOIN `t$snapshots` s ON h.snapshot_id = s.snapshot_id AND h.made_current_at = s.committed_at", want: []string{"3"}},
			{query: "SELECT format, record_count, spec_id, `partition`, row_id_start, added_snapshot_id, stats_state, stats_error FROM `t$files`", want: []string{"parquet|2|0|{}|0|1|provided|NULL"}},
			{query: "SELECT COUNT(*) FROM `t$files` WHERE file_size > 0 AND uncompressed_size > 0 AND path LIKE '%.parquet'", want: []string{"1"}},
			// Per-column statistics, bounds decoded.
			{query: "SELECT JSON_EXTRACT(column_stats, '$.id.lower'), JSON_EXTRACT(column_stats, '$.id.upper'), JSON_EXTRACT(column_stats, '$.id.values'), JSON_EXTRACT(column_stats, '$.id.nulls') FROM `t$files`", want: []string{"1|2|2|0"}},
			{query: "SELECT JSON_UNQUOTE(JSON_EXTRACT(column_stats, '$.name.lower')), JSON_EXTRACT(column_stats, '$.name.nulls') FROM `t$files`", want: []string{"ann|1"}},
			{query: "SELECT JSON_EXTRACT(column_stats, '$.amount.lower'), JSON_EXTRACT(column_stats, '$.amount.upper') FROM `t$files`", want: []string{"-3.25|1.5"}},
			{query: "SELECT JSON_UNQUOTE(JSON_EXTRACT(column_stats, '$.day.lower')), JSON_UNQUOTE(JSON_EXTRACT(column_stats, '$.day.upper')) FROM `t$files`", want: []string{"2023-12-31|2024-01-02"}},
			{query: "SELECT JSON_UNQUOTE(JSON_EXTRACT(column_stats, '$.ts.lower')), JSON_UNQUOTE(JSON_EXTRACT(column_stats, '$.ts.upper')) FROM `t$files`", want: []string{"2023-12-31 23:59:59|2024-01-02 10:00:00.5"}},
			{query: "SELECT JSON_EXTRACT(column_stats, '$.f.lower'), JSON_EXTRACT(column_stats, '$.f.nans'), JSON_EXTRACT(column_stats, '$.f.nulls') FROM `t$files`", want: []string{"1.5|0|1"}},
			// AS OF lists that snapshot's files.
			{query: "SELECT record_count, added_snapshot_id, row_id_start FROM `t$files` AS OF 2", want: []string{"2|1|0", "1|2|2"}},
			{query: "SELECT COUNT(*) FROM `t$files` FOR VERSION AS OF 'before-delete'", want: []string{"2"}},
			{query: "SELECT f.added_snapshot_id, s.operation, s.author FROM `t$files` f JOIN `t$snapshots` s ON f.added_snapshot_id = s.snapshot_id", want: []string{"1|append|root"}},
			{query: "SELECT snapshot_id, spec_id, added_files, existing_files, deleted_files, added_records, existing_records, deleted_records, length > 0 FROM `t$manifests`", want: []string{"3|0|0|1|1|0|2|1|1"}},
			{query: "SELECT snapshot_id, added_files, existing_files, added_records FROM `t$manifests` AS OF 2", want: []string{"2|1|1|1"}},
			{query: "SELECT m.path = s.manifest_path FROM `t$manifests` m JOIN `t$snapshots` s ON m.snapshot_id = s.snapshot_id", want: []string{"1"}},
			{query: "SELECT `partition`, spec_id, record_count, file_count, last_updated_snapshot_id FROM `t$partitions`", want: []string{"{}|0|2|1|1"}},
			{query: "SELECT record_count, file_count FROM `t$partitions` AS OF 2", want: []string{"3|2"}},
			{query: "SELECT name, type, snapshot_id, author FROM `t$refs`", want: []string{"main|BRANCH|3|NULL", "before-delete|TAG|2|root"}},
			{query: "SELECT value FROM `t$properties` WHERE `key` = 'lakesql.current-snapshot-id'", want: []string{"3"}},
			{query: "SELECT COUNT(*) FROM `t$properties` WHERE `key` = 'lakesql.table-uuid' AND LENGTH(value) = 36", want: []string{"1"}},
			{query: "SELECT COUNT(*) FROM `t$offsets`", want: []string{"0"}},
			// Hidden from SHOW TABLES and information_schema.
			{query: "SHOW TABLES", want: []string{"t"}},
			{query: "SELECT table_name FROM information_schema.tables WHERE table_schema = 'd'", want: []string{"t"}},
			{query: "SELECT * FROM `t$bogus`", wantErr: "1146 not a metadata table"},
			{query: "SELECT * FROM `nope$snapshots`", wantErr: "1146 nope$snapshots"},
			{query: "SELECT * FROM `t$refs` AS OF 1", wantErr: "1235 no history"},
			{query: "SELECT * FROM `t$files` AS OF 9", wantErr: "1032 no snapshot 9"},
			{query: "INSERT INTO `t$snapshots` (snapshot_id) VALUES (9)", wantErr: "1105 support INSERT"},
		},
	},
	{
		name: "tags and rollback",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT)",
			"INSERT INTO t VALUES (1)", // 1
			"INSERT INTO t VALUES (2)", // 2
			"CALL create_tag('d.t', 'two')",
			"TRUNCATE TABLE t",         // 3
			"INSERT INTO t VALUES (3)", // 4
		},
		checks: []check{
			{query: "CALL rollback_to_snapshot('d.t', 2)", want: []string{"4|5"}},
			{query: "SELECT a FROM t", want: []string{"1", "2"}},
			{query: "SELECT snapshot_id, parent_id, operation, user_created, total_records, message FROM `t$snapshots` WHERE snapshot_id = 5", want: []string{"5|4|rollback|1|2|rollback to snapshot 2"}},
			{query: "SELECT a FROM t AS OF 4", want: []string{"3"}},
			{query: "SELECT a FROM t FOR VERSION AS OF 'two'", want: []string{"1", "2"}},
			{query: "CALL rollback_to_snapshot('d.t', 5)", want: []string{"5|5"}}, // already there: no new snapshot
			{query: "SELECT COUNT(*) FROM `t$snapshots`", want: []string{"5"}},
			{query: "CALL create_tag('d.t', 'two')", wantErr: "1231 already has a tag"},
			{query: "CALL create_tag('d.t', 'bad name')", wantErr: "1103 tag name"},
			{query: "CALL create_tag('d.t', 'main')", wantErr: "1103 branch"},
			{query: "CALL create_tag('d.t', 'old', 1)", want: []string{"old|1"}},
			{query: "CALL create_tag('d.t', 'x', 42)", wantErr: "1032 no snapshot 42"},
			{query: "SELECT name, type, snapshot_id FROM `t$refs` ORDER BY name", ordered: true, want: []string{"main|BRANCH|5", "old|TAG|1", "two|TAG|2"}},
			{query: "SELECT a FROM t AS OF 'old'", want: []string{"1"}},
			{query: "CALL drop_tag('d.t', 'old')", want: []string{"old|1"}},
			{query: "CALL drop_tag('d.t', 'old')", wantErr: "1032 no tag"},
			{query: "SELECT a FROM t AS OF 'old'", wantErr: "1032 old"},
			{query: "CALL rollback_to_snapshot('d.t', 42)", wantErr: "1032 no snapshot 42"},
			{query: "CALL rollback_to_snapshot('d.nope', 1)", wantErr: "1146 nope"},
			{query: "INSERT INTO t VALUES (9)", want: nil},
			{query: "SELECT a FROM t", want: []string{"1", "2", "9"}},
			{query: "SELECT a FROM t AS OF 5", want: []string{"1", "2"}},
		},
	},
	{
		name: "change feed",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (id INT, v VARCHAR(5))",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b')", // 1
			"INSERT INTO t VALUES (3, 'c')",           // 2
			"UPDATE t SET v = 'B' WHERE id = 2",       // 3: rewrites the first file
			"DELETE FROM t WHERE id = 1",              // 4
			"INSERT INTO t VALUES (4, 'd')",           // 5
		},
		checks: []check{
			{query: "SELECT id, v, _change_type, _commit_version FROM table_changes('d.t', 0, 5) ORDER BY _commit_version, _change_type, id", ordered: true, want: []string{
				"1|a|insert|1", "2|b|insert|1", "3|c|insert|2", "2|b|delete|3", "2|B|insert|3", "1|a|delete|4", "4|d|insert|5",
			}},
			{query: "SELECT id, v, _change_type FROM table_changes('d.t', 2, 4)", want: []string{"2|b|delete", "2|B|insert", "1|a|delete"}},
			{query: "SELECT id, _commit_version FROM table_changes('d.t', 4)", want: []string{"4|5"}},
			{query: "SELECT id FROM table_changes('t', 4, NULL)", want: []string{"4"}},
			{query: "SELECT * FROM table_changes('d.t', 5, 5)", want: nil},
			{query: "SELECT COUNT(*) FROM table_changes('d.t', 0, 5) WHERE _change_type = 'delete'", want: []string{"2"}},
			{query: "SELECT c.id FROM table_changes('d.t', 0, 5) c JOIN t ON c.id = t.id WHERE c._change_type = 'insert'", want: []string{"2", "2", "3", "4"}},
			{query: "SELECT COUNT(*) FROM table_changes('d.t', 0, 5) c JOIN `t$snapshots` s ON c._commit_version = s.snapshot_id AND c._commit_timestamp = s.committed_at", want: []string{"7"}},
			{query: "SELECT id, v FROM table_changes('d.t', '2000-01-01', 2)", want: []string{"1|a", "2|b", "3|c"}},
			{query: "SELECT * FROM table_changes('d.t', 3, 1)", wantErr: "1231 start is after the end"},
			{query: "SELECT * FROM table_changes('d.t', 0, 9)", wantErr: "1032 no snapshot 9"},
			{query: "SELECT * FROM table_changes('d.t', 0, '2999-01-01')", wantErr: "1032 in the future"},
			{query: "SELECT * FROM table_changes('d.nope', 0, 1)", wantErr: "1146 nope"},
			{query: "SELECT * FROM table_changes('d.t')", wantErr: "1231 2 or 3 arguments"},
		},
	},
	{
		name: "change feed across a truncate and after a schema change",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (id INT)",
			"INSERT INTO t VALUES (1)", // 1
			"TRUNCATE TABLE t",         // 2
			"INSERT INTO t VALUES (2)", // 3
			"ALTER TABLE t ADD COLUMN note VARCHAR(9)",
			"INSERT INTO t VALUES (3, 'new')", // 4
			"CALL rollback_to_snapshot('d.t', 1)",
		},
		checks: []check{
			{query: "SELECT * FROM table_changes('d.t', 0, 3)", wantErr: "1032 reconcile from a full scan"},
			{query: "SELECT * FROM table_changes('d.t', 1, 2)", wantErr: "1032 truncate"},
			{query: "SELECT id, note, _change_type, _commit_version FROM table_changes('d.t', 2, 4)", want: []string{"2|NULL|insert|3", "3|new|insert|4"}},
			{query: "SELECT id, note, _change_type, _commit_version FROM table_changes('d.t', 4, 5)", want: []string{"1|NULL|insert|5", "2|NULL|delete|5", "3|new|delete|5"}},
			// The schema of snapshot 3 (before ADD COLUMN) names the columns.
			{query: "SELECT note FROM table_changes('d.t', 2, 3)", wantErr: "1054 note"},
			{query: "SELECT id, _change_type FROM table_changes('d.t', 2, 3) WHERE _commit_timestamp > '2000-01-01'", want: []string{"2|insert"}},
		},
	},
	{
		name: "consumer offsets",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT)",
			"INSERT INTO t VALUES (1)",
			"INSERT INTO t VALUES (2)",
			"INSERT INTO t VALUES (3)",
			"CALL commit_offset('billing', 'd.t', 2)",
			"CALL commit_offset('search', 'd.t', 1)",
			"CALL commit_offset('billing', 'd.t', 3)",
			"CALL commit_offset('billing', 'd.t', 3)",
		},
		checks: []check{
			{query: "SELECT consumer, snapshot_id, author, snapshots_behind FROM `t$offsets`", want: []string{"billing|3|root|0", "search|1|root|2"}},
			{query: "CALL commit_offset('billing', 'd.t', 1)", wantErr: "1231 only move forward"},
			{query: "CALL commit_offset('billing', 'd.t', 7)", wantErr: "1032 no snapshot 7"},
			{query: "CALL commit_offset('bad name', 'd.t', 1)", wantErr: "1103 consumer name"},
			{query: "CALL commit_offset('billing', 'd.nope', 1)", wantErr: "1146 nope"},
			{query: "SELECT o.table_uuid = p.value FROM `t$offsets` o JOIN `t$properties` p ON p.`key` = 'lakesql.table-uuid'", want: []string{"1", "1"}},
			{query: "SELECT * FROM `t$offsets` AS OF 1", wantErr: "1235 no history"},
		},
	},
	{
		name: "a recreated table never inherits an old cursor",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT)",
			"INSERT INTO t VALUES (1)",
			"INSERT INTO t VALUES (2)",
			"CALL commit_offset('billing', 'd.t', 2)",
			"DROP TABLE t",
			"CREATE TABLE t (a INT)",
			"INSERT INTO t VALUES (7)",
			// 1 < 2 would regress the old incarnation's cursor: it is not
			// this table's.
			"CALL commit_offset('billing', 'd.t', 1)",
		},
		checks: []check{
			{query: "SELECT consumer, snapshot_id, snapshots_behind FROM `t$offsets`", want: []string{"billing|1|0"}},
			{query: "SELECT snapshot_id FROM `t$snapshots`", want: []string{"1"}},
			{query: "CALL commit_offset('billing', 'd.t', 0)", wantErr: "1231 only move forward"},
		},
	},
}

// deltaEverywhere makes every commit that can write a delta manifest do
// so, even on these scripts' tiny tables, with short chains (consolidated
// often): the scripts then run over base + delta chains.
func deltaEverywhere(cfg *engine.Config) {
	cfg.ManifestChain = catalogstore.ChainPolicy{MaxDeltas: 3, MaxPercent: 1 << 40}
}

// TestHistoryScripts runs every history script embedded and over the wire,
// and embedded over delta manifest chains.
func TestHistoryScripts(t *testing.T) {
	for _, st := range historyScripts {
		t.Run(st.name, func(t *testing.T) {
			t.Run("embedded", func(t *testing.T) {
				e := enginetest.Open(t)
				runScript(t, st.name, embedded(t, e), st)
			})
			t.Run("embedded-deltas", func(t *testing.T) {
				e := enginetest.OpenWith(t, deltaEverywhere)
				runScript(t, st.name, embedded(t, e), st)
			})
			t.Run("wire", func(t *testing.T) {
				e := enginetest.Open(t)
				h, _ := serve(t, e, "")
				runScript(t, st.name, wire(t, h), st)
			})
		})
	}
}

// TestHistoryPartitionedMetadata: `t$partitions` and `t$files` of a
// partitioned table (created through the catalog: PARTITIONED BY is ddl's).
func TestHistoryPartitionedMetadata(t *testing.T) {
	st := scriptTest{
		name: "metadata tables of a partitioned table",
		setup: []string{
			"INSERT INTO d.p VALUES (1, 'US'), (2, 'US'), (3, 'DE'), (4, NULL)",
			"INSERT INTO d.p VALUES (5, 'DE')",
		},
		checks: []check{
			{query: "SELECT `partition`, spec_id, record_count, file_count, last_updated_snapshot_id FROM d.`p$partitions`", want: []string{
				`{"country": "DE"}|0|2|2|2`, `{"country": "US"}|0|2|1|1`, `{"country": null}|0|1|1|1`,
			}},
			{query: "SELECT `partition`, record_count FROM d.`p$partitions` AS OF 1 WHERE record_count > 1", want: []string{`{"country": "US"}|2`}},
			{query: "SELECT COUNT(*), SUM(record_count) FROM d.`p$files` WHERE JSON_UNQUOTE(JSON_EXTRACT(`partition`, '$.country')) = 'DE'", want: []string{"2|2"}},
			{query: "SELECT JSON_EXTRACT(column_stats, '$.id.lower'), JSON_EXTRACT(column_stats, '$.id.upper') FROM d.`p$files` WHERE JSON_EXTRACT(`partition`, '$.country') = 'US'", want: []string{"1|2"}},
		},
	}
	for _, mode := range []string{"embedded", "wire"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.Open(t)
			cat := e.Catalog()
			if _, err := cat.CreateCollection(ctx, "main", "d", "root", catalogstore.CreateCollectionOptions{}); err != nil {
				t.Fatal(err)
			}
			s := schema.Schema{Columns: []schema.Column{
				{Name: "id", Type: schema.Type{Kind: schema.Int64}},
				{Name: "country", Type: schema.Type{Kind: schema.String}, Nullable: true},
			}}
			spec := partition.Spec{Fields: []partition.Field{{SourceID: 2, FieldID: 1000, Name: "country", Transform: partition.Identity}}}
			id := catalogstore.Ident{Workspace: "main", Collection: "d", Name: "p"}
			if _, err := cat.CreateDataset(ctx, id, s, "root", catalogstore.CreateDatasetOptions{Spec: &spec}); err != nil {
				t.Fatal(err)
			}
			run := embedded(t, e)
			if mode == "wire" {
				h, _ := serve(t, e, "")
				run = wire(t, h)
			}
			runScript(t, st.name, run, st)
		})
	}
}

// TestHistoryByTime travels by commit times read back from `t$snapshots`:
// a time selects the latest snapshot committed at or before it, at the
// microsecond precision committed_at shows.
func TestHistoryByTime(t *testing.T) {
	for _, mode := range []string{"embedded", "wire"} {
		t.Run(mode, func(t *testing.T) {
			e := enginetest.Open(t)
			run := embedded(t, e)
			if mode == "wire" {
				h, _ := serve(t, e, "")
				run = wire(t, h)
			}
			must := func(q string) []string {
				t.Helper()
				rows, err := run(q)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				return rows
			}
			expect := func(q string, want ...string) {
				t.Helper()
				if got := must(q); strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%q = %q, want %q", q, got, want)
				}
			}
			must("CREATE DATABASE d")
			must("USE d")
			must("CREATE TABLE t (a INT)")
			for i := 1; i <= 3; i++ {
				must(fmt.Sprintf("INSERT INTO t VALUES (%d)", i))
				time.Sleep(5 * time.Millisecond)
			}
			ts := must("SELECT committed_at FROM `t$snapshots` ORDER BY snapshot_id")
			if len(ts) != 3 {
				t.Fatalf("committed_at = %q", ts)
			}
			t2, err := time.Parse("2006-01-02 15:04:05.999999", ts[1])
			if err != nil {
				t.Fatal(err)
			}
			before2 := t2.Add(-time.Microsecond).Format("2006-01-02 15:04:05.999999")
			expect(fmt.Sprintf("SELECT SUM(a) FROM t FOR SYSTEM_TIME AS OF '%s'", ts[1]), "3")
			expect(fmt.Sprintf("SELECT SUM(a) FROM t FOR SYSTEM_TIME AS OF TIMESTAMP('%s')", ts[1]), "3")
			expect(fmt.Sprintf("SELECT SUM(a) FROM t AS OF '%s'", before2), "1")
			expect(fmt.Sprintf("SELECT SUM(a) FROM t AS OF CAST('%s' AS DATETIME(6))", ts[2]), "6")
			expect(fmt.Sprintf("SELECT COUNT(*) FROM `t$files` AS OF '%s'", ts[0]), "1")
			expect(fmt.Sprintf("SELECT a, _commit_version FROM table_changes('d.t', '%s', '%s')", ts[0], ts[2]), "2|2", "3|3")
			expect(fmt.Sprintf("SELECT a FROM table_changes('d.t', TIMESTAMP('%s'), TIMESTAMP('%s'))", before2, ts[1]), "2")
			// NOW() has whole seconds: once the second of the last commit
			// has passed, it selects the head. Datetimes are UTC (DESIGN.md
			// "Types"), so the session reads NOW() in UTC too.
			must("SET time_zone = '+00:00'")
			t3, err := time.Parse("2006-01-02 15:04:05.999999", ts[2])
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Until(t3.Truncate(time.Second).Add(1100 * time.Millisecond)))
			expect("SELECT SUM(a) FROM t FOR SYSTEM_TIME AS OF NOW()", "6")
			if _, err := run("SELECT SUM(a) FROM t FOR SYSTEM_TIME AS OF DATE_SUB(NOW(), INTERVAL 1 YEAR)"); err == nil || !strings.Contains(err.Error(), "before the first snapshot") {
				t.Errorf("AS OF a year ago = %v, want an error before the first snapshot", err)
			}
		})
	}
}
