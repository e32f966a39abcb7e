package engine_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lakesql/lakesql/engine/enginetest"
)

// timeZoneScript: TIMESTAMP values are stored in UTC and shown in the
// session's time_zone, DATETIME values never move (MySQL 8). Rows are
// written under +02:00 in three statements (three files, so pruning by
// the files' UTC bounds would drop rows if it compared them with the
// session's literals), then read under +02:00, UTC and a named zone.
var timeZoneScript = scriptTest{
	name: "time_zone",
	setup: []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.e (id INT, ts TIMESTAMP, ts3 TIMESTAMP(3), dt DATETIME)",
		"SET time_zone = '+02:00'",
		"INSERT INTO d.e VALUES (1, '2024-01-01 00:30:00', '2024-01-01 00:30:00.250', '2024-01-01 00:30:00'), (2, '2024-01-01 01:30:00', NULL, '2024-01-01 01:30:00')",
		"INSERT INTO d.e VALUES (3, '2024-06-01 12:00:00', '2024-06-01 12:00:00.500', '2024-06-01 12:00:00'), (4, NULL, NULL, NULL)",
		"INSERT INTO d.e VALUES (5, '2024-07-01 02:00:00', '2024-07-01 02:00:00.000', '2024-07-01 02:00:00')",
	},
	checks: []check{
		{query: "SELECT @@time_zone, @@session.time_zone", want: []string{"+02:00|+02:00"}},
		{query: "SELECT id, ts, ts3, dt FROM d.e ORDER BY id", ordered: true, want: []string{
			"1|2024-01-01 00:30:00|2024-01-01 00:30:00.250|2024-01-01 00:30:00",
			"2|2024-01-01 01:30:00|NULL|2024-01-01 01:30:00",
			"3|2024-06-01 12:00:00|2024-06-01 12:00:00.500|2024-06-01 12:00:00",
			"4|NULL|NULL|NULL",
			"5|2024-07-01 02:00:00|2024-07-01 02:00:00.000|2024-07-01 02:00:00",
		}},
		// Filters, aggregates, grouping and top-N over TIMESTAMPs in the
		// session's zone (the row path: the vectorised ones compare
		// stored values).
		{query: "SELECT id FROM d.e WHERE ts >= '2024-01-01 01:00:00' AND ts < '2024-07-01 02:00:00'", want: []string{"2", "3"}},
		{query: "SELECT id FROM d.e WHERE ts = '2024-01-01 00:30:00'", want: []string{"1"}},
		{query: "SELECT COUNT(*), MIN(ts), MAX(ts3) FROM d.e WHERE ts > '2024-01-01 01:00:00'", want: []string{"3|2024-01-01 01:30:00|2024-07-01 02:00:00.000"}},
		{query: "SELECT MIN(ts), MAX(ts) FROM d.e", want: []string{"2024-01-01 00:30:00|2024-07-01 02:00:00"}},
		{query: "SELECT DATE(ts) AS d, COUNT(*) FROM d.e WHERE ts IS NOT NULL GROUP BY DATE(ts)", want: []string{"2024-01-01|2", "2024-06-01|1", "2024-07-01|1"}},
		{query: "SELECT id, ts FROM d.e ORDER BY ts DESC LIMIT 2", ordered: true, want: []string{"5|2024-07-01 02:00:00", "3|2024-06-01 12:00:00"}},
		{query: "SELECT a.id, b.id FROM d.e a JOIN d.e b ON a.ts = b.ts WHERE a.id < 3", want: []string{"1|1", "2|2"}},
		{query: "SELECT UNIX_TIMESTAMP(ts), UNIX_TIMESTAMP(dt) FROM d.e WHERE id = 1", want: []string{"1704061800|1704061800"}},
		// The stored instants, in UTC; DATETIME unchanged.
		{query: "SET time_zone = '+00:00'"},
		{query: "SELECT id, ts, ts3, dt FROM d.e ORDER BY id", ordered: true, want: []string{
			"1|2023-12-31 22:30:00|2023-12-31 22:30:00.250|2024-01-01 00:30:00",
			"2|2023-12-31 23:30:00|NULL|2024-01-01 01:30:00",
			"3|2024-06-01 10:00:00|2024-06-01 10:00:00.500|2024-06-01 12:00:00",
			"4|NULL|NULL|NULL",
			"5|2024-07-01 00:00:00|2024-07-01 00:00:00.000|2024-07-01 02:00:00",
		}},
		{query: "SELECT id FROM d.e WHERE ts >= '2023-12-31 23:00:00' AND ts < '2024-07-01 00:00:00'", want: []string{"2", "3"}},
		{query: "SELECT MIN(ts), MAX(ts) FROM d.e", want: []string{"2023-12-31 22:30:00|2024-07-01 00:00:00"}},
		{query: "SELECT UNIX_TIMESTAMP(ts), UNIX_TIMESTAMP(dt) FROM d.e WHERE id = 1", want: []string{"1704061800|1704069000"}},
		// A named zone, with daylight saving: +01:00 in January, +02:00 in June.
		{query: "SET time_zone = 'Europe/Paris'"},
		{query: "SELECT id, ts FROM d.e WHERE id IN (1, 3) ORDER BY id", ordered: true, want: []string{"1|2023-12-31 23:30:00", "3|2024-06-01 12:00:00"}},
		{query: "SET time_zone = 'UTC'"},
		{query: "SELECT ts FROM d.e WHERE id = 3", want: []string{"2024-06-01 10:00:00"}},
		{query: "SET time_zone = 'SYSTEM'"},
		{query: "SELECT @@time_zone", want: []string{"SYSTEM"}},
		// Writes under a zone: UPDATE and DELETE find the rows by the
		// values they read, and store what they write in UTC.
		{query: "SET time_zone = '-05:00'"},
		{query: "UPDATE d.e SET ts = ts + INTERVAL 1 HOUR WHERE id = 3"},
		{query: "DELETE FROM d.e WHERE ts = '2023-12-31 17:30:00'"},
		{query: "SELECT id, ts FROM d.e WHERE id IN (1, 3) ORDER BY id", ordered: true, want: []string{"3|2024-06-01 06:00:00"}},
		{query: "SET time_zone = '+00:00'"},
		{query: "SELECT id, ts FROM d.e WHERE id = 3", want: []string{"3|2024-06-01 11:00:00"}},
		// A TIMESTAMP key: duplicates are found in UTC and reported, and
		// updated by ON DUPLICATE KEY UPDATE, as the session sees them.
		{query: "SET time_zone = '+02:00'"},
		{query: "CREATE TABLE d.k (ts TIMESTAMP PRIMARY KEY, n INT)"},
		{query: "INSERT INTO d.k VALUES ('2024-01-01 10:00:00', 1)"},
		{query: "INSERT INTO d.k VALUES ('2024-01-01 10:00:00', 5)", wantErr: "1062 Duplicate entry '2024-01-01 10:00:00'"},
		{query: "INSERT INTO d.k VALUES ('2024-01-01 10:00:00', 5) ON DUPLICATE KEY UPDATE n = n + 1"},
		{query: "REPLACE INTO d.k VALUES ('2024-01-01 11:00:00', 7)"},
		{query: "SELECT ts, n FROM d.k", want: []string{"2024-01-01 10:00:00|2", "2024-01-01 11:00:00|7"}},
		// Staged rows of an open transaction read in the zone too.
		{query: "BEGIN"},
		{query: "INSERT INTO d.k VALUES ('2024-01-01 12:00:00', 9)"},
		{query: "DELETE FROM d.k WHERE ts = '2024-01-01 11:00:00'"},
		{query: "SELECT ts, n FROM d.k WHERE ts > '2024-01-01 10:30:00'", want: []string{"2024-01-01 12:00:00|9"}},
		{query: "ROLLBACK"},
		{query: "SET time_zone = '+00:00'"},
		{query: "SELECT ts, n FROM d.k", want: []string{"2024-01-01 08:00:00|2", "2024-01-01 09:00:00|7"}},
		// NOW() and CURRENT_TIMESTAMP follow the zone; CONVERT_TZ and
		// FROM_UNIXTIME keep MySQL's precision.
		{query: "SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()) BETWEEN -1 AND 1", want: []string{"1"}},
		{query: "SET time_zone = '+05:30'"},
		{query: "SELECT TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), CURRENT_TIMESTAMP) BETWEEN 329 AND 331", want: []string{"1"}},
		{query: "SELECT FROM_UNIXTIME(0), CONVERT_TZ('2024-01-01 12:00:00', '+00:00', '+02:00'), CONVERT_TZ('2024-01-01 12:00:00.25', 'UTC', 'Europe/Paris'), CONVERT_TZ('2024-01-01 12:00:00', 'Nowhere', '+02:00')",
			want: []string{"1970-01-01 05:30:00|2024-01-01 14:00:00|2024-01-01 13:00:00.25|NULL"}},
		// Zones MySQL does not know are refused, the variable unchanged.
		{query: "SET time_zone = 'Mars/Olympus'", wantErr: "1298 Unknown or incorrect time zone"},
		{query: "SET time_zone = '+14:01'", wantErr: "1298 Unknown or incorrect time zone"},
		{query: "SET time_zone = '-14:00'", wantErr: "1298 Unknown or incorrect time zone"},
		{query: "SELECT @@time_zone", want: []string{"+05:30"}},
	},
}

func TestTimeZone(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runScript(t, timeZoneScript.name, embedded(t, enginetest.Open(t)), timeZoneScript)
	})
	t.Run("wire", func(t *testing.T) {
		h, _ := serve(t, enginetest.Open(t), "")
		runScript(t, timeZoneScript.name, wire(t, h), timeZoneScript)
	})
}

// TestTimeZone_BinaryRoundTrip writes TIMESTAMPs through prepared
// statements (the binary protocol) under one zone and reads them under
// another, as a MySQL client in another zone would.
func TestTimeZone_BinaryRoundTrip(t *testing.T) {
	h, _ := serve(t, enginetest.Open(t), "")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := h.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	read := func(zone string) []string {
		t.Helper()
		exec("SET time_zone = '" + zone + "'")
		rows, err := h.Query("SELECT id, ts, dt FROM d.r WHERE id > ? ORDER BY id", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id int
			var ts, dt string
			if err := rows.Scan(&id, &ts, &dt); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d|%s|%s", id, ts, dt))
		}
		return out
	}
	exec("CREATE DATABASE d")
	exec("CREATE TABLE d.r (id INT, ts TIMESTAMP(3), dt DATETIME(3))")
	exec("SET time_zone = '+09:00'")
	exec("INSERT INTO d.r VALUES (?, ?, ?)", 1, "2024-03-10 09:00:00.125", "2024-03-10 09:00:00.125")
	exec("INSERT INTO d.r VALUES (?, ?, ?)", 2, time.Date(2024, 3, 10, 23, 59, 59, 0, time.UTC), time.Date(2024, 3, 10, 23, 59, 59, 0, time.UTC))
	for _, c := range []struct {
		zone string
		want []string
	}{
		{"+09:00", []string{"1|2024-03-10 09:00:00.125|2024-03-10 09:00:00.125", "2|2024-03-10 23:59:59.000|2024-03-10 23:59:59.000"}},
		{"-03:00", []string{"1|2024-03-09 21:00:00.125|2024-03-10 09:00:00.125", "2|2024-03-10 11:59:59.000|2024-03-10 23:59:59.000"}},
	} {
		if got := read(c.zone); !slices.Equal(got, c.want) {
			t.Errorf("under %s: %q, want %q", c.zone, got, c.want)
		}
	}
	// A filter with a bound parameter compares in the session's zone.
	exec("SET time_zone = '-03:00'")
	var n int
	if err := h.QueryRow("SELECT COUNT(*) FROM d.r WHERE ts < ?", "2024-03-10 00:00:00").Scan(&n); err != nil || n != 1 {
		t.Errorf("count under -03:00: %d, %v", n, err)
	}
}

// TestTimeZone_FiltersMatchUTC compares filters on TIMESTAMPs under a
// zone east of UTC (the row path, pushed conjuncts not pruning) with the
// same filters in UTC, their literals shifted (pruning and the vectorised
// aggregates apply), over rows in several files.
func TestTimeZone_FiltersMatchUTC(t *testing.T) {
	run := embedded(t, enginetest.Open(t))
	mustRun(t, run, "CREATE DATABASE d", "CREATE TABLE d.f (id INT, ts TIMESTAMP)", "SET time_zone = '+00:00'")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for f := range 4 { // one file per statement, each an hour apart
		q := "INSERT INTO d.f VALUES "
		for i := range 5 {
			if i > 0 {
				q += ", "
			}
			q += fmt.Sprintf("(%d, '%s')", f*5+i, base.Add(time.Duration(f)*time.Hour+time.Duration(i)*10*time.Minute).Format(time.DateTime))
		}
		mustRun(t, run, q)
	}
	const shift = 3 * time.Hour
	for _, op := range []string{"=", "<", "<=", ">", ">=", "<>"} {
		for m := 0; m < 4*60; m += 20 {
			utc := base.Add(time.Duration(m) * time.Minute)
			for _, shape := range []string{"SELECT id FROM d.f WHERE ts %s '%s'", "SELECT id FROM d.f WHERE ts %s CAST('%s' AS DATETIME)", "SELECT COUNT(*), MIN(id), MAX(id) FROM d.f WHERE ts %s CAST('%s' AS DATETIME)"} {
				mustRun(t, run, "SET time_zone = '+00:00'")
				want, err := run(fmt.Sprintf(shape, op, utc.Format(time.DateTime)))
				if err != nil {
					t.Fatal(err)
				}
				mustRun(t, run, "SET time_zone = '+03:00'")
				q := fmt.Sprintf(shape, op, utc.Add(shift).Format(time.DateTime))
				got, err := run(q)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(want)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s under +03:00: %q, in UTC %q", q, got, want)
				}
			}
		}
	}
}
