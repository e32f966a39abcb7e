package mysqlfix

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// stubTables finds the memory tables of database d.
type stubTables map[string]sql.Table

func (s stubTables) Table(_ *sql.Context, db, name string) (sql.Table, sql.Database, error) {
	if t, ok := s[strings.ToLower(db+"."+name)]; ok {
		return t, nil, nil
	}
	return nil, nil, fmt.Errorf("no table %s.%s", db, name)
}

func stubs() stubTables {
	db := memory.NewDatabase("d")
	col := func(name string, pk bool) *sql.Column {
		return &sql.Column{Name: name, Type: types.Int32, Nullable: !pk, PrimaryKey: pk}
	}
	mk := func(name string, cols ...*sql.Column) sql.Table {
		return memory.NewTable(db, name, sql.NewPrimaryKeySchema(sql.Schema(cols)), nil)
	}
	return stubTables{
		"d.k":   mk("k", col("id", false), col("v", false)),
		"d.s":   mk("s", col("id", false), col("w", false)),
		"d.pk":  mk("pk", col("id", true), col("v", false)),
		"d.two": mk("two", col("id", false), col("v", false), col("w", false)),
	}
}

// TestDMLFix_Rewrites pins the statements DMLFix rewrites and those it
// leaves to GMS, as the SQL GMS then parses.
func TestDMLFix_Rewrites(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Keyless UPDATE … JOIN: a single-table UPDATE.
		{"UPDATE k JOIN s ON k.id = s.id SET k.v = s.w WHERE s.w > 0",
			"update k set k.v = (select s.w from s where (k.id = s.id) and (s.w > 0) limit 1) where (select 1 from s where (k.id = s.id) and (s.w > 0) limit 1) is not null"},
		{"UPDATE k AS x, s SET v = w WHERE x.id = s.id",
			"update k as x set v = (select w from s where (x.id = s.id) limit 1) where (select 1 from s where (x.id = s.id) limit 1) is not null"},
		{"UPDATE IGNORE k STRAIGHT_JOIN s ON k.id = s.id SET k.v = 1",
			"update ignore k set k.v = (select 1 from s where (k.id = s.id) limit 1) where (select 1 from s where (k.id = s.id) limit 1) is not null"},
		// Left alone: a keyed target, an outer join, two targets, an
		// ambiguous column, an unknown table, a single table.
		{"UPDATE pk JOIN s ON pk.id = s.id SET pk.v = s.w", ""},
		{"UPDATE k LEFT JOIN s ON k.id = s.id SET k.v = s.w WHERE s.id IS NULL",
			"update k set k.v = case when (select 1 from s where (k.id = s.id) and (s.id is null) limit 1) is not null then (select s.w from s where (k.id = s.id) and (s.id is null) limit 1) else (null) end " +
				"where (select 1 from s where (k.id = s.id) and (s.id is null) limit 1) is not null or ((select 1 from s where (k.id = s.id) limit 1) is null and (null is null))"},
		{"UPDATE k RIGHT JOIN s ON k.id = s.id SET k.v = 0", ""},
		{"UPDATE k LEFT JOIN s ON k.id = s.id SET k.v = 0 WHERE id > 1", ""},
		{"UPDATE k JOIN s ON k.id = s.id SET k.v = 0, s.w = 0", ""},
		{"UPDATE k JOIN s ON k.id = s.id SET id = 0", ""},
		{"UPDATE k JOIN nowhere n ON k.id = n.id SET k.v = 0", ""},
		{"UPDATE k SET v = 0", ""},
		// INSERT … SELECT … ON DUPLICATE KEY UPDATE … VALUES().
		{"INSERT INTO pk SELECT id, w FROM s ON DUPLICATE KEY UPDATE v = VALUES(v)",
			"insert into pk(id, v) select * from (select id, w from s) as __new_ins (id, v) on duplicate key update v = values(v)"},
		{"INSERT INTO pk (v, id) SELECT w, id FROM s ON DUPLICATE KEY UPDATE v = VALUES(v) + 1",
			"insert into pk(v, id) select * from (select w, id from s) as __new_ins (v, id) on duplicate key update v = values(v) + 1"},
		{"INSERT INTO pk VALUES (1, 2) ON DUPLICATE KEY UPDATE v = VALUES(v)", ""},
		{"INSERT INTO pk SELECT id, w FROM s ON DUPLICATE KEY UPDATE v = 0", ""},
	} {
		t.Run(c.in, func(t *testing.T) {
			ctx := sql.NewEmptyContext()
			ctx.SetCurrentDatabase("d")
			p := NewDMLFix(sql.NewMysqlParser(), stubs())
			st, _, _, err := p.Parse(ctx, c.in, false)
			if err != nil {
				t.Fatal(err)
			}
			orig, err := ast.Parse(c.in)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ToLower(ast.String(st))
			want := c.want
			if want == "" {
				want = strings.ToLower(ast.String(orig))
			}
			if got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}
