package engine_test

import (
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// snaps counts the snapshots of table t (one per statement that changed
// it).
func snaps(t string) string {
	if db, name, ok := strings.Cut(t, "."); ok {
		return "SELECT COUNT(*) FROM " + db + ".`" + name + "$snapshots`"
	}
	return "SELECT COUNT(*) FROM `" + t + "$snapshots`"
}

// upsertScripts: primary keys (declared, shown, enforced), REPLACE, INSERT
// … ON DUPLICATE KEY UPDATE and UPDATE … JOIN, with MySQL's affected-row
// counts (ROW_COUNT()) and one snapshot per statement.
var upsertScripts = []scriptTest{
	{
		name: "primary key declared and shown",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
			"CREATE TABLE c (a INT, b VARCHAR(5), v INT, PRIMARY KEY (b, a))",
		},
		checks: []check{
			{query: "SHOW CREATE TABLE t", want: []string{"t|CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `v` varchar(10),\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin"}},
			{query: "SHOW CREATE TABLE c", want: []string{"c|CREATE TABLE `c` (\n  `a` int NOT NULL,\n  `b` varchar(5) NOT NULL,\n  `v` int,\n  PRIMARY KEY (`b`,`a`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin"}},
			{query: "SELECT column_name, column_key, is_nullable FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 'c' ORDER BY ordinal_position", ordered: true,
				want: []string{"a|PRI|NO", "b|PRI|NO", "v||YES"}},
			{query: "DESCRIBE t", ordered: true, want: []string{"id|int|NO|PRI|NULL|", "v|varchar(10)|YES||NULL|"}},
			{query: "INSERT INTO t VALUES (NULL, 'x')", wantErr: "1048 'id'"},
		},
	},
	{
		name: "insert refuses a duplicate key",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
			"INSERT INTO t VALUES (10, 'j'), (11, 'k')",
		},
		checks: []check{
			{query: "INSERT INTO t VALUES (2, 'again')", wantErr: "1062 Duplicate entry '2' for key 't.PRIMARY'"},
			{query: "INSERT INTO t VALUES (3, 'c'), (4, 'd'), (3, 'e')", wantErr: "1062 Duplicate entry '3' for key 't.PRIMARY'"},
			{query: "SELECT id, v FROM t", want: []string{"1|a", "2|b", "10|j", "11|k"}},
			{query: snaps("t"), want: []string{"2"}},
			{query: "INSERT IGNORE INTO t VALUES (2, 'x'), (5, 'e'), (5, 'f')", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"1"}},
			{query: "SELECT id, v FROM t", want: []string{"1|a", "2|b", "5|e", "10|j", "11|k"}},
			{query: snaps("t"), want: []string{"3"}},
			{query: "UPDATE t SET id = 11 WHERE id = 10", wantErr: "1062 Duplicate entry '11' for key 't.PRIMARY'"},
			{query: "UPDATE t SET id = id + 1 WHERE id >= 10", wantErr: "1062 Duplicate entry"},
			{query: "UPDATE t SET id = 12 WHERE id = 11", want: nil},
			{query: "UPDATE t SET id = 11 WHERE id = 10", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|a", "2|b", "5|e", "11|j", "12|k"}},
			{query: snaps("t"), want: []string{"5"}},
		},
	},
	{
		name: "replace into",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		},
		checks: []check{
			{query: "REPLACE INTO t VALUES (2, 'B'), (3, 'c')", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"3"}},
			{query: "SELECT id, v FROM t", want: []string{"1|a", "2|B", "3|c"}},
			{query: snaps("t"), want: []string{"2"}},
			{query: "REPLACE INTO t VALUES (4, 'x'), (4, 'y')", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"3"}},
			{query: "SELECT id, v FROM t", want: []string{"1|a", "2|B", "3|c", "4|y"}},
			{query: snaps("t"), want: []string{"3"}},
			{query: "REPLACE INTO t SET id = 1, v = 'set'", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"2"}},
			{query: "REPLACE INTO t (id, v) SELECT id + 2, CONCAT(v, '!') FROM t WHERE id <= 2", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|set", "2|B", "3|set!", "4|B!"}},
			{query: snaps("t"), want: []string{"5"}},
			// A failure after rows were replaced changes nothing.
			{query: "REPLACE INTO t VALUES (1, 'one'), (7, 'seven'), (NULL, 'x')", wantErr: "1048 'id'"},
			{query: "REPLACE INTO t VALUES (2, 'two'), (8, 'this is too long')", wantErr: "1406 too long"},
			{query: "SELECT id, v FROM t", want: []string{"1|set", "2|B", "3|set!", "4|B!"}},
			{query: snaps("t"), want: []string{"5"}},
		},
	},
	{
		name: "insert on duplicate key update",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), n INT)",
			"INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 1)",
		},
		checks: []check{
			{query: "INSERT INTO t VALUES (2, 'B', 1), (3, 'c', 1) ON DUPLICATE KEY UPDATE v = VALUES(v), n = n + 1", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"3"}},
			{query: "SELECT id, v, n FROM t", want: []string{"1|a|1", "2|B|2", "3|c|1"}},
			{query: snaps("t"), want: []string{"2"}},
			// Unchanged: 0 affected rows, and no snapshot.
			{query: "INSERT INTO t VALUES (1, 'a', 1) ON DUPLICATE KEY UPDATE v = VALUES(v)", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"0"}},
			{query: snaps("t"), want: []string{"2"}},
			// The 8.0 alias form, and a key updated twice in one statement.
			{query: "INSERT INTO t VALUES (3, 'x', 5), (3, 'y', 7) AS new ON DUPLICATE KEY UPDATE v = new.v, n = t.n + new.n", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"4"}},
			{query: "SELECT id, v, n FROM t", want: []string{"1|a|1", "2|B|2", "3|y|13"}},
			{query: snaps("t"), want: []string{"3"}},
			{query: "INSERT INTO t SELECT id, 'sel', 0 FROM t WHERE id < 3 ON DUPLICATE KEY UPDATE n = n * 10", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"4"}},
			{query: "SELECT id, v, n FROM t", want: []string{"1|a|10", "2|B|20", "3|y|13"}},
			// An update that moves the key onto another row's key.
			{query: "INSERT INTO t VALUES (1, 'z', 0) ON DUPLICATE KEY UPDATE id = 2", wantErr: "1062 Duplicate entry '2' for key 't.PRIMARY'"},
			// A failure after a row was inserted and one updated changes nothing.
			{query: "INSERT INTO t VALUES (9, 'new', 0), (3, 'q', 0), (1, 'z', 0) ON DUPLICATE KEY UPDATE id = id + 1", wantErr: "1062 Duplicate entry '2'"},
			{query: "SELECT id, v, n FROM t", want: []string{"1|a|10", "2|B|20", "3|y|13"}},
			{query: snaps("t"), want: []string{"4"}},
		},
	},
	{
		name: "without a primary key replace and upsert insert",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT, v VARCHAR(10))",
			"INSERT INTO t VALUES (1, 'a')",
		},
		checks: []check{
			{query: "REPLACE INTO t VALUES (1, 'b')", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"1"}},
			{query: "INSERT INTO t VALUES (1, 'c') ON DUPLICATE KEY UPDATE v = 'never'", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"1"}},
			{query: "SELECT id, v FROM t", want: []string{"1|a", "1|b", "1|c"}},
		},
	},
	{
		name: "upserts inside a transaction",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		},
		checks: []check{
			{query: "BEGIN", want: nil},
			{query: "INSERT INTO t VALUES (3, 'c')", want: nil},
			{query: "INSERT INTO t VALUES (3, 'again')", wantErr: "1062 Duplicate entry '3'"},
			{query: "REPLACE INTO t VALUES (3, 'C'), (1, 'A')", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"4"}},
			{query: "DELETE FROM t WHERE id = 2", want: nil},
			{query: "INSERT INTO t VALUES (2, 'new')", want: nil},
			{query: "INSERT INTO t VALUES (2, 'x') ON DUPLICATE KEY UPDATE v = CONCAT(v, '+')", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|A", "2|new+", "3|C"}},
			// The key index kept across statements follows IGNORE's
			// per-row statements and UPDATEs that keep the key.
			{query: "INSERT IGNORE INTO t VALUES (1, 'no'), (9, 'n'), (9, 'no')", want: nil},
			{query: "UPDATE t SET v = 'u' WHERE id = 9", want: nil},
			{query: "INSERT INTO t VALUES (9, 'q') ON DUPLICATE KEY UPDATE v = CONCAT(v, '!')", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"2"}},
			{query: "DELETE FROM t WHERE id = 9", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|A", "2|new+", "3|C"}},
			{query: "COMMIT", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|A", "2|new+", "3|C"}},
			{query: snaps("t"), want: []string{"2"}},
			{query: "BEGIN", want: nil},
			{query: "REPLACE INTO t VALUES (1, 'gone')", want: nil},
			{query: "ROLLBACK", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|A", "2|new+", "3|C"}},
			{query: snaps("t"), want: []string{"2"}},
		},
	},
	{
		name: "alter primary key",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT NOT NULL, k INT, v VARCHAR(10))",
			"INSERT INTO t VALUES (1, NULL, 'a'), (2, 1, 'b'), (3, 1, 'c')",
		},
		checks: []check{
			{query: "ALTER TABLE t ADD PRIMARY KEY (k)", wantErr: "1138 NULL"},
			{query: "UPDATE t SET k = 2 WHERE id = 1", want: nil},
			{query: "ALTER TABLE t ADD PRIMARY KEY (k)", wantErr: "1062 Duplicate entry '1'"},
			{query: "ALTER TABLE t ADD PRIMARY KEY (id)", want: nil},
			{query: "SELECT column_name, column_key FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 't' ORDER BY ordinal_position", ordered: true,
				want: []string{"id|PRI", "k|", "v|"}},
			{query: "INSERT INTO t VALUES (1, 9, 'dup')", wantErr: "1062 Duplicate entry '1'"},
			{query: "ALTER TABLE t DROP COLUMN id", wantErr: "1846 primary key"},
			{query: "ALTER TABLE t ADD PRIMARY KEY (k)", wantErr: "1068 Multiple primary keys"},
			{query: "ALTER TABLE t DROP PRIMARY KEY", want: nil},
			{query: "INSERT INTO t VALUES (1, 9, 'dup')", want: nil},
			{query: "ALTER TABLE t DROP PRIMARY KEY", wantErr: "1091"},
			{query: "SELECT COUNT(*) FROM t WHERE id = 1", want: []string{"2"}},
		},
	},
	{
		name: "update join",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE t (id INT PRIMARY KEY, v INT)",
			"CREATE TABLE k (id INT, v INT)",
			"CREATE TABLE s (id INT, w INT)",
			"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
			"INSERT INTO k VALUES (1, 10), (2, 20), (2, 20), (3, 30)",
			"INSERT INTO s VALUES (1, 100), (2, 200), (2, 201), (9, 900)",
		},
		checks: []check{
			{query: "UPDATE t JOIN s ON t.id = s.id SET t.v = t.v + 1", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"2"}},
			{query: "SELECT id, v FROM t", want: []string{"1|11", "2|21", "3|30"}},
			{query: snaps("t"), want: []string{"2"}},
			// Keyless target: each row (duplicates too) updated once.
			{query: "UPDATE k JOIN s ON k.id = s.id SET k.v = k.v + 1", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"3"}},
			{query: "SELECT id, v FROM k", want: []string{"1|11", "2|21", "2|21", "3|30"}},
			{query: snaps("k"), want: []string{"2"}},
			{query: "UPDATE t, s SET t.v = s.w WHERE t.id = s.id AND s.w = 100", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|100", "2|21", "3|30"}},
			{query: "UPDATE t LEFT JOIN s ON t.id = s.id SET t.v = 0 WHERE s.id IS NULL", want: nil},
			{query: "SELECT id, v FROM t", want: []string{"1|100", "2|21", "3|0"}},
			{query: snaps("t"), want: []string{"4"}},
			// A key collision part-way through changes nothing.
			{query: "UPDATE t JOIN s ON t.id = s.id SET t.id = t.id + 1, t.v = -1", wantErr: "1062 Duplicate entry"},
			{query: "SELECT id, v FROM t", want: []string{"1|100", "2|21", "3|0"}},
			{query: snaps("t"), want: []string{"4"}},
			// Keyless, with aliases, a comma join, a filter on both sides and
			// two columns set from the other table.
			{query: "UPDATE k AS x, s AS y SET x.v = y.w, x.id = y.id * 10 WHERE x.id = y.id AND y.w > 150 AND x.v > 0", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"2"}},
			{query: "SELECT id, v FROM k", want: []string{"1|11", "20|200", "20|200", "3|30"}},
			{query: "UPDATE k JOIN s ON k.id = s.id JOIN t ON t.id = s.id SET k.v = t.v + s.w", want: nil},
			{query: "SELECT id, v FROM k", want: []string{"1|200", "20|200", "20|200", "3|30"}},
			{query: snaps("k"), want: []string{"4"}},
			// A LEFT JOIN of a keyless target: the anti-join, and values
			// from the matching row or NULL.
			{query: "UPDATE k LEFT JOIN s ON k.id = s.id SET k.v = -1 WHERE s.id IS NULL", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"3"}},
			{query: "SELECT id, v FROM k", want: []string{"1|200", "20|-1", "20|-1", "3|-1"}},
			{query: "UPDATE k LEFT JOIN s ON k.id = s.id SET v = COALESCE(w, 7)", want: nil},
			{query: "SELECT ROW_COUNT()", want: []string{"4"}},
			{query: "SELECT id, v FROM k", want: []string{"1|100", "20|7", "20|7", "3|7"}},
			{query: snaps("k"), want: []string{"6"}},
			// Other outer joins of a keyless target stay refused, and change nothing.
			{query: "UPDATE k RIGHT JOIN s ON k.id = s.id SET k.v = 0", wantErr: "1235 keyless"},
			{query: snaps("k"), want: []string{"6"}},
		},
	},
	{
		name: "a materialized view refuses REPLACE and upserts",
		setup: []string{
			"CREATE DATABASE d", "USE d",
			"CREATE TABLE src (id INT PRIMARY KEY, v INT)",
			"INSERT INTO src VALUES (1, 10)",
			"CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM src",
		},
		checks: []check{
			{query: "REPLACE INTO mv VALUES (1, 0)", wantErr: "1288 d.mv"},
			{query: "INSERT INTO mv VALUES (1, 0) ON DUPLICATE KEY UPDATE v = 0", wantErr: "1288 d.mv"},
			{query: "UPDATE mv JOIN src ON mv.id = src.id SET mv.v = 0", wantErr: "1288 d.mv"},
			{query: "SELECT id, v FROM mv", want: []string{"1|10"}},
		},
	},
	{
		name: "egress protection sees the read set of REPLACE, upserts and UPDATE JOIN",
		setup: []string{
			"CREATE DATABASE sales",
			"CREATE TABLE sales.orders (id INT PRIMARY KEY, amount INT)",
			"INSERT INTO sales.orders VALUES (1, 100), (2, 250)",
			"CREATE WORKSPACE research",
			"USE WORKSPACE research",
			"CREATE DATABASE lab",
			"CREATE TABLE lab.m (id INT PRIMARY KEY, v INT)",
			"INSERT INTO lab.m VALUES (1, 0)",
		},
		checks: []check{
			{query: "REPLACE INTO lab.m SELECT id, amount FROM `main.sales`.orders", wantErr: "1227 egress_protection"},
			{query: "REPLACE INTO lab.m VALUES (1, (SELECT MAX(amount) FROM `main.sales`.orders))", wantErr: "1227 egress_protection"},
			{query: "INSERT INTO lab.m SELECT id, amount FROM `main.sales`.orders ON DUPLICATE KEY UPDATE v = VALUES(v)", wantErr: "1227 egress_protection"},
			{query: "INSERT INTO lab.m VALUES (1, 5) ON DUPLICATE KEY UPDATE v = (SELECT MAX(amount) FROM `main.sales`.orders)", wantErr: "1227 egress_protection"},
			{query: "UPDATE lab.m JOIN `main.sales`.orders o ON m.id = o.id SET m.v = o.amount", wantErr: "1227 egress_protection"},
			{query: "SELECT id, v FROM lab.m", want: []string{"1|0"}},
			{query: snaps("lab.m"), want: []string{"1"}},
			// Within the source's own workspace it is not egress.
			{query: "REPLACE INTO `main.sales`.orders SELECT id + 1, amount FROM `main.sales`.orders WHERE id = 2", want: nil},
			{query: "SELECT id, amount FROM `main.sales`.orders", want: []string{"1|100", "2|250", "3|250"}},
		},
	},
}

// TestUpsertScripts runs upsertScripts embedded and over the wire.
func TestUpsertScripts(t *testing.T) {
	for _, st := range upsertScripts {
		t.Run(st.name, func(t *testing.T) {
			t.Run("embedded", func(t *testing.T) {
				e := enginetest.Open(t)
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
