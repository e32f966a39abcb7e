package engine_test

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/engine/enginetest"
)

// errorCodeScript: conditions GMS reports as the generic 1105 get MySQL's
// codes, embedded and over the wire.
var errorCodeScript = scriptTest{
	name: "mysql error codes",
	setup: []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.t (a INT, b INT NOT NULL)",
		"CREATE TABLE d.u (a INT)",
		"CREATE TABLE d.dd (x DECIMAL(4,2))",
	},
	checks: []check{
		{query: "INSERT INTO d.t (a) VALUES (1)", wantErr: "1364 doesn't have a default value"},
		{query: "SELECT * FROM t", wantErr: "1046 no database selected"},
		{query: "SELECT a FROM d.t, d.u", wantErr: "1052 ambiguous"},
		{query: "INSERT INTO d.dd VALUES (123.45)", wantErr: "1264 out of range"},
		{query: "CALL nope()", wantErr: "1046 no database selected"},
		{query: "CALL d.nope()", wantErr: "1305 does not exist"},
		{query: "SELECT COUNT(*) FROM d.dd", want: []string{"0"}},
	},
}

func TestMySQLErrorCodes(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runScript(t, errorCodeScript.name, embedded(t, enginetest.Open(t)), errorCodeScript)
	})
	t.Run("wire", func(t *testing.T) {
		h, _ := serve(t, enginetest.Open(t), "")
		runScript(t, errorCodeScript.name, wire(t, h), errorCodeScript)
	})
}

// TestReadOnlyIs1290: a read-only engine refuses writes as a MySQL server
// started with --read-only does.
func TestReadOnlyIs1290(t *testing.T) {
	dir := t.TempDir()
	e, err := engine.Open(context.Background(), engine.Config{Warehouse: dir, CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Connect("root").Exec(context.Background(), "CREATE DATABASE d; CREATE TABLE d.t (a INT)"); err != nil {
		t.Fatal(err)
	}
	e.Close()
	ro, err := engine.Open(context.Background(), engine.Config{Warehouse: dir, ReadOnly: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	err = ro.Connect("root").Exec(context.Background(), "INSERT INTO d.t VALUES (1)")
	if code, msg := errCode(err); code != 1290 {
		t.Errorf("INSERT on a read-only engine: %d %s, want 1290", code, msg)
	}
}

// strictDivisionScript: in strict mode (the default) a division by zero
// in the values an INSERT or UPDATE writes is 1365 and nothing is
// written; SELECT still answers NULL, and a NULL operand is NULL.
var strictDivisionScript = scriptTest{
	name: "strict division by zero",
	setup: []string{
		"CREATE DATABASE d",
		"CREATE TABLE d.u (a INT, x DECIMAL(6,2))",
		"INSERT INTO d.u VALUES (2, 1.50)",
	},
	checks: []check{
		{query: "INSERT INTO d.u VALUES (1/0, 1)", wantErr: "1365 division by 0"},
		{query: "INSERT INTO d.u VALUES (1, 5 DIV 0)", wantErr: "1365 division by 0"},
		{query: "INSERT INTO d.u SELECT a MOD 0, x FROM d.u", wantErr: "1365 division by 0"},
		{query: "UPDATE d.u SET a = a / 0", wantErr: "1365 division by 0"},
		{query: "UPDATE d.u SET x = x / 0.00 WHERE a = 2", wantErr: "1365 division by 0"},
		{query: "SELECT a, x FROM d.u", want: []string{"2|1.50"}},
		{query: "SELECT 1/0", want: []string{"NULL"}},
		{query: "INSERT INTO d.u VALUES (NULL/0, 2)", want: nil},
		{query: "SELECT COUNT(*), COUNT(a) FROM d.u", want: []string{"2|1"}},
		{query: "SET sql_mode = ''", want: nil},
		{query: "INSERT INTO d.u VALUES (1/0, 3)", want: nil},
		{query: "SELECT COUNT(*), COUNT(a) FROM d.u", want: []string{"3|1"}},
	},
}

func TestStrictDivisionByZero(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		runScript(t, strictDivisionScript.name, embedded(t, enginetest.Open(t)), strictDivisionScript)
	})
	t.Run("wire", func(t *testing.T) {
		h, _ := serve(t, enginetest.Open(t), "")
		runScript(t, strictDivisionScript.name, wire(t, h), strictDivisionScript)
	})
}
