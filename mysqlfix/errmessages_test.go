package mysqlfix_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/mysqlfix"
)

// TestFixMessage_NoFormatArtifacts: the errors GMS creates without their
// values reach the client with real values from the statement, or a
// plain placeholder, never "%!d(MISSING)"; other errors pass unchanged.
func TestFixMessage_NoFormatArtifacts(t *testing.T) {
	cases := []struct {
		err   error
		query string
		code  int
		want  []string
	}{
		{sql.ErrNonAggregatedColumnWithoutGroupBy.New(),
			"SELECT * FROM (SELECT k, ROW_NUMBER() OVER (ORDER BY k) AS rn, COUNT(*) FROM t GROUP BY k) AS d",
			mysql.ERNotSupportedYet, []string{"expression #2 of SELECT list", "ROW_NUMBER() OVER (ORDER BY k)"}},
		{sql.ErrNonAggregatedColumnWithoutGroupBy.New(), "not sql at all",
			mysql.ERNotSupportedYet, []string{"window functions beside aggregation"}},
		{sql.ErrInvalidGISData.New(), "SELECT ST_GEOMFROMTEXT('x')",
			mysql.ERUnknownError, []string{"invalid GIS data provided to function ?"}},
		{sql.ErrTableColumnNotFound.New("c"), "ALTER TABLE t ALTER c SET DEFAULT 1",
			mysql.ERUnknownError, []string{`table "c" does not have column ?`}},
	}
	for _, c := range cases {
		got := mysqlfix.FixMessage(sql.CastSQLError(c.err), c.query)
		var se *mysql.SQLError
		if !errors.As(got, &se) {
			t.Fatalf("%v: not a SQLError: %v", c.err, got)
		}
		if strings.Contains(se.Message, "%!") || se.Num != c.code {
			t.Errorf("%q: %d %q", c.query, se.Num, se.Message)
		}
		for _, w := range c.want {
			if !strings.Contains(se.Message, w) {
				t.Errorf("%q: message %q lacks %q", c.query, se.Message, w)
			}
		}
	}
	plain := mysql.NewSQLError(1064, "42000", "syntax error at position 3")
	if mysqlfix.FixMessage(plain, "x") != error(plain) {
		t.Error("a well-formed error was changed")
	}
}

// TestFixMessage_DuplicateEntry: a primary-key violation reaches the
// client in MySQL's words, raw from GMS or already a SQLError.
func TestFixMessage_DuplicateEntry(t *testing.T) {
	const want = "Duplicate entry '1-a' for key 't.PRIMARY'"
	raw := sql.NewWrappedInsertError(sql.Row{1, "a"}, sql.NewUniqueKeyErr(want, true, sql.Row{1, "a"}))
	for _, err := range []error{raw, sql.CastSQLError(raw)} {
		var se *mysql.SQLError
		if got := mysqlfix.FixMessage(err, "INSERT …"); !errors.As(got, &se) || se.Num != mysql.ERDupEntry || se.Message != want {
			t.Errorf("%v → %v, want 1062 %q", err, got, want)
		}
	}
	other := errors.New("something else")
	if got := mysqlfix.FixMessage(other, ""); got != other {
		t.Errorf("an unrelated error changed: %v", got)
	}
}
