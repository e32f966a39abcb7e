package engine_test

import (
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// mvScripts exercise materialized views, triggers and the workspace guards
// through SQL. TestMVScripts runs them embedded and over the wire with the
// inline job queue, so a refresh has run when the firing statement
// returns.
var mvScripts = []scriptTest{
	{
		name: "materialized view is created as CTAS and refreshed by a commit on its source",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE src (k INT, v INT)",
			"INSERT INTO src VALUES (1, 10), (2, 20)",
			"CREATE MATERIALIZED VIEW d.mv COMMENT 'sums by k' AS SELECT k, SUM(v) AS s FROM src GROUP BY k",
			"INSERT INTO src VALUES (1, 5)",
		},
		checks: []check{
			{query: "SELECT k, s FROM mv", want: []string{"1|15", "2|20"}},
			{query: "SELECT COUNT(*) FROM mv WHERE s > 16", want: []string{"1"}},
			{query: "SELECT operation FROM `mv$snapshots` ORDER BY snapshot_id", ordered: true, want: []string{"append", "truncate-and-add-files"}},
			{query: "SHOW TABLES", want: []string{"mv", "src"}},
			{query: "SELECT status, `trigger` FROM `mv$refreshes` ORDER BY refreshed_at", ordered: true, want: []string{"ok|create", "ok|refresh__d__mv"}},
		},
	},
	{
		name: "a view over two sources refreshes on a commit to either",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE DATABASE mart",
			"CREATE TABLE d.a (x INT)",
			"CREATE TABLE d.b (x INT)",
			"INSERT INTO d.a VALUES (1)",
			"INSERT INTO d.b VALUES (2)",
			"CREATE MATERIALIZED VIEW mart.ab AS SELECT a.x AS ax, b.x AS bx FROM d.a a, d.b b",
			"CREATE MATERIALIZED VIEW IF NOT EXISTS mart.ab AS SELECT 1 AS one FROM d.a",
		},
		checks: []check{
			{query: "SELECT ax, bx FROM mart.ab", want: []string{"1|2"}},
			{query: "INSERT INTO d.b VALUES (3)", want: nil},
			{query: "SELECT ax, bx FROM mart.ab", want: []string{"1|2", "1|3"}},
			{query: "INSERT INTO d.a VALUES (4)", want: nil},
			{query: "SELECT ax, bx FROM mart.ab", want: []string{"1|2", "1|3", "4|2", "4|3"}},
		},
	},
	{
		name: "materialized view rules",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE src (k INT, v INT)",
			"INSERT INTO src VALUES (1, 10)",
			"CREATE MATERIALIZED VIEW mv AS SELECT k, v FROM src",
		},
		checks: []check{
			{query: "CREATE MATERIALIZED VIEW mv2 AS SELECT k FROM mv", wantErr: "1235 do not stack"},
			{query: "CREATE MATERIALIZED VIEW mv3 AS SELECT k FROM nowhere", wantErr: "1146 nowhere"},
			{query: "CREATE MATERIALIZED VIEW mv AS SELECT k FROM src", wantErr: "1050 mv"},
			{query: "CREATE MATERIALIZED VIEW src AS SELECT 1 AS one FROM mv", wantErr: "1050 src"},
			{query: "CREATE OR REPLACE MATERIALIZED VIEW src AS SELECT k FROM src", wantErr: "1050 is a table"},
			{query: "CREATE MATERIALIZED VIEW m4 AS SELECT 1 AS one", wantErr: "1235 at least one dataset"},
			{query: "CREATE MATERIALIZED VIEW m5 AS INSERT INTO src VALUES (1, 1)", wantErr: "1064 SELECT"},
			{query: "RENAME TABLE mv TO mv9", wantErr: "1235 drop and recreate"},
			{query: "RENAME TABLE src TO src9", wantErr: "1235 refresh triggers"},
			{query: "DROP TABLE src", wantErr: "1235 materialized view d.mv"},
			{query: "DROP MATERIALIZED VIEW src", wantErr: "1347 src"},
			{query: "REFRESH MATERIALIZED VIEW src", wantErr: "1347 src"},
			{query: "SHOW TABLES", want: []string{"mv", "src"}},
			{query: "DROP MATERIALIZED VIEW IF EXISTS nothing", want: nil},
			{query: "DROP MATERIALIZED VIEW nothing", wantErr: "1146 nothing"},
			{query: "DROP TABLE mv", want: nil},
			{query: "SHOW TRIGGERS FOR d.src", want: nil},
			{query: "DROP TABLE src", want: nil},
			{query: "SHOW TABLES", want: nil},
		},
	},
	{
		name: "a failed CREATE MATERIALIZED VIEW leaves nothing",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE src (k INT, s VARCHAR(10))",
			"INSERT INTO src VALUES (1, '['), (2, 'x')",
		},
		checks: []check{
			{query: "CREATE MATERIALIZED VIEW bad AS SELECT JSON_EXTRACT('{\"a\":1}', CONCAT('$', s)) AS j FROM src", wantErr: "1105 Invalid JSON path"},
			{query: "SHOW TABLES", want: []string{"src"}},
			{query: "SHOW TRIGGERS FOR src", want: nil},
			{query: "RENAME TABLE src TO src2", want: nil},
		},
	},
	{
		name: "drop materialized view removes its triggers; replace keeps the statement history",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT)",
			"INSERT INTO t VALUES (1), (2), (3)",
			"CREATE MATERIALIZED VIEW big AS SELECT a FROM t WHERE a > 1",
			"CREATE OR REPLACE MATERIALIZED VIEW big AS SELECT a FROM t WHERE a > 2",
		},
		checks: []check{
			{query: "SELECT a FROM big", want: []string{"3"}},
			{query: "INSERT INTO t VALUES (4)", want: nil},
			{query: "SELECT a FROM big", want: []string{"3", "4"}},
			{query: "DROP MATERIALIZED VIEW big", want: nil},
			{query: "SELECT a FROM big", wantErr: "1146 big"},
			{query: "SHOW TRIGGERS FOR t", want: nil},
			{query: "INSERT INTO t VALUES (5)", want: nil},
			{query: "SELECT COUNT(*) FROM t", want: []string{"5"}},
		},
	},
	{
		name: "refresh materialized view is one truncate-and-add-files commit",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT)",
			"INSERT INTO t VALUES (1), (2)",
			"CREATE MATERIALIZED VIEW c AS SELECT COUNT(*) AS n FROM t",
			"REFRESH MATERIALIZED VIEW c",
			"REFRESH MATERIALIZED VIEW d.c",
		},
		checks: []check{
			{query: "SELECT n FROM c", want: []string{"2"}},
			{query: "SELECT operation, added_records, deleted_records, total_records FROM `c$snapshots` ORDER BY snapshot_id", ordered: true, want: []string{
				"append|1|0|1", "truncate-and-add-files|1|1|1", "truncate-and-add-files|1|1|1",
			}},
		},
	},
	{
		name: "egress protection: CTAS, INSERT SELECT and materialized views across workspaces",
		setup: []string{
			"CREATE WORKSPACE other",
			"USE WORKSPACE other",
			"CREATE DATABASE raw",
			"CREATE TABLE raw.events (id INT, kind VARCHAR(10))",
			"INSERT INTO raw.events VALUES (1, 'a'), (2, 'b')",
			"CREATE TABLE raw.dup AS SELECT * FROM raw.events",
			"USE WORKSPACE main",
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (id INT, kind VARCHAR(10))",
			"CREATE TABLE local AS SELECT * FROM t",
		},
		checks: []check{
			{query: "SELECT COUNT(*) FROM `other.raw`.events", want: []string{"2"}},
			{query: "CREATE TABLE cp AS SELECT * FROM `other.raw`.events", wantErr: "1227 ALTER WORKSPACE other SET egress_protection TO OFF"},
			{query: "INSERT INTO t SELECT * FROM `other.raw`.events", wantErr: "1227 ALTER WORKSPACE other SET egress_protection TO OFF"},
			{query: "INSERT INTO t SELECT e.id, e.kind FROM t x JOIN `other.raw`.events e ON x.id = e.id", wantErr: "1227 other.raw.events"},
			{query: "CREATE MATERIALIZED VIEW m AS SELECT id FROM `other.raw`.events", wantErr: "1227 ALTER WORKSPACE other SET egress_protection TO OFF"},
			{query: "SHOW TABLES", want: []string{"local", "t"}},
			{query: "SELECT COUNT(*) FROM t", want: []string{"0"}},
			{query: "SELECT COUNT(*) FROM `other.raw`.dup", want: []string{"2"}},
			{query: "ALTER WORKSPACE other SET egress_protection TO OFF", want: nil},
			{query: "CREATE TABLE cp AS SELECT * FROM `other.raw`.events", want: nil},
			{query: "INSERT INTO t SELECT * FROM `other.raw`.events", want: nil},
			{query: "CREATE MATERIALIZED VIEW m AS SELECT COUNT(*) AS n FROM `other.raw`.events", want: nil},
			{query: "SELECT n FROM m", want: []string{"2"}},
			{query: "SELECT COUNT(*) FROM cp", want: []string{"2"}},
		},
	},
	{
		name: "deletion protection: two steps, materialized views first",
		setup: []string{
			"CREATE WORKSPACE w2",
			"USE WORKSPACE w2",
			"CREATE DATABASE a",
			"CREATE DATABASE z",
			"CREATE TABLE a.src (x INT)",
			"INSERT INTO a.src VALUES (1)",
			"CREATE MATERIALIZED VIEW z.mv AS SELECT x FROM a.src",
			"CREATE MATERIALIZED VIEW a.mv AS SELECT COUNT(*) AS n FROM a.src",
			"USE WORKSPACE main",
		},
		checks: []check{
			{query: "DROP WORKSPACE w2", wantErr: "1227 deletion_protection TO OFF"},
			{query: "SELECT x FROM `w2.z`.mv", want: []string{"1"}},
			{query: "ALTER WORKSPACE w2 SET deletion_protection TO OFF", want: nil},
			{query: "DROP WORKSPACE w2", wantErr: "1010 CASCADE"},
			{query: "SELECT x FROM `w2.z`.mv", want: []string{"1"}},
			{query: "DROP WORKSPACE w2 CASCADE", want: nil},
			{query: "SELECT x FROM `w2.z`.mv", wantErr: "1049 w2"},
			{query: "USE WORKSPACE w2", wantErr: "1049 w2"},
		},
	},
}

// TestMVScripts runs mvScripts embedded and over the wire.
func TestMVScripts(t *testing.T) {
	for _, st := range mvScripts {
		t.Run(st.name, func(t *testing.T) {
			t.Run("embedded", func(t *testing.T) {
				e := enginetest.Open(t)
				e.UseInlineJobs()
				runScript(t, st.name, embedded(t, e), st)
			})
			t.Run("wire", func(t *testing.T) {
				e := enginetest.Open(t)
				e.UseInlineJobs()
				h, _ := serve(t, e, "")
				runScript(t, st.name, wire(t, h), st)
			})
		})
	}
}
