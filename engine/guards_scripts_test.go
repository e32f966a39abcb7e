package engine_test

import (
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// guardScripts are the governance guards that a statement's kind must not
// walk around (issue 17): writes to materialized views, schema changes
// under a view's feet, egress through any writing statement. Each refusal
// is followed by a check that nothing changed.
var guardScripts = []scriptTest{
	{
		name: "a materialized view refuses every user write, naming the view",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE src (k INT, v INT)",
			"INSERT INTO src VALUES (1, 10), (2, 20)",
			"CREATE MATERIALIZED VIEW mv AS SELECT k, v FROM src",
		},
		checks: []check{
			{query: "INSERT INTO mv VALUES (3, 30)", wantErr: "1288 d.mv is a materialized view"},
			{query: "INSERT INTO mv SELECT k, v FROM src WHERE k > 100", wantErr: "1288 d.mv"},
			{query: "UPDATE mv SET v = 0", wantErr: "1288 d.mv"},
			{query: "DELETE FROM mv WHERE k = 1", wantErr: "1288 d.mv"},
			{query: "TRUNCATE mv", wantErr: "1288 d.mv"},
			{query: "ALTER TABLE mv ADD COLUMN z INT", wantErr: "1288 d.mv"},
			{query: "ALTER TABLE mv DROP COLUMN v", wantErr: "1288 d.mv"},
			{query: "SELECT k, v FROM mv", want: []string{"1|10", "2|20"}},
			{query: "SELECT COUNT(*) FROM `mv$snapshots`", want: []string{"1"}},
			// The refresh still works: the view kept its shape.
			{query: "INSERT INTO src VALUES (3, 30)", want: nil},
			{query: "SELECT k, v FROM mv", want: []string{"1|10", "2|20", "3|30"}},
		},
	},
	{
		name: "a view's source cannot lose, rename or retype a column the view reads",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE src (k INT, n INT, spare INT)",
			"INSERT INTO src VALUES (1, 10, 0)",
			"CREATE MATERIALIZED VIEW mv AS SELECT k, SUM(n) AS s FROM src GROUP BY k",
		},
		checks: []check{
			{query: "ALTER TABLE src DROP COLUMN n", wantErr: "1846 materialized view d.mv reads column"},
			{query: "ALTER TABLE src RENAME COLUMN n TO m", wantErr: "1846 d.mv"},
			{query: "ALTER TABLE src MODIFY COLUMN n BIGINT", wantErr: "1846 d.mv"},
			{query: "SELECT k, n FROM src", want: []string{"1|10"}},
			// A column the view does not read, and a new one, are free.
			{query: "ALTER TABLE src DROP COLUMN spare", want: nil},
			{query: "ALTER TABLE src ADD COLUMN extra INT", want: nil},
			{query: "INSERT INTO src VALUES (1, 5, 9)", want: nil},
			{query: "SELECT k, s FROM mv", want: []string{"1|15"}},
		},
	},
	{
		name: "egress protection sees the read set of every writing statement",
		setup: []string{
			"CREATE DATABASE sales",
			"CREATE TABLE sales.orders (id INT, amount INT)",
			"INSERT INTO sales.orders VALUES (1, 100), (2, 250)",
			"CREATE WORKSPACE research",
			"USE WORKSPACE research",
			"CREATE DATABASE lab",
			"CREATE TABLE lab.m (id INT, v INT)",
			"INSERT INTO lab.m VALUES (1, 0)",
		},
		checks: []check{
			{query: "UPDATE lab.m SET v = (SELECT MAX(amount) FROM `main.sales`.orders)", wantErr: "1227 egress_protection"},
			{query: "UPDATE lab.m SET v = 1 WHERE id IN (SELECT id FROM `main.sales`.orders)", wantErr: "1227 main.sales.orders"},
			{query: "DELETE FROM lab.m WHERE EXISTS (SELECT 1 FROM `main.sales`.orders WHERE amount > 200)", wantErr: "1227 egress_protection"},
			{query: "INSERT INTO lab.m SELECT id, amount FROM `main.sales`.orders", wantErr: "1227 egress_protection"},
			{query: "INSERT INTO lab.m VALUES (5, 5) ON DUPLICATE KEY UPDATE v = (SELECT MAX(amount) FROM `main.sales`.orders)", wantErr: "1227 egress_protection"},
			{query: "CREATE TABLE lab.cp AS SELECT * FROM `main.sales`.orders", wantErr: "1227 egress_protection"},
			{query: "SELECT id, v FROM lab.m", want: []string{"1|0"}},
			{query: "SHOW TABLES FROM lab", want: []string{"m"}},
			// Reading is not egress, and writing back into the source's own
			// workspace is not either.
			{query: "SELECT MAX(amount) FROM `main.sales`.orders", want: []string{"250"}},
			{query: "UPDATE `main.sales`.orders SET amount = amount + 1 WHERE amount < (SELECT MAX(amount) + 1 FROM `main.sales`.orders)", want: nil},
			{query: "SELECT amount FROM `main.sales`.orders", want: []string{"101", "251"}},
			{query: "UPDATE lab.m SET v = (SELECT MAX(v) FROM lab.m) + 1", want: nil},
			{query: "SELECT id, v FROM lab.m", want: []string{"1|1"}},
		},
	},
}

// alterScripts: ALTER and CTAS are all or nothing, and column defaults
// are kept and used (issue 17).
var alterScripts = []scriptTest{
	{
		name: "ADD COLUMN with a DEFAULT on a table with rows: old rows read the default, time travel the old schema",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.dd (a INT)",
			"INSERT INTO d.dd VALUES (1)",
			"ALTER TABLE d.dd ADD COLUMN b INT DEFAULT 7",
			"INSERT INTO d.dd (a) VALUES (2)",
		},
		checks: []check{
			{query: "SELECT a, b FROM d.dd", want: []string{"1|7", "2|7"}},
			{query: "SELECT * FROM d.dd AS OF 1", want: []string{"1"}},
			{query: "SELECT COUNT(*) FROM d.dd WHERE b = 7", want: []string{"2"}},
			{query: "SELECT operation FROM `d`.`dd$snapshots` ORDER BY snapshot_id", ordered: true, want: []string{"append", "overwrite", "append"}},
			{query: "SHOW CREATE TABLE d.dd", want: []string{"dd|CREATE TABLE `dd` (\n  `a` int,\n  `b` int DEFAULT '7'\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin"}},
		},
	},
	{
		name: "CREATE TABLE defaults are stored and used by INSERT; ADD COLUMN DEFAULT on an empty table keeps it",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.t (a INT DEFAULT 5, s VARCHAR(10) DEFAULT 'none', b INT)",
			"INSERT INTO d.t (b) VALUES (1)",
			"CREATE TABLE d.e (a INT)",
			"ALTER TABLE d.e ADD COLUMN c INT DEFAULT 3",
			"INSERT INTO d.e (a) VALUES (1)",
		},
		checks: []check{
			{query: "SELECT a, s, b FROM d.t", want: []string{"5|none|1"}},
			{query: "SELECT a, c FROM d.e", want: []string{"1|3"}},
		},
	},
	{
		name: "MODIFY that the data cannot honour is refused and changes nothing; one it can is applied",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.m (x INT, label VARCHAR(20))",
			"INSERT INTO d.m VALUES (1, 'fourteen chars'), (NULL, 'ab')",
		},
		checks: []check{
			{query: "ALTER TABLE d.m MODIFY label VARCHAR(2)", wantErr: "1265 column 'label'"},
			{query: "ALTER TABLE d.m MODIFY x INT NOT NULL", wantErr: "1138 x"},
			{query: "SELECT x, label FROM d.m", want: []string{"1|fourteen chars", "NULL|ab"}},
			{query: "SELECT COUNT(*) FROM `d`.`m$snapshots`", want: []string{"1"}},
			{query: "ALTER TABLE d.m MODIFY label VARCHAR(14) NOT NULL", want: nil},
			{query: "INSERT INTO d.m VALUES (3, NULL)", wantErr: "1048 label"},
			{query: "SELECT x, label FROM d.m", want: []string{"1|fourteen chars", "NULL|ab"}},
		},
	},
	{
		name: "a failed ALTER leaves no column behind",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.f (a INT)",
			"INSERT INTO d.f VALUES (1)",
		},
		checks: []check{
			{query: "ALTER TABLE d.f ADD COLUMN b INT DEFAULT 'x'", wantErr: "1366 default"},
			{query: "SELECT * FROM d.f", want: []string{"1"}},
		},
	},
	{
		name: "a failed CREATE TABLE … AS SELECT leaves no table",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.src (a INT)",
			"INSERT INTO d.src VALUES (1)",
		},
		checks: []check{
			{query: "CREATE TABLE d.c AS SELECT a, JSON_EXTRACT('{bad', '$') AS j FROM d.src", wantErr: "3141 JSON"},
			{query: "SHOW TABLES FROM d", want: []string{"src"}},
			{query: "CREATE TABLE d.c AS SELECT a FROM d.src", want: nil},
			{query: "SELECT a FROM d.c", want: []string{"1"}},
		},
	},
}

// TestGuardScripts runs guardScripts and alterScripts embedded and over
// the wire.
func TestGuardScripts(t *testing.T) {
	for _, st := range append(append([]scriptTest(nil), guardScripts...), alterScripts...) {
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
