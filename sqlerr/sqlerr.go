// Package sqlerr maps lakesql's typed errors to MySQL error codes and
// SQLSTATEs, in one table. GMS turns any error that is not already a
// *mysql.SQLError into the generic 1105 before the wire sees it, so the
// packages at the GMS boundary (provider, ddl, engine) pass their errors
// through Wrap; everything below them stays free of MySQL concerns.
package sqlerr

import (
	"context"
	"errors"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/iceberg"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/mysqlfix"
)

// Code is a MySQL error number with its SQLSTATE.
type Code struct {
	Num   int
	State string
}

// ErrSyntax marks a malformed lakehouse statement (ER_PARSE_ERROR).
var ErrSyntax = errors.New("syntax error")

// ErrValueRange marks a value that does not fit its column.
var ErrValueRange = errors.New("value out of range")

// table is the mapping, most specific first: the first sentinel the error
// wraps decides.
var table = []struct {
	err  error
	code Code
}{
	// A cancelled statement (KILL QUERY) is interrupted, whatever the
	// operation the cancellation reached wraps it in.
	{context.Canceled, Code{1317, "70100"}},                   // ER_QUERY_INTERRUPTED
	{catalogstore.ErrIncarnationChanged, Code{1412, "HY000"}}, // ER_TABLE_DEF_CHANGED: retry,
	{catalogstore.ErrCommitConflict, Code{mysql.ERLockDeadlock, mysql.SSLockDeadlock}},
	{catalogstore.ErrManifestUnreadable, Code{1030, "HY000"}}, // ER_GET_ERRNO: storage engine error
	{datafile.ErrChecksum, Code{1194, "HY000"}},               // ER_CRASHED_ON_USAGE: the table's data is damaged
	{blob.ErrNoSpace, Code{1114, "HY000"}},                    // ER_RECORD_FILE_FULL: the table is full
	{blob.ErrReadOnly, Code{1036, "HY000"}},                   // ER_OPEN_AS_READONLY: the table is read only
	{catalogstore.ErrWorkspaceNotFound, Code{mysql.ERBadDb, "42000"}},
	{catalogstore.ErrWorkspaceExists, Code{mysql.ERDbCreateExists, "HY000"}},
	{catalogstore.ErrCollectionNotFound, Code{mysql.ERBadDb, "42000"}},
	{catalogstore.ErrCollectionExists, Code{mysql.ERDbCreateExists, "HY000"}},
	{catalogstore.ErrCollectionNotEmpty, Code{1010, "HY000"}}, // ER_DB_DROP_RMDIR
	{catalogstore.ErrWorkspaceNotEmpty, Code{1010, "HY000"}},  // ER_DB_DROP_RMDIR
	{catalogstore.ErrDatasetNotFound, Code{mysql.ERNoSuchTable, "42S02"}},
	{catalogstore.ErrDatasetExists, Code{mysql.ERTableExists, "42S01"}},
	{catalogstore.ErrViewNotFound, Code{mysql.ERNoSuchTable, "42S02"}},
	{catalogstore.ErrViewExists, Code{mysql.ERTableExists, "42S01"}},
	{catalogstore.ErrSnapshotNotFound, Code{1032, "HY000"}}, // ER_KEY_NOT_FOUND
	{catalogstore.ErrBadIdentifier, Code{mysql.ERWrongTableName, "42000"}},
	{catalogstore.ErrLocked, Code{1192, "HY000"}}, // ER_LOCK_OR_ACTIVE_TRANSACTION
	{catalogstore.ErrDeletionProtected, Code{mysql.ERSpecifiedAccessDenied, "42000"}},
	{catalogstore.ErrEgressRestricted, Code{mysql.ERSpecifiedAccessDenied, "42000"}},
	{catalogstore.ErrUnknownProperty, Code{mysql.ERUnknownSystemVariable, "HY000"}},
	{catalogstore.ErrBadValue, Code{mysql.ERWrongValueForVar, "42000"}},
	{catalogstore.ErrMaterializedViewReadOnly, Code{1288, "HY000"}}, // ER_NON_UPDATABLE_TABLE
	{catalogstore.ErrDuplicateFile, Code{mysql.ERDupEntry, "23000"}},
	{catalogstore.ErrDuplicateKey, Code{mysql.ERDupEntry, "23000"}},
	{catalogstore.ErrNullKey, Code{1138, "22004"}}, // ER_INVALID_USE_OF_NULL
	{catalogstore.ErrColumnNotFound, Code{mysql.ERBadFieldError, "42S22"}},
	{catalogstore.ErrDropNoColumn, Code{mysql.ERCantDropFieldOrKey, "42000"}},
	{catalogstore.ErrColumnExists, Code{mysql.ERDupFieldName, "42S21"}},
	{catalogstore.ErrLastColumn, Code{mysql.ERCantRemoveAllFields, "42000"}},
	{catalogstore.ErrSchema, Code{1846, "0A000"}},              // ER_ALTER_OPERATION_NOT_SUPPORTED
	{catalogstore.ErrNotMaterializedView, Code{1347, "HY000"}}, // ER_WRONG_OBJECT
	{catalogstore.ErrRefreshDenied, Code{1142, "42000"}},       // ER_TABLEACCESS_DENIED_ERROR
	{catalogstore.ErrJobNotFound, Code{1032, "HY000"}},         // ER_KEY_NOT_FOUND
	{catalogstore.ErrNotSupported, Code{mysql.ERNotSupportedYet, "42000"}},
	{schema.ErrUnsupportedType, Code{mysql.ERNotSupportedYet, "42000"}},
	{schema.ErrBadColumn, Code{mysql.ERWrongColumnName, "42000"}},
	{partition.ErrUnknownColumn, Code{mysql.ERBadFieldError, "42S22"}},
	{partition.ErrBadTransform, Code{mysql.ERNotSupportedYet, "42000"}},
	{partition.ErrTransformType, Code{mysql.ERNotSupportedYet, "42000"}},
	{partition.ErrBadSpec, Code{mysql.ERNotSupportedYet, "42000"}},
	{iceberg.ErrNoIcebergType, Code{mysql.ERNotSupportedYet, "42000"}},
	{iceberg.ErrBadMetadata, Code{1030, "HY000"}},                             // ER_GET_ERRNO: storage engine error
	{mysqlfix.ErrTooComplex, Code{1436, "HY000"}},                             // ER_STACK_OVERRUN_NEED_MORE: MySQL's refusal of a too deep statement
	{mysqlfix.ErrFilePrivilege, Code{mysql.ERSpecifiedAccessDenied, "42000"}}, // 1227
	{mysqlfix.ErrSecureFilePriv, Code{1290, "HY000"}},                         // ER_OPTION_PREVENTS_STATEMENT
	{mysqlfix.ErrReadOnlyFile, Code{1290, "HY000"}},                           // ER_OPTION_PREVENTS_STATEMENT
	{mysqlfix.ErrCSV, Code{1366, "HY000"}},                                    // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: malformed input
	{mysqlfix.ErrExplainWrites, Code{mysql.ERNotSupportedYet, "42000"}},
	{budget.ErrExceeded, Code{1038, "HY001"}}, // ER_OUT_OF_SORTMEMORY: the query's memory budget
	{mysqlfix.ErrUnknownTimeZone, Code{mysql.ERUnknownTimeZone, "HY000"}},
	{ErrSyntax, Code{mysql.ERParseError, "42000"}},
	{ErrValueRange, Code{1264, "22003"}}, // ER_WARN_DATA_OUT_OF_RANGE
}

// Lookup returns the code for err, and false for errors lakesql does not
// type (GMS maps those itself).
func Lookup(err error) (Code, bool) {
	for _, e := range table {
		if errors.Is(err, e.err) {
			return e.code, true
		}
	}
	// GMS wraps the errors of an INSERT's row source (LOAD DATA's reader)
	// in a WrappedInsertError, which does not unwrap.
	var wi sql.WrappedInsertError
	if errors.As(err, &wi) && wi.Cause != nil {
		return Lookup(wi.Cause)
	}
	return Code{}, false
}

// Wrap returns err as a *mysql.SQLError when it is a lakesql error, keeping
// its message; any other error is returned unchanged. A nil error stays
// nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return err
	}
	c, ok := Lookup(err)
	if !ok {
		if c, ok = lookupGMS(err); !ok {
			return err
		}
	}
	// NewSQLError formats its message: escape percent signs.
	return mysql.NewSQLError(c.Num, c.State, "%s", strings.TrimSpace(err.Error()))
}

// Sentinels lists every error the table maps, for tests.
func Sentinels() []error {
	out := make([]error, len(table))
	for i, e := range table {
		out[i] = e.err
	}
	return out
}
