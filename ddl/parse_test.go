package ddl

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

func TestParse_Statements(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want Statement
	}{
		{"create", "CREATE WORKSPACE w", &CreateWorkspace{Name: "w"}},
		{"create/lower", "create workspace w", &CreateWorkspace{Name: "w"}},
		{"create/mixed case", "CrEaTe WorkSpace Sales_2024", &CreateWorkspace{Name: "Sales_2024"}},
		{"create/if not exists", "CREATE WORKSPACE IF NOT EXISTS w", &CreateWorkspace{Name: "w", IfNotExists: true}},
		{"create/backticks", "CREATE WORKSPACE `my-ws`", &CreateWorkspace{Name: "my-ws"}},
		{"create/backtick keyword", "CREATE WORKSPACE `select`", &CreateWorkspace{Name: "select"}},
		{"create/doubled backtick", "CREATE WORKSPACE `a``b`", &CreateWorkspace{Name: "a`b"}},
		{"create/keyword as name", "CREATE WORKSPACE status", &CreateWorkspace{Name: "status"}},
		{"create/comments", "/* lead */ CREATE -- line\n WORKSPACE /* mid */ IF NOT # hash\n EXISTS w /* tail */",
			&CreateWorkspace{Name: "w", IfNotExists: true}},
		{"create/semicolon", "CREATE WORKSPACE w;", &CreateWorkspace{Name: "w"}},
		{"create/semicolon comment", "CREATE WORKSPACE w; -- done", &CreateWorkspace{Name: "w"}},
		{"create/whitespace", "  \n\tCREATE\n\tWORKSPACE\tw  \n", &CreateWorkspace{Name: "w"}},
		{"use", "USE WORKSPACE w", &UseWorkspace{Name: "w"}},
		{"use/lower backticks", "use workspace `w`", &UseWorkspace{Name: "w"}},
		{"rename/qualified", "RENAME TABLE d.u TO d.v, w TO `o`.x", &RenameTable{Pairs: []RenamePair{
			{From: TableName{DB: "d", Name: "u"}, To: TableName{DB: "d", Name: "v"}},
			{From: TableName{Name: "w"}, To: TableName{DB: "o", Name: "x"}}}}},
		{"rename/alter", "alter table d.u rename as v", &RenameTable{Alter: true,
			Pairs: []RenamePair{{From: TableName{DB: "d", Name: "u"}, To: TableName{Name: "v"}}}}},
		{"show workspaces", "SHOW WORKSPACES", &ShowWorkspaces{}},
		{"show workspaces/lower", "show workspaces ;", &ShowWorkspaces{}},
		{"drop", "DROP WORKSPACE w", &DropWorkspace{Name: "w"}},
		{"drop/if exists", "drop workspace if exists `w`", &DropWorkspace{Name: "w", IfExists: true}},
		{"drop/cascade", "DROP WORKSPACE w CASCADE", &DropWorkspace{Name: "w", Cascade: true}},
		{"drop/restrict", "DROP WORKSPACE w restrict", &DropWorkspace{Name: "w"}},
		{"alter/egress off", "ALTER WORKSPACE w SET egress_protection TO OFF",
			&AlterWorkspace{Name: "w", Property: "egress_protection", Value: false}},
		{"alter/deletion on", "ALTER WORKSPACE w SET deletion_protection TO ON",
			&AlterWorkspace{Name: "w", Property: "deletion_protection", Value: true}},
		{"alter/true", "alter workspace w set EGRESS_PROTECTION to true",
			&AlterWorkspace{Name: "w", Property: "egress_protection", Value: true}},
		{"alter/false equals", "ALTER WORKSPACE w SET `deletion_protection` = false",
			&AlterWorkspace{Name: "w", Property: "deletion_protection", Value: false}},
		{"show properties/current", "SHOW WORKSPACE PROPERTIES", &ShowWorkspaceProperties{}},
		{"show properties/bare name", "show workspace properties w", &ShowWorkspaceProperties{Name: "w"}},
		{"show properties/for", "SHOW WORKSPACE PROPERTIES FOR `w`", &ShowWorkspaceProperties{Name: "w"}},
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
			// The canonical form parses back to the same statement.
			again, err := Parse(got.String(), ast.ParserOptions{})
			if err != nil || !reflect.DeepEqual(again, tt.want) {
				t.Fatalf("Parse(%q) = %#v, %v; want %#v", got.String(), again, err, tt.want)
			}
		})
	}
}

func TestParse_AnsiQuotes(t *testing.T) {
	got, err := Parse(`CREATE WORKSPACE "my-ws"`, ast.ParserOptions{AnsiQuotes: true})
	if err != nil || !reflect.DeepEqual(got, &CreateWorkspace{Name: "my-ws"}) {
		t.Fatalf("ANSI_QUOTES: got %#v, %v", got, err)
	}
	// Without ANSI_QUOTES, "my-ws" is a string, not a name.
	_, err = Parse(`CREATE WORKSPACE "my-ws"`, ast.ParserOptions{})
	assertSyntaxError(t, err, 25, "my-ws", "expected a workspace name")
}

func TestString_Canonical(t *testing.T) {
	tests := []struct {
		stmt Statement
		want string
	}{
		{&CreateWorkspace{Name: "w", IfNotExists: true}, "CREATE WORKSPACE IF NOT EXISTS `w`"},
		{&CreateWorkspace{Name: "a`b"}, "CREATE WORKSPACE `a``b`"},
		{&UseWorkspace{Name: "w"}, "USE WORKSPACE `w`"},
		{&ShowWorkspaces{}, "SHOW WORKSPACES"},
		{&DropWorkspace{Name: "w", IfExists: true}, "DROP WORKSPACE IF EXISTS `w`"},
		{&AlterWorkspace{Name: "w", Property: "egress_protection"}, "ALTER WORKSPACE `w` SET egress_protection TO OFF"},
		{&AlterWorkspace{Name: "w", Property: "deletion_protection", Value: true}, "ALTER WORKSPACE `w` SET deletion_protection TO ON"},
		{&ShowWorkspaceProperties{}, "SHOW WORKSPACE PROPERTIES"},
		{&ShowWorkspaceProperties{Name: "w"}, "SHOW WORKSPACE PROPERTIES FOR `w`"},
	}
	for _, tt := range tests {
		if got := tt.stmt.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.stmt, got, tt.want)
		}
	}
}

func assertSyntaxError(t *testing.T, err error, pos int, near, msg string) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("got %v (%T), want a *SyntaxError", err, err)
	}
	if se.Position != pos || se.Near != near || !strings.Contains(se.Message, msg) {
		t.Fatalf("got %q (position %d near %q), want position %d near %q: %q", err, se.Position, se.Near, pos, near, msg)
	}
}

// assertSQLError checks an error the wrapper returned: lakesql errors reach
// GMS as *mysql.SQLError with their code (sqlerr.Wrap).
func assertSQLError(t *testing.T, err error, num int, msg string) {
	t.Helper()
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		t.Fatalf("got %v (%T), want a *mysql.SQLError", err, err)
	}
	if se.Num != num || se.Message != msg {
		t.Fatalf("got %d %q, want %d %q", se.Num, se.Message, num, msg)
	}
}

func TestParse_SyntaxErrors(t *testing.T) {
	tests := []struct {
		name, sql string
		pos       int
		near, msg string
		full      string // the whole message, when given
	}{
		{"bad value", "ALTER WORKSPACE w SET egress_protection TO maybe", 49, "maybe", "expected ON or OFF",
			"syntax error at position 49 near 'maybe': expected ON or OFF"},
		{"string value", "ALTER WORKSPACE w SET egress_protection TO 'off'", 49, "off", "expected ON or OFF", ""},
		{"numeric value", "ALTER WORKSPACE w SET egress_protection TO 0", 45, "0", "expected ON or OFF", ""},
		{"missing value", "ALTER WORKSPACE w SET egress_protection TO", 43, "", "expected ON or OFF",
			"syntax error at position 43 at the end of the statement: expected ON or OFF"},
		{"unknown property", "ALTER WORKSPACE w SET retention TO ON", 32, "retention",
			"unknown workspace property 'retention' (known: egress_protection, deletion_protection)",
			"syntax error at position 32 near 'retention': unknown workspace property 'retention' (known: egress_protection, deletion_protection)"},
		{"missing set", "ALTER WORKSPACE w egress_protection TO OFF", 36, "egress_protection", "expected SET", ""},
		{"missing to", "ALTER WORKSPACE w SET egress_protection OFF", 44, "OFF", "expected TO", ""},
		{"trailing garbage", "ALTER WORKSPACE w SET egress_protection TO OFF now", 51, "now", "expected end of statement", ""},
		{"missing name", "CREATE WORKSPACE", 17, "", "expected a workspace name", ""},
		{"missing name after if not exists", "CREATE WORKSPACE IF NOT EXISTS", 31, "", "expected a workspace name", ""},
		{"if without not", "CREATE WORKSPACE IF EXISTS w", 27, "EXISTS", "expected NOT", ""},
		{"drop if without exists", "DROP WORKSPACE IF w", 20, "w", "expected EXISTS", ""},
		{"hyphen unquoted", "CREATE WORKSPACE my-ws", 21, "-", "must be quoted with backticks", ""},
		{"empty name", "CREATE WORKSPACE ``", 20, "", "cannot be empty", ""},
		{"two names", "DROP WORKSPACE a b", 19, "b", "expected end of statement", ""},
		{"show workspace without properties", "SHOW WORKSPACE w", 17, "w", "expected PROPERTIES", ""},
		{"show properties for nothing", "SHOW WORKSPACE PROPERTIES FOR", 30, "", "expected a workspace name", ""},
		{"show workspaces like", "SHOW WORKSPACES LIKE 'a%'", 21, "LIKE", "expected end of statement", ""},
		{"comment before error", "CREATE /* x */ WORKSPACE w extra", 33, "extra", "expected end of statement", ""},
		{"unterminated quote", "CREATE WORKSPACE `w", 20, "w", "malformed token", ""},
		{"second statement", "CREATE WORKSPACE a; CREATE WORKSPACE b", 27, "CREATE", "expected one statement", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.sql, ast.ParserOptions{})
			assertSyntaxError(t, err, tt.pos, tt.near, tt.msg)
			if tt.full != "" && err.Error() != tt.full {
				t.Fatalf("message %q, want %q", err, tt.full)
			}
			// The wrapper returns the same message as ER_PARSE_ERROR.
			_, _, _, err2 := NewParser(nil).ParseWithOptions(context.Background(), tt.sql, ';', false, ast.ParserOptions{})
			assertSQLError(t, err2, mysql.ERParseError, err.Error())
		})
	}
}

func TestParse_NotLakehouse(t *testing.T) {
	for _, q := range []string{
		"CREATE TABLE t (a int)",
		"CREATE DATABASE workspace",
		"SHOW TABLES",
		"SHOW DATABASES",
		"USE db",
		"USE workspace",               // MySQL's USE of a database named workspace
		"RENAME TABLE u TO v, w TO x", // unqualified: GMS renames in the current database
		"ALTER TABLE d.u RENAME COLUMN a TO b",
		"ALTER TABLE d.u RENAME TO d.v, ADD COLUMN c INT",
		"ALTER TABLE u RENAME TO v",
		"USE workspace;",
		"use `workspace`",
		"`CREATE` WORKSPACE w", // a quoted word is never a keyword
		"CREATE `WORKSPACE` w",
		"SELECT 'CREATE WORKSPACE w'",
		"/* CREATE WORKSPACE w */ SELECT 1",
		"-- SHOW WORKSPACES\nSELECT 1",
		"",
		";",
		"   ",
		"workspace",
	} {
		got, err := Parse(q, ast.ParserOptions{})
		if got != nil || err != nil {
			t.Errorf("Parse(%q) = %#v, %v; want nil, nil", q, got, err)
		}
	}
}

func TestParser_PassesMySQLThrough(t *testing.T) {
	p := NewParser(nil)
	mysqlParser := sql.NewMysqlParser()
	for _, q := range []string{
		"CREATE TABLE t (a int primary key, b varchar(10))",
		"SHOW TABLES",
		"USE db",
		"USE workspace",
		"SELECT a, row_number() OVER (PARTITION BY a ORDER BY b) FROM t",
		"SELECT * FROM t PARTITION (p0)",
		"CREATE VIEW v AS SELECT a, rank() OVER w FROM t WINDOW w AS (PARTITION BY a)",
		"INSERT INTO t VALUES (1, 'PARTITION BY')",
		"ALTER TABLE t ADD COLUMN c int",
		"ALTER TABLE t ADD COLUMN partition_by int",
	} {
		got, _, _, err := p.ParseWithOptions(context.Background(), q, ';', false, ast.ParserOptions{})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		want, _, _, err := mysqlParser.ParseWithOptions(context.Background(), q, ';', false, ast.ParserOptions{})
		if err != nil {
			t.Fatalf("%q: mysql parser: %v", q, err)
		}
		if ast.String(got) != ast.String(want) || reflect.TypeOf(got) != reflect.TypeOf(want) {
			t.Errorf("%q: got %T %q, want %T %q", q, got, ast.String(got), want, ast.String(want))
		}
		if _, ok := got.(ast.InjectedStatement); ok {
			t.Errorf("%q became a lakehouse statement", q)
		}
	}
	// MySQL errors stay MySQL errors.
	_, _, _, err := p.ParseWithOptions(context.Background(), "SHOW TABLEZ", ';', false, ast.ParserOptions{})
	_, _, _, want := mysqlParser.ParseWithOptions(context.Background(), "SHOW TABLEZ", ';', false, ast.ParserOptions{})
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("SHOW TABLEZ: %v, want %v", err, want)
	}
	// Empty statements are vitess's ErrEmpty, as the interface requires.
	if _, _, _, err := p.ParseWithOptions(context.Background(), "-- nothing", ';', false, ast.ParserOptions{}); !errors.Is(err, ast.ErrEmpty) {
		t.Fatalf("empty: %v, want ErrEmpty", err)
	}
}

func TestParser_InjectsNode(t *testing.T) {
	p := NewParser(nil)
	st, parsed, rem, err := p.ParseWithOptions(context.Background(), "create workspace if not exists w;", ';', false, ast.ParserOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inj, ok := st.(ast.InjectedStatement)
	if !ok {
		t.Fatalf("got %T, want ast.InjectedStatement", st)
	}
	n, ok := inj.Statement.(*Node)
	if !ok {
		t.Fatalf("injected %T, want *Node", inj.Statement)
	}
	if !reflect.DeepEqual(n.Statement(), &CreateWorkspace{Name: "w", IfNotExists: true}) {
		t.Fatalf("node statement %#v", n.Statement())
	}
	if parsed != "create workspace if not exists w" || rem != "" {
		t.Fatalf("parsed %q remainder %q", parsed, rem)
	}
	if got := ast.String(st); got != "CREATE WORKSPACE IF NOT EXISTS `w`" {
		t.Fatalf("ast.String = %q", got)
	}
	if inj.Auth.AuthType != ast.AuthType_CREATE || inj.Auth.TargetType != ast.AuthTargetType_Global {
		t.Fatalf("auth %+v", inj.Auth)
	}
	// GMS's planbuilder resolves the injectable with no children.
	res, err := n.WithResolvedChildren(nil)
	if err != nil || res.(sql.ExecSourceRel) != n {
		t.Fatalf("WithResolvedChildren: %v, %v", res, err)
	}
	if _, err := n.WithResolvedChildren([]any{1}); err == nil {
		t.Fatal("WithResolvedChildren accepted a child")
	}

	for _, fn := range []func() (ast.Statement, error){
		func() (ast.Statement, error) { return p.ParseSimple("SHOW WORKSPACES") },
		func() (ast.Statement, error) {
			st, _, err := p.ParseOneWithOptions(context.Background(), "SHOW WORKSPACES", ast.ParserOptions{})
			return st, err
		},
		func() (ast.Statement, error) {
			st, _, _, err := p.Parse(sql.NewEmptyContext(), "SHOW WORKSPACES", false)
			return st, err
		},
	} {
		st, err := fn()
		if err != nil {
			t.Fatal(err)
		}
		if inj, ok := st.(ast.InjectedStatement); !ok || !reflect.DeepEqual(inj.Statement.(*Node).Statement(), &ShowWorkspaces{}) {
			t.Fatalf("got %#v", st)
		}
	}
}

func TestParser_MultiStatement(t *testing.T) {
	p := NewParser(nil)
	tests := []struct {
		name, sql         string
		parsed, remainder string
		lakehouse         bool
	}{
		{"lakehouse then mysql", "USE WORKSPACE w; SELECT 1", "USE WORKSPACE w", " SELECT 1", true},
		{"lakehouse then lakehouse", "CREATE WORKSPACE a;CREATE WORKSPACE b;", "CREATE WORKSPACE a", "CREATE WORKSPACE b", true},
		{"semicolon in backticks", "CREATE WORKSPACE `a;b`; SHOW WORKSPACES", "CREATE WORKSPACE `a;b`", " SHOW WORKSPACES", true},
		{"semicolon in comment", "SHOW WORKSPACES /* ; */ ; SELECT ';'", "SHOW WORKSPACES /* ; */", " SELECT ';'", true},
		{"trailing comment", "SHOW WORKSPACES; -- bye", "SHOW WORKSPACES", " -- bye", true},
		{"single", "SHOW WORKSPACES;", "SHOW WORKSPACES", "", true},
		{"single with spaces", "  SHOW WORKSPACES ;  \n", "SHOW WORKSPACES", "", true},
		{"mysql then lakehouse", "SELECT 1; SHOW WORKSPACES", "SELECT 1", " SHOW WORKSPACES", false},
		{"mysql use then lakehouse", "USE workspace; USE WORKSPACE w", "USE workspace", " USE WORKSPACE w", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, parsed, rem, err := p.ParseWithOptions(context.Background(), tt.sql, ';', true, ast.ParserOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if parsed != tt.parsed || rem != tt.remainder {
				t.Fatalf("parsed %q remainder %q, want %q %q", parsed, rem, tt.parsed, tt.remainder)
			}
			if _, ok := st.(ast.InjectedStatement); ok != tt.lakehouse {
				t.Fatalf("got %T", st)
			}
			// ParseOneWithOptions agrees on where the next statement starts.
			_, ri, err := p.ParseOneWithOptions(context.Background(), tt.sql, ast.ParserOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := sql.RemoveSpaceAndDelimiter(tt.sql[ri:], ';'), sql.RemoveSpaceAndDelimiter(tt.remainder, ';'); got != want {
				t.Fatalf("ParseOne index %d: rest %q, want %q", ri, got, want)
			}
		})
	}

	// A whole batch, statement by statement, as GMS's handler runs it.
	batch := "CREATE WORKSPACE a; use workspace `a`; SELECT 1; SHOW WORKSPACE PROPERTIES FOR a; DROP WORKSPACE IF EXISTS b"
	var got []string
	for q := batch; q != ""; {
		st, _, rem, err := p.ParseWithOptions(context.Background(), q, ';', true, ast.ParserOptions{})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		got = append(got, ast.String(st))
		q = rem
	}
	want := []string{"CREATE WORKSPACE `a`", "USE WORKSPACE `a`", "select 1", "SHOW WORKSPACE PROPERTIES FOR `a`", "DROP WORKSPACE IF EXISTS `b`"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("batch: %q, want %q", got, want)
	}

	// An error in a lakehouse statement of a batch has its position in the
	// statement and no remainder, as for MySQL statements.
	_, _, rem, err := p.ParseWithOptions(context.Background(), "ALTER WORKSPACE w SET egress_protection TO maybe; SELECT 1", ';', true, ast.ParserOptions{})
	assertSQLError(t, err, mysql.ERParseError, "syntax error at position 49 near 'maybe': expected ON or OFF")
	if rem != "" {
		t.Fatalf("remainder after an error: %q", rem)
	}
}

func TestParser_Delimiter(t *testing.T) {
	p := NewParser(nil)
	// Trailing delimiters and spaces are trimmed, as GMS's MySQL parser does.
	st, parsed, rem, err := p.ParseWithOptions(context.Background(), "SHOW WORKSPACES //  ", '/', false, ast.ParserOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if parsed != "SHOW WORKSPACES" || rem != "" {
		t.Fatalf("parsed %q remainder %q", parsed, rem)
	}
	if _, ok := st.(ast.InjectedStatement); !ok {
		t.Fatalf("got %T", st)
	}
	_, parsed, rem, err = p.ParseWithOptions(context.Background(), "USE WORKSPACE a; SELECT 1 $$", '$', true, ast.ParserOptions{})
	if err != nil || parsed != "USE WORKSPACE a" || rem != " SELECT 1" {
		t.Fatalf("parsed %q remainder %q, %v", parsed, rem, err)
	}
}

func TestParser_RefusesMySQLPartitioning(t *testing.T) {
	p := NewParser(nil)
	const msg = "lakesql tables are partitioned with PARTITIONED BY (day(ts), bucket(16, id), ...); MySQL PARTITION BY is not supported"
	for _, q := range []string{
		"CREATE TABLE t (a int) PARTITION BY HASH(a) PARTITIONS 4",
		"create table t (a int, d date) partition by range (year(d)) (partition p0 values less than (2000), partition p1 values less than (maxvalue))",
		"CREATE TABLE t (a int) PARTITION BY KEY(a)",
		"CREATE TABLE t (a int) PARTITION BY LIST (a)",
		"CREATE TABLE t (a int) /*!50100 PARTITION BY LINEAR HASH (a) */",
		"ALTER TABLE t PARTITION BY HASH(a)",
		"CREATE PROCEDURE p() BEGIN CREATE TABLE t (a int) PARTITION BY HASH(a); END",
	} {
		t.Run(q, func(t *testing.T) {
			// The refusal itself, before sqlerr gives it its code.
			stmt, err := sql.NewMysqlParser().ParseSimple(q)
			if err != nil {
				t.Fatal(err)
			}
			if err := refuseMySQLPartitioning(stmt, q, ast.ParserOptions{}); !errors.Is(err, ErrMySQLPartitioning) || err.Error() != msg {
				t.Fatalf("refuse: %v, want %q", err, msg)
			}
			// Every entry point refuses it as ER_NOT_SUPPORTED_YET.
			for _, multi := range []bool{false, true} {
				_, _, _, err := p.ParseWithOptions(context.Background(), q, ';', multi, ast.ParserOptions{})
				assertSQLError(t, err, mysql.ERNotSupportedYet, msg)
			}
			_, err = p.ParseSimple(q)
			assertSQLError(t, err, mysql.ERNotSupportedYet, msg)
			_, _, err = p.ParseOneWithOptions(context.Background(), q, ast.ParserOptions{})
			assertSQLError(t, err, mysql.ERNotSupportedYet, msg)
		})
	}
	// Partition management, which GMS would silently ignore.
	_, err := p.ParseSimple("ALTER TABLE t DROP PARTITION p0")
	assertSQLError(t, err, mysql.ERNotSupportedYet,
		"lakesql tables are partitioned with PARTITIONED BY (day(ts), bucket(16, id), ...); MySQL ALTER TABLE ... DROP PARTITION is not supported")
	// Only the first statement of a batch counts.
	st, _, rem, err := p.ParseWithOptions(context.Background(), "ALTER TABLE t ADD COLUMN c int; CREATE TABLE u (a int) PARTITION BY HASH(a)", ';', true, ast.ParserOptions{})
	if err != nil || st == nil || !strings.Contains(rem, "PARTITION BY") {
		t.Fatalf("batch: %v %q %v", st, rem, err)
	}
}

func TestRules_Complete(t *testing.T) {
	for _, r := range rules {
		if r.syntax == "" || len(r.keywords) == 0 {
			t.Errorf("rule %v lacks keywords or syntax", r.keywords)
			continue
		}
		// The synopsis without its optional parts is a statement of the rule.
		example := strings.NewReplacer("[IF NOT EXISTS] ", "", "[IF EXISTS] ", "", " [[FOR] w]", "", " [CASCADE | RESTRICT]", "",
			"{egress_protection | deletion_protection} {TO | =} {ON | OFF | TRUE | FALSE}", "egress_protection TO ON",
			" [, c.v TO c.w]", "").Replace(r.syntax)
		stmt, err := Parse(example, ast.ParserOptions{})
		if err != nil || stmt == nil {
			t.Errorf("%q (from %q): %v, %v", example, r.syntax, stmt, err)
			continue
		}
		// Every statement has a node.
		if _, err := newNode(stmt); err != nil {
			t.Errorf("%q: %v", example, err)
		}
	}
}
