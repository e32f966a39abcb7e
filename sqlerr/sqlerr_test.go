package sqlerr

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
)

// TestEverySentinelHasASpecificCode: no lakesql error reaches a client as
// the generic 1105, and the message survives the mapping.
func TestEverySentinelHasASpecificCode(t *testing.T) {
	for _, s := range Sentinels() {
		err := fmt.Errorf("load thing: %w", s)
		var se *mysql.SQLError
		if !errors.As(Wrap(err), &se) {
			t.Fatalf("%v: not mapped", s)
		}
		if se.Num == mysql.ERUnknownError || se.State == "" {
			t.Errorf("%v: generic code %d %q", s, se.Num, se.State)
		}
		if se.Message != err.Error() {
			t.Errorf("%v: message %q, want %q", s, se.Message, err.Error())
		}
		if catalogstore.IsAlertable(s) {
			t.Errorf("%v: a caller error must not be alertable", s)
		}
	}
}

func TestWrap_LeavesOtherErrorsAlone(t *testing.T) {
	other := errors.New("disk on fire")
	if Wrap(other) != other || Wrap(nil) != nil {
		t.Fatal("Wrap changed an error it does not know")
	}
}

// TestRemap_GMSFlattenedErrors: errors GMS flattened into 1105 on the wire
// get MySQL's codes back from their message.
func TestRemap_GMSFlattenedErrors(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{sql.ErrInsertIntoMismatchValueCount.New(), mysql.ERWrongValueCountOnRow},
		{sql.ErrColumnNotFound.New("a"), mysql.ERBadFieldError},
		{sql.ErrValueOutOfRange.New(300, "tinyint"), 1264},
		{sql.ErrSyntaxError.New(mysql.NewSQLError(1064, "42000", "syntax error at position 3")), 1064},
		{sql.ErrInsertIntoNonNullableDefaultNullColumn.New("b"), 1364},
		{sql.ErrNoDatabaseSelected.New(), mysql.ERNoDb},
		{sql.ErrAmbiguousColumnName.New("a", []string{"u", "t"}), 1052},
		{sql.ErrReadOnly.New(), 1290},
		{types.ErrConvertToDecimalLimit.New(), 1264},
		{sql.ErrTableAccessDeniedForUser.New("'bob'@'%'", "t"), 1142},
		{sql.ErrDatabaseAccessDeniedForUser.New("'bob'@'%'", "d"), 1044},
		{sql.ErrStoredProcedureDoesNotExist.New("nope"), 1305},
		{sql.ErrFunctionNotFound.New("median"), 1305},
		{errors.New("something else"), mysql.ERUnknownError},
		{fmt.Errorf("read x.parquet: row group 0: %w", datafile.ErrChecksum), 1194},
		{fmt.Errorf("write data file for d.t: put k: %w (no space left on device)", blob.ErrNoSpace), 1114},
		{fmt.Errorf("write data file for d.t: put k: %w (read-only file system)", blob.ErrReadOnly), 1036},
		{&budget.ExceededError{Op: "sort", Limit: 1 << 20, Want: 4096}, 1038},
		{fmt.Errorf("read x.parquet: %w", context.Canceled), 1317},
		// A statement inside a transaction stopped by KILL QUERY (the
		// randomized schedule): ER_QUERY_INTERRUPTED.
		{context.Canceled, 1317},
	}
	for _, c := range cases {
		got := Remap(sql.CastSQLError(c.err))
		if got.Num != c.want {
			t.Errorf("%v: code %d, want %d", c.err, got.Num, c.want)
		}
	}
}
