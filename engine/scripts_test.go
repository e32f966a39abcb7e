package engine_test

var scripts = []scriptTest{
	{
		name: "create insert select",
		setup: []string{
			"CREATE DATABASE sales",
			"CREATE TABLE sales.orders (id BIGINT PRIMARY KEY, customer VARCHAR(40), amount DECIMAL(12,2), qty INT, ok BOOLEAN, day DATE, ts DATETIME(6), note TEXT)",
			"INSERT INTO sales.orders VALUES (1, 'ada', 12.50, 3, true, '2024-01-02', '2024-01-02 10:11:12.123456', NULL), (2, 'bob', -0.25, NULL, false, '1969-07-20', '1969-07-20 20:17:40', 'moon'), (3, NULL, NULL, 7, NULL, NULL, NULL, '')",
		},
		checks: []check{
			{query: "SELECT id, customer, amount, qty, ok, day, ts, note FROM sales.orders ORDER BY id", ordered: true, want: []string{
				"1|ada|12.50|3|1|2024-01-02|2024-01-02 10:11:12.123456|NULL",
				"2|bob|-0.25|NULL|0|1969-07-20|1969-07-20 20:17:40|moon",
				"3|NULL|NULL|7|NULL|NULL|NULL|",
			}},
			{query: "SELECT COUNT(*), SUM(qty), MIN(day), MAX(amount) FROM sales.orders", want: []string{"3|10|1969-07-20|12.50"}},
			{query: "SELECT id FROM sales.orders WHERE amount > 0", want: []string{"1"}},
			{query: "SELECT id FROM sales.orders WHERE customer IS NULL", want: []string{"3"}},
			{query: "SELECT id FROM sales.orders WHERE day < '2000-01-01'", want: []string{"2"}},
			{query: "SELECT id FROM sales.orders WHERE id IN (1, 3) AND note IS NOT NULL", want: []string{"3"}},
			{query: "SELECT id FROM sales.orders WHERE id BETWEEN 2 AND 9", want: []string{"2", "3"}},
			{query: "SELECT * FROM sales.orders LIMIT 0", want: nil},
		},
	},
	{
		name: "one statement is one snapshot; failing statement commits nothing",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.t (a TINYINT, b VARCHAR(10))",
			"INSERT INTO d.t VALUES (1, 'x'), (2, 'y')",
		},
		checks: []check{
			{query: "INSERT INTO d.t VALUES (3, 'z'), (300, 'too big')", wantErr: "1264 out of range"},
			{query: "INSERT INTO d.t VALUES (4)", wantErr: "1136 number of values"},
			{query: "SELECT a, b FROM d.t", want: []string{"1|x", "2|y"}},
			{query: "SELECT COUNT(*) FROM `d`.`t`", want: []string{"2"}},
		},
	},
	{
		name: "transactions group and roll back",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT)",
			"BEGIN",
			"INSERT INTO t VALUES (1)",
			"INSERT INTO t VALUES (2)",
			"COMMIT",
			"BEGIN",
			"INSERT INTO t VALUES (3)",
			"ROLLBACK",
		},
		checks: []check{
			{query: "SELECT a FROM t", want: []string{"1", "2"}},
		},
	},
	{
		name: "ctas insert-select truncate rename",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE src (k INT, v DOUBLE)",
			"INSERT INTO src VALUES (1, 1.5), (2, 2.5), (3, NULL)",
			"CREATE TABLE cp AS SELECT k, v * 2 AS v2 FROM src WHERE k < 3",
			"INSERT INTO src SELECT k + 10, v FROM src",
			"RENAME TABLE cp TO cp2",
			"CREATE TABLE gone (x INT)",
			"INSERT INTO gone VALUES (1)",
			"TRUNCATE TABLE gone",
		},
		checks: []check{
			{query: "SELECT k, v2 FROM cp2", want: []string{"1|3", "2|5"}},
			{query: "SELECT COUNT(*) FROM src", want: []string{"6"}},
			{query: "SELECT COUNT(*) FROM gone", want: []string{"0"}},
			{query: "SELECT * FROM cp", wantErr: "1146 cp"},
			{query: "SHOW TABLES", want: []string{"cp2", "gone", "src"}},
		},
	},
	{
		name: "alter table is metadata only",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT, b VARCHAR(5))",
			"INSERT INTO t VALUES (1, 'one')",
			"ALTER TABLE t ADD COLUMN c BIGINT",
			"INSERT INTO t VALUES (2, 'two', 20)",
			"ALTER TABLE t RENAME COLUMN b TO label",
			"ALTER TABLE t DROP COLUMN a",
		},
		checks: []check{
			{query: "SELECT label, c FROM t", want: []string{"one|NULL", "two|20"}},
			{query: "SELECT a FROM t", wantErr: "1054 a"},
		},
	},
	{
		name: "update and delete rewrite files",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT, b INT)",
			"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
			"INSERT INTO t VALUES (4, 40)",
			"UPDATE t SET b = b + 1 WHERE a >= 3",
			"DELETE FROM t WHERE a = 1",
		},
		checks: []check{
			{query: "SELECT a, b FROM t", want: []string{"2|20", "3|31", "4|41"}},
		},
	},
	{
		name: "views live in the catalog",
		setup: []string{
			"CREATE DATABASE d",
			"USE d",
			"CREATE TABLE t (a INT)",
			"INSERT INTO t VALUES (1), (2), (3)",
			"CREATE VIEW big AS SELECT a FROM t WHERE a > 1",
			"CREATE OR REPLACE VIEW big AS SELECT a FROM t WHERE a > 2",
		},
		checks: []check{
			{query: "SELECT a FROM big", want: []string{"3"}},
			{query: "SHOW FULL TABLES", want: []string{"big|VIEW", "t|BASE TABLE"}},
			{query: "DROP VIEW big", want: nil},
			{query: "SELECT a FROM big", wantErr: "1146 big"},
		},
	},
	{
		name: "workspaces",
		setup: []string{
			"CREATE WORKSPACE research",
			"CREATE DATABASE c1",
			"USE WORKSPACE research",
			"CREATE DATABASE c2",
			"CREATE TABLE c2.t (x INT)",
			"INSERT INTO c2.t VALUES (7)",
			"USE WORKSPACE main",
		},
		checks: []check{
			{query: "SHOW DATABASES", want: []string{"c1", "information_schema", "mysql"}},
			{query: "SELECT x FROM `research.c2`.t", want: []string{"7"}},
			{query: "USE WORKSPACE nowhere", wantErr: "1049 nowhere"},
			{query: "DROP WORKSPACE research", wantErr: "1227 deletion protection"},
			{query: "ALTER WORKSPACE research SET egress_protection TO maybe", wantErr: "1064 maybe"},
			{query: "CREATE TABLE c1.bad (x ENUM('a','b'))", wantErr: "1235 enum"},
			{query: "CREATE TABLE c1.p (x INT) PARTITION BY HASH(x) PARTITIONS 4", wantErr: "1235 PARTITIONED BY"},
		},
	},
	{
		name: "client probes answer from the catalog",
		setup: []string{
			"CREATE DATABASE d",
			"CREATE TABLE d.t (a INT, b VARCHAR(20))",
		},
		checks: []check{
			{query: "SELECT @@version_comment", want: []string{"lakesql"}},
			{query: "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'd'", want: []string{"t|BASE TABLE"}},
			{query: "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 't' ORDER BY ordinal_position", ordered: true, want: []string{"a|int", "b|varchar"}},
			{query: "SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'd'", want: []string{"d"}},
		},
	},
}
