package engine_test

import (
	"testing"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// temporalScript: DATETIME(n) and TIMESTAMP(n) print n fractional
// digits, zero or not, as MySQL 8 does; TIME is named time.
var temporalScript = scriptTest{
	name: "temporal formatting",
	setup: []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.t (id INT, dt DATETIME, dt3 DATETIME(3), dt6 DATETIME(6), tm TIME)",
		"CREATE TABLE d.ts (id INT, ts TIMESTAMP, ts3 TIMESTAMP(3), ts6 TIMESTAMP(6))",
		"INSERT INTO d.ts VALUES (1, '2024-01-01 00:00:00', '2024-01-01 00:00:00.5', '2024-01-01 00:00:00'), (2, NULL, NULL, NULL)",
		"INSERT INTO d.t VALUES (1, '2024-01-01 00:00:00', '2024-01-01 10:00:00.5', '2024-01-01 00:00:00', '01:02:03')," +
			" (2, '2024-01-01 12:34:56', '2024-01-01 10:00:00.123', '2024-01-01 00:00:00.000001', '-838:59:59'), (3, NULL, NULL, NULL, NULL)",
	},
	checks: []check{
		{query: "SELECT id, dt, dt3, dt6, tm FROM d.t ORDER BY id", ordered: true, want: []string{
			"1|2024-01-01 00:00:00|2024-01-01 10:00:00.500|2024-01-01 00:00:00.000000|01:02:03",
			"2|2024-01-01 12:34:56|2024-01-01 10:00:00.123|2024-01-01 00:00:00.000001|-838:59:59",
			"3|NULL|NULL|NULL|NULL",
		}},
		{query: "SELECT MAX(dt6), MIN(dt3) FROM d.t", want: []string{"2024-01-01 00:00:00.000001|2024-01-01 10:00:00.123"}},
		{query: "SELECT x FROM (SELECT dt6 AS x FROM d.t WHERE id = 1) s", want: []string{"2024-01-01 00:00:00.000000"}},
		{query: "SELECT id, ts, ts3, ts6 FROM d.ts", want: []string{"1|2024-01-01 00:00:00|2024-01-01 00:00:00.500|2024-01-01 00:00:00.000000", "2|NULL|NULL|NULL"}},
		{query: "SELECT MAX(ts6) AS m FROM d.ts", want: []string{"2024-01-01 00:00:00.000000"}},
		// TIME is named as declared, not GMS's "time(6)".
		{query: "DESCRIBE d.t", want: []string{"id|int|YES||NULL|", "dt|datetime|YES||NULL|", "dt3|datetime(3)|YES||NULL|", "dt6|datetime(6)|YES||NULL|", "tm|time|YES||NULL|"}},
		// information_schema.columns too (GMS: time(6), precision 6), and
		// DATETIME(n)/TIMESTAMP(n) with their declared precision.
		{query: "SELECT table_name, column_name, data_type, column_type, datetime_precision FROM information_schema.columns WHERE table_schema = 'd' AND data_type IN ('time', 'datetime', 'timestamp')", want: []string{
			"t|dt|datetime|datetime|0", "t|dt3|datetime|datetime(3)|3", "t|dt6|datetime|datetime(6)|6", "t|tm|time|time|0",
			"ts|ts|timestamp|timestamp|0", "ts|ts3|timestamp|timestamp(3)|3", "ts|ts6|timestamp|timestamp(6)|6",
		}},
		{query: "SHOW COLUMNS FROM d.ts", want: []string{"id|int|YES||NULL|", "ts|timestamp|YES||NULL|", "ts3|timestamp(3)|YES||NULL|", "ts6|timestamp(6)|YES||NULL|"}},
		{query: "SHOW CREATE TABLE d.t", want: []string{"t|CREATE TABLE `t` (\n  `id` int,\n  `dt` datetime,\n  `dt3` datetime(3),\n  `dt6` datetime(6),\n  `tm` time\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin"}},
	},
}

func TestTemporalFormatting(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runScript(t, temporalScript.name, embedded(t, enginetest.Open(t)), temporalScript)
	})
	t.Run("wire", func(t *testing.T) {
		h, _ := serve(t, enginetest.Open(t), "")
		runScript(t, temporalScript.name, wire(t, h), temporalScript)
		// The binary protocol: the driver formats the microseconds by the
		// column's declared precision.
		var dt3, dt6, ts3, ts6 string
		if err := h.QueryRow("SELECT dt3, dt6 FROM d.t WHERE id = ?", 1).Scan(&dt3, &dt6); err != nil {
			t.Fatal(err)
		}
		if err := h.QueryRow("SELECT ts3, ts6 FROM d.ts WHERE id = ?", 1).Scan(&ts3, &ts6); err != nil {
			t.Fatal(err)
		}
		if dt3 != "2024-01-01 10:00:00.500" || dt6 != "2024-01-01 00:00:00.000000" || ts3 != "2024-01-01 00:00:00.500" || ts6 != "2024-01-01 00:00:00.000000" {
			t.Errorf("binary protocol: %q, %q, %q, %q", dt3, dt6, ts3, ts6)
		}
	})
}
