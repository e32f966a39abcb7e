package engine_test

import (
	"strings"
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// TestClientProbes replays over the wire what real clients send on connect
// and while browsing schemas, and checks each answer.
func TestClientProbes(t *testing.T) {
	e := enginetest.Open(t)
	h, _ := serve(t, e, "")
	run := wire(t, h)
	for _, q := range []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.t (id BIGINT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10,2), ts DATETIME(6))",
		"INSERT INTO d.t VALUES (1, 'a', 1.50, '2024-01-01 00:00:00')",
		"CREATE VIEW d.v AS SELECT id FROM d.t",
		"USE d",
	} {
		if _, err := run(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	probes := []struct {
		client, query string
		want          func(rows []string) bool
	}{
		{"mysql CLI", "select @@version_comment limit 1", eq("lakesql")},
		{"mysql CLI", "SELECT DATABASE(), USER()", prefix("d|root")},
		{"mysql CLI", "SHOW DATABASES", contains("d")},
		{"mysql CLI", "SHOW TABLES", all("t", "v")},
		{"mysql CLI", "SELECT * FROM t LIMIT 0", empty},
		{"mysql CLI", "SELECT * FROM v LIMIT 0", empty},
		{"SQLAlchemy", "SHOW FULL TABLES FROM d", all("t|BASE TABLE", "v|VIEW")},
		{"SQLAlchemy", "SHOW CREATE TABLE d.t", func(r []string) bool {
			return len(r) == 1 && strings.Contains(r[0], "CREATE TABLE `t`") && strings.Contains(r[0], "`amount` decimal(10,2)") && strings.Contains(r[0], "varchar(20)")
		}},
		{"SQLAlchemy", "SELECT @@sql_mode", nonEmpty},
		{"SQLAlchemy", "SHOW VARIABLES LIKE 'lower_case_table_names'", prefix("lower_case_table_names|")},
		{"SQLAlchemy", "SELECT CAST('test plain returns' AS CHAR(60)) AS anon_1", eq("test plain returns")},
		{"SQLAlchemy", "SELECT @@transaction_isolation", nonEmpty},
		{"Connector/J", "SELECT COLUMN_NAME, DATA_TYPE, IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION",
			ordered("id|bigint|NO|PRI", "name|varchar|YES|", "amount|decimal|YES|", "ts|datetime|YES|")},
		{"DBeaver", "SELECT * FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd'", anyRows},
		{"DBeaver", "SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'd'", anyRows},
		{"DBeaver", "SELECT * FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'd'", empty},
		{"DBeaver", "SELECT * FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'd'", empty},
		{"DBeaver", "SHOW FULL TRIGGERS FROM d", empty},
		{"Metabase", "SHOW GRANTS FOR CURRENT_USER()", func(r []string) bool { return len(r) > 0 && strings.Contains(r[0], "GRANT") }},
		{"Metabase", "SELECT @@GLOBAL.time_zone, @@SESSION.time_zone", nonEmpty},
		{"Metabase", "SELECT c.table_name, c.column_name, c.data_type, c.ordinal_position FROM information_schema.columns c WHERE c.table_schema IN ('d') AND c.table_name = 't' ORDER BY c.ordinal_position",
			ordered("t|id|bigint|1", "t|name|varchar|2", "t|amount|decimal|3", "t|ts|datetime|4")},
		{"Grafana", "SELECT DATABASE()", eq("d")},
		{"Grafana", "SELECT table_name FROM information_schema.tables WHERE table_schema = 'd' ORDER BY table_name", ordered("t", "v")},
		{"Grafana", "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 't' ORDER BY column_name", ordered("amount|decimal", "id|bigint", "name|varchar", "ts|datetime")},
		{"information_schema", "SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'd'", eq("d")},
		{"information_schema", "SELECT table_name, view_definition FROM information_schema.views WHERE table_schema = 'd'", prefix("v|")},
		{"SHOW TABLE STATUS", "SHOW TABLE STATUS FROM d WHERE Name = 't'", prefix("t|")},
	}
	for _, p := range probes {
		rows, err := run(p.query)
		if err != nil {
			t.Errorf("%s: %q: %v", p.client, p.query, err)
			continue
		}
		if !p.want(rows) {
			t.Errorf("%s: %q answered %q", p.client, p.query, rows)
		}
	}
	// Tableau tries temporary tables: they work, or fail with a clean
	// error that leaves the server usable.
	if _, err := run("CREATE TEMPORARY TABLE tmp1 (x INT)"); err != nil && !strings.Contains(err.Error(), "Error ") {
		t.Errorf("CREATE TEMPORARY TABLE failed uncleanly: %v", err)
	}
	if rows, err := run("SELECT 1"); err != nil || len(rows) != 1 {
		t.Fatalf("server unusable after the temporary table probe: %v %v", rows, err)
	}
}

func eq(want string) func([]string) bool {
	return func(r []string) bool { return len(r) == 1 && r[0] == want }
}
func prefix(p string) func([]string) bool {
	return func(r []string) bool { return len(r) >= 1 && strings.HasPrefix(r[0], p) }
}
func contains(want string) func([]string) bool {
	return func(r []string) bool {
		for _, x := range r {
			if x == want {
				return true
			}
		}
		return false
	}
}
func all(want ...string) func([]string) bool {
	return func(r []string) bool {
		for _, w := range want {
			if !contains(w)(r) {
				return false
			}
		}
		return true
	}
}
func ordered(want ...string) func([]string) bool {
	return func(r []string) bool { return strings.Join(r, "\n") == strings.Join(want, "\n") }
}
func nonEmpty(r []string) bool { return len(r) > 0 && r[0] != "" }
func empty(r []string) bool    { return len(r) == 0 }
func anyRows([]string) bool    { return true }
