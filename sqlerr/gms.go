package sqlerr

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"gopkg.in/src-d/go-errors.v1"
)

// gmsKinds are GMS errors that GMS itself reports as the generic 1105, with
// the code MySQL gives the same condition. Clients (and conformance
// scripts) tell errors apart by these codes.
var gmsKinds = []struct {
	kind *errors.Kind
	code Code
}{
	{sql.ErrInsertIntoMismatchValueCount, Code{mysql.ERWrongValueCountOnRow, "21S01"}},
	{sql.ErrColumnNotFound, Code{mysql.ERBadFieldError, "42S22"}},
	{sql.ErrTableColumnNotFound, Code{mysql.ERBadFieldError, "42S22"}},
	{sql.ErrValueOutOfRange, Code{1264, "22003"}},
	{sql.ErrTableAlreadyExists, Code{mysql.ERTableExists, "42S01"}},
	{sql.ErrExistingView, Code{mysql.ERTableExists, "42S01"}},
	{sql.ErrColumnExists, Code{mysql.ERDupFieldName, "42S21"}},
	{sql.ErrDuplicateColumn, Code{mysql.ERDupFieldName, "42S21"}},
	{types.ErrLengthBeyondLimit, Code{1406, "22001"}}, // ER_DATA_TOO_LONG
	{types.ErrConvertingToTime, Code{mysql.ERTruncatedWrongValueForField, "22007"}},
	{sql.ErrUnsupportedFeature, Code{mysql.ERNotSupportedYet, "42000"}},
	{sql.ErrInsertIntoNonNullableDefaultNullColumn, Code{1364, "HY000"}}, // ER_NO_DEFAULT_FOR_FIELD
	{sql.ErrNoDatabaseSelected, Code{mysql.ERNoDb, "3D000"}},
	{sql.ErrAmbiguousColumnName, Code{1052, "23000"}}, // ER_NON_UNIQ_ERROR
	{sql.ErrReadOnly, Code{1290, "HY000"}},            // ER_OPTION_PREVENTS_STATEMENT (--read-only)
	{types.ErrConvertToDecimalLimit, Code{1264, "22003"}},
	{sql.ErrTableAccessDeniedForUser, Code{1142, "42000"}},     // ER_TABLEACCESS_DENIED_ERROR
	{sql.ErrDatabaseAccessDeniedForUser, Code{1044, "42000"}},  // ER_DBACCESS_DENIED_ERROR
	{sql.ErrStoredProcedureDoesNotExist, Code{1305, "42000"}},  // ER_SP_DOES_NOT_EXIST
	{sql.ErrStoredProceduresNotSupported, Code{1305, "42000"}}, // a database without procedures has none
	{sql.ErrFunctionNotFound, Code{1305, "42000"}},             // ER_SP_DOES_NOT_EXIST: FUNCTION … does not exist
	// GMS's privilege checks that name no table (LOAD DATA's FILE, CREATE
	// USER, …): MySQL's ER_SPECIFIC_ACCESS_DENIED_ERROR.
	{sql.ErrPrivilegeCheckFailed, Code{mysql.ERSpecifiedAccessDenied, "42000"}},
	{sql.ErrFileExists, Code{1086, "HY000"}},       // ER_FILE_EXISTS_ERROR (INTO OUTFILE, export_parquet)
	{sql.ErrLoadDataCannotOpen, Code{29, "HY000"}}, // ER_FILE_NOT_FOUND (LOAD DATA INFILE)
}

// lookupGMS maps a GMS error kind.
func lookupGMS(err error) (Code, bool) {
	for _, k := range gmsKinds {
		if k.kind.Is(err) {
			return k.code, true
		}
	}
	return Code{}, false
}

// kindPatterns match the messages of gmsKinds, for errors GMS has already
// flattened into a 1105 SQLError on the wire.
var kindPatterns = func() []*regexp.Regexp {
	verbs := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
	out := make([]*regexp.Regexp, len(gmsKinds))
	for i, k := range gmsKinds {
		parts := verbs.Split(k.kind.Message, -1)
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		out[i] = regexp.MustCompile("^" + strings.Join(parts, "(?s:.*)") + "$")
	}
	return out
}()

// vitessSyntax matches the parser's syntax errors, which GMS passes on as
// 1105.
var vitessSyntax = regexp.MustCompile(`^syntax error at position \d+`)

var nestedCode = regexp.MustCompile(`(?s)^(.*) \(errno (\d+)\) \(sqlstate (\w+)\)$`)

// Remap refines a SQLError that GMS produced as the generic 1105 when its
// message is one of lakesql's or a known GMS kind's. The wire server's
// handler calls it, since GMS casts errors before any hook sees them.
func Remap(se *mysql.SQLError) *mysql.SQLError {
	if se == nil || se.Num != mysql.ERUnknownError {
		return se
	}
	// A SQLError that GMS wrapped in one of its kinds (parser errors are)
	// keeps its code at the end of the message.
	if m := nestedCode.FindStringSubmatch(se.Message); m != nil {
		num, _ := strconv.Atoi(m[2])
		return mysql.NewSQLError(num, m[3], "%s", m[1])
	}
	if vitessSyntax.MatchString(se.Message) {
		return mysql.NewSQLError(mysql.ERParseError, "42000", "%s", se.Message)
	}
	if c, ok := lookupMessage(se.Message); ok {
		return mysql.NewSQLError(c.Num, c.State, "%s", se.Message)
	}
	for i, re := range kindPatterns {
		if re.MatchString(se.Message) {
			c := gmsKinds[i].code
			return mysql.NewSQLError(c.Num, c.State, "%s", se.Message)
		}
	}
	return se
}
