package ddl

import (
	"reflect"
	"strings"
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

func TestParse_MaterializedViews(t *testing.T) {
	tests := []struct {
		sql  string
		want Statement
	}{
		{"CREATE MATERIALIZED VIEW c.mv AS SELECT a FROM t", &CreateMaterializedView{Name: TableName{"c", "mv"}, Select: "SELECT a FROM t"}},
		{"create materialized view if not exists mv as select 1 from t;", &CreateMaterializedView{Name: TableName{Name: "mv"}, IfNotExists: true, Select: "select 1 from t"}},
		{"CREATE OR REPLACE MATERIALIZED VIEW `ws.c`.`m v` COMMENT = 'it''s' AS\n  WITH x AS (SELECT 1) SELECT * FROM x  ",
			&CreateMaterializedView{Name: TableName{"ws.c", "m v"}, OrReplace: true, Comment: "it's", Select: "WITH x AS (SELECT 1) SELECT * FROM x"}},
		{"CREATE MATERIALIZED VIEW mv COMMENT 'x' AS (SELECT 'a;b' FROM t) /* ; */", &CreateMaterializedView{Name: TableName{Name: "mv"}, Comment: "x", Select: "(SELECT 'a;b' FROM t) /* ; */"}},
		{"REFRESH MATERIALIZED VIEW c.mv", &RefreshMaterializedView{Name: TableName{"c", "mv"}}},
		{"DROP MATERIALIZED VIEW IF EXISTS mv", &DropMaterializedView{Name: TableName{Name: "mv"}, IfExists: true}},
		{"DROP MATERIALIZED VIEW c.mv", &DropMaterializedView{Name: TableName{"c", "mv"}}},
		{"SHOW MATERIALIZED VIEWS", &ShowMaterializedViews{}},
		{"SHOW MATERIALIZED VIEWS IN c", &ShowMaterializedViews{DB: "c"}},
		{"show materialized views from `ws.c`", &ShowMaterializedViews{DB: "ws.c"}},
		{"SHOW TRIGGERS FOR c.ds", &ShowTriggersFor{Name: TableName{"c", "ds"}}},
		{"SHOW TRIGGERS FOR ds", &ShowTriggersFor{Name: TableName{Name: "ds"}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.sql, ast.ParserOptions{})
		if err != nil {
			t.Errorf("%q: %v", tt.sql, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q = %#v, want %#v", tt.sql, got, tt.want)
			continue
		}
		// The canonical form parses back to the same statement.
		again, err := Parse(got.String(), ast.ParserOptions{})
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%q: String() %q parses to %#v, %v", tt.sql, got.String(), again, err)
		}
	}
}

func TestParse_MaterializedViewErrors(t *testing.T) {
	tests := []struct{ sql, near, msg string }{
		{"CREATE MATERIALIZED VIEW mv", "", "expected AS SELECT"},
		{"CREATE MATERIALIZED VIEW mv AS", "", "expected the view's SELECT"},
		{"CREATE MATERIALIZED VIEW mv AS INSERT INTO t VALUES (1)", "INSERT", "expected the view's SELECT"},
		{"CREATE MATERIALIZED VIEW mv COMMENT 7 AS SELECT 1", "7", "quoted string"},
		{"CREATE OR REPLACE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT 1", "IF", "cannot be combined"},
		{"REFRESH MATERIALIZED VIEW", "", "expected a materialized view name"},
		{"DROP MATERIALIZED VIEW c.", "", "expected a materialized view name"},
		{"SHOW MATERIALIZED VIEWS IN", "", "expected a database name"},
		{"SHOW TRIGGERS FOR", "", "expected a table name"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.sql, ast.ParserOptions{})
		se, ok := err.(*SyntaxError)
		if !ok || se.Near != tt.near || !strings.Contains(se.Message, tt.msg) {
			t.Errorf("%q: %v, want a syntax error near %q: %q", tt.sql, err, tt.near, tt.msg)
		}
	}
}

// TestParse_MySQLShowTriggersStaysMySQL: only SHOW TRIGGERS FOR is
// lakesql's; MySQL's SHOW TRIGGERS goes to GMS's parser.
func TestParse_MySQLShowTriggersStaysMySQL(t *testing.T) {
	for _, q := range []string{"SHOW TRIGGERS", "SHOW TRIGGERS FROM d", "SHOW TRIGGERS LIKE 'x%'", "CREATE OR REPLACE VIEW v AS SELECT 1", "CREATE VIEW v AS SELECT 1"} {
		st, err := Parse(q, ast.ParserOptions{})
		if st != nil || err != nil {
			t.Errorf("%q: %v, %v; want it left to the MySQL parser", q, st, err)
		}
		if _, err := NewParser(nil).ParseSimple(q); err != nil {
			t.Errorf("%q through the parser: %v", q, err)
		}
	}
}

func TestAuth_MaterializedViews(t *testing.T) {
	st, _ := Parse("REFRESH MATERIALIZED VIEW c.mv", ast.ParserOptions{})
	if a := st.auth(); a.AuthType != ast.AuthType_INSERT || a.TargetType != ast.AuthTargetType_SingleTableIdentifier || !reflect.DeepEqual(a.TargetNames, []string{"c", "mv"}) {
		t.Errorf("refresh auth %+v", a)
	}
	st, _ = Parse("CREATE MATERIALIZED VIEW mv AS SELECT 1", ast.ParserOptions{})
	if a := st.auth(); a.AuthType != ast.AuthType_CREATE || !reflect.DeepEqual(a.TargetNames, []string{"", "mv"}) {
		t.Errorf("create auth %+v", a)
	}
}
