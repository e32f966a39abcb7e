package ddl

import (
	"reflect"
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/catalogstore/partition"
)

func TestParse_Partitioning(t *testing.T) {
	create := "CREATE TABLE IF NOT EXISTS c.t (ts DATETIME, id BIGINT, country VARCHAR(2), name TEXT, d DATE, x INT)"
	tests := []struct {
		name string
		sql  string
		want Statement
	}{
		{"create/all transforms", create + " PARTITIONED BY (day(ts), bucket(16, id), country, truncate(4, name), month(ts), year(d), hour(ts), identity(x))",
			&CreatePartitionedTable{Name: TableName{DB: "c", Name: "t"}, IfNotExists: true, Create: create, Fields: []PartitionField{
				{partition.Day, "ts"}, {partition.Bucket(16), "id"}, {partition.Identity, "country"}, {partition.Truncate(4), "name"},
				{partition.Month, "ts"}, {partition.Year, "d"}, {partition.Hour, "ts"}, {partition.Identity, "x"},
			}}},
		{"create/lower, comments, backticks, options", "create table `t` (a int, `b c` int) engine=x /* c */ partitioned by (BUCKET(4, `b c`), `a`);",
			&CreatePartitionedTable{Name: TableName{Name: "t"}, Create: "create table `t` (a int, `b c` int) engine=x", Fields: []PartitionField{
				{partition.Bucket(4), "b c"}, {partition.Identity, "a"},
			}}},
		{"alter", "ALTER TABLE c.t SET PARTITIONED BY (month(ts), country)",
			&AlterPartitioning{Name: TableName{DB: "c", Name: "t"}, Fields: []PartitionField{{partition.Month, "ts"}, {partition.Identity, "country"}}}},
		{"alter/unpartitioned", "alter table t set partitioned by ()", &AlterPartitioning{Name: TableName{Name: "t"}, Fields: []PartitionField{}}},
		{"optimize", "OPTIMIZE TABLE c.t", &OptimizeTable{Tables: []TableName{{DB: "c", Name: "t"}}}},
		{"optimize/local, several", "optimize local tables a, c.b", &OptimizeTable{Tables: []TableName{{Name: "a"}, {DB: "c", Name: "b"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.sql, ast.ParserOptions{})
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.sql, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse(%q) = %#v, want %#v", tt.sql, got, tt.want)
			}
			again, err := Parse(got.String(), ast.ParserOptions{})
			if err != nil || !reflect.DeepEqual(again, tt.want) {
				t.Fatalf("Parse(%q) = %#v, %v; want %#v", got.String(), again, err, tt.want)
			}
			if _, err := newNode(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestParse_PartitioningErrors(t *testing.T) {
	tests := []struct {
		name, sql string
		pos       int
		near, msg string
	}{
		{"unknown transform", "CREATE TABLE t (a INT) PARTITIONED BY (week(a))", 44, "week", "bad partition transform"},
		{"bucket without number", "CREATE TABLE t (a INT) PARTITIONED BY (bucket(a))", 48, "a", "bucket needs a whole number first"},
		{"bucket zero", "CREATE TABLE t (a INT) PARTITIONED BY (bucket(0, a))", 46, "bucket", "whole number in 1..2147483647"},
		{"empty create list", "CREATE TABLE t (a INT) PARTITIONED BY ()", 41, "", "at least one partition field"},
		{"no list", "CREATE TABLE t (a INT) PARTITIONED BY a", 40, "a", "expected ( after PARTITIONED BY"},
		{"unclosed", "CREATE TABLE t (a INT) PARTITIONED BY (a", 41, "", "expected , or )"},
		{"trailing", "CREATE TABLE t (a INT) PARTITIONED BY (a) COMMENT 'x'", 50, "COMMENT", "expected end of statement"},
		{"no definition", "CREATE TABLE t PARTITIONED BY (a)", 27, "PARTITIONED", "table definition before PARTITIONED BY"},
		{"alter without by", "ALTER TABLE t SET PARTITIONED (a)", 32, "(", "expected BY"},
		{"optimize without table", "OPTIMIZE t", 11, "t", "expected TABLE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.sql, ast.ParserOptions{})
			assertSyntaxError(t, err, tt.pos, tt.near, tt.msg)
		})
	}
}

func TestParse_PartitioningLeavesMySQL(t *testing.T) {
	for _, q := range []string{
		"CREATE TABLE t (a INT)",
		"CREATE TABLE t (partitioned INT, by INT)",
		"CREATE TABLE t AS SELECT 1 AS partitioned",
		"ALTER TABLE t ADD COLUMN b INT",
		"ALTER TABLE t SET x", // MySQL's business (and error)
		"ALTER TABLE t ALTER COLUMN a SET DEFAULT 1",
	} {
		got, err := Parse(q, ast.ParserOptions{})
		if got != nil || err != nil {
			t.Errorf("Parse(%q) = %#v, %v; want nil, nil", q, got, err)
		}
	}
}

func TestAuth_Partitioning(t *testing.T) {
	st, err := Parse("OPTIMIZE TABLE a, c.b", ast.ParserOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := st.auth()
	if a.AuthType != ast.AuthType_INSERT || a.TargetType != ast.AuthTargetType_MultipleTableIdentifiers ||
		!reflect.DeepEqual(a.TargetNames, []string{"", "a", "c", "b"}) {
		t.Fatalf("auth %+v", a)
	}
	st, _ = Parse("CREATE TABLE c.t (a INT) PARTITIONED BY (a)", ast.ParserOptions{})
	if a := st.auth(); a.AuthType != ast.AuthType_CREATE || !reflect.DeepEqual(a.TargetNames, []string{"c", "t"}) {
		t.Fatalf("auth %+v", a)
	}
}
