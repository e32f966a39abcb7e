package mysqlfix_test

import (
	"errors"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/mysqlfix"
)

// TestFixMessage_AlterColumnCodes: GMS's refusals of a missing or
// duplicate column in ALTER TABLE reach the client with MySQL 8's code,
// SQLSTATE and words, whether GMS's 1105 was remapped yet or not; the
// same error from any other statement or clause is left alone.
func TestFixMessage_AlterColumnCodes(t *testing.T) {
	missing := sql.ErrTableColumnNotFound.New("t", "nope")
	planName := sql.ErrTableColumnNotFound.New("Table\n └─ name: t\n", "nope")
	cases := []struct {
		name  string
		err   error
		query string
		code  int
		state string
		msg   string
	}{
		{"drop", missing, "ALTER TABLE t DROP COLUMN nope", mysql.ERCantDropFieldOrKey, "42000", "Can't DROP 'nope'; check that column/key exists"},
		{"drop, other case", missing, "alter table t drop NOPE", mysql.ERCantDropFieldOrKey, "42000", "Can't DROP 'nope'; check that column/key exists"},
		{"rename", missing, "ALTER TABLE t RENAME COLUMN nope TO x", mysql.ERBadFieldError, "42S22", "Unknown column 'nope' in 't'"},
		{"change", planName, "ALTER TABLE t CHANGE COLUMN nope x INT", mysql.ERBadFieldError, "42S22", "Unknown column 'nope' in 't'"},
		{"modify", planName, "ALTER TABLE d.t MODIFY nope BIGINT", mysql.ERBadFieldError, "42S22", "Unknown column 'nope' in 't'"},
		{"duplicate", sql.ErrColumnExists.New("c"), "ALTER TABLE t ADD COLUMN c INT", mysql.ERDupFieldName, "42S21", "Duplicate column name 'c'"},
	}
	for _, c := range cases {
		cast := sql.CastSQLError(c.err)
		// What sqlerr.Remap makes of GMS's 1105 on the wire.
		inCode := mysql.ERBadFieldError
		if c.code == mysql.ERDupFieldName {
			inCode = mysql.ERDupFieldName
		}
		remapped := mysql.NewSQLError(inCode, "HY000", "%s", cast.Message)
		for _, in := range []*mysql.SQLError{cast, remapped} {
			var se *mysql.SQLError
			if got := mysqlfix.FixMessage(in, c.query); !errors.As(got, &se) || se.Num != c.code || se.State != c.state || se.Message != c.msg {
				t.Errorf("%s (%d in): %v, want %d (%s) %q", c.name, in.Num, got, c.code, c.state, c.msg)
			}
		}
	}
	// Not a column an ALTER clause drops, renames or changes: unchanged.
	for _, query := range []string{"SELECT nope FROM t", "ALTER TABLE t ALTER nope SET DEFAULT 1", "ALTER TABLE t DROP COLUMN other"} {
		in := sql.CastSQLError(missing)
		if got := mysqlfix.FixMessage(in, query); got != error(in) {
			t.Errorf("%q: changed to %v", query, got)
		}
	}
}
