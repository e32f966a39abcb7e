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

// TestGuardScripts runs guardScripts embedded and over the wire.
func TestGuardScripts(t *testing.T) {
	for _, st := range guardScripts {
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
