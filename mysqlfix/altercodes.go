package mysqlfix

import (
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS checks the rows of an ALTER TABLE that narrows a column with the
// same conversions as INSERT, so a value that no longer fits fails with
// INSERT's codes: 1406 "string … is too large for column '<type>'" and
// 1048 "column … is non-nullable". MySQL 8 gives the ALTER its own: 1265
// "Data truncated for column" (SQLSTATE 01000) and 1138 "Invalid use of
// NULL value" (22004). alterCode renames them, only for ALTER TABLE.

var (
	tooLong  = regexp.MustCompile(`^string '(?s:.*)' is too large for column '[^']*'$`)
	nullInto = regexp.MustCompile(`^column name '([^']*)' is non-nullable but attempted to set a value of null$`)
)

// alterCode returns MySQL's error for se when query is an ALTER TABLE
// that failed converting its rows, or nil. se may still carry the
// generic 1105 (the wire handler remaps codes after this).
func alterCode(se *mysql.SQLError, query string) *mysql.SQLError {
	switch se.Num {
	case 1406, mysql.ERBadNullError, mysql.ERUnknownError:
	default:
		return nil
	}
	long, null := tooLong.MatchString(se.Message), nullInto.FindStringSubmatch(se.Message)
	if !long && null == nil {
		return nil
	}
	st, err := ast.Parse(query)
	if err != nil {
		return nil
	}
	alter, ok := st.(*ast.AlterTable)
	if !ok {
		return nil
	}
	if null != nil {
		return mysql.NewSQLError(mysql.ERInvalidUseOfNull, "22004",
			"Invalid use of NULL value: column '%s' holds NULLs; set them to a value before declaring it NOT NULL", null[1])
	}
	return mysql.NewSQLError(mysql.ERWarnDataTruncated, "01000",
		"Data truncated for column '%s': a value is longer than the new type allows; shorten those values first or keep the wider type",
		strings.Join(changedColumns(alter), "', '"))
}

// changedColumns names the columns an ALTER TABLE modifies or changes.
func changedColumns(alter *ast.AlterTable) []string {
	var names []string
	for _, d := range alter.Statements {
		if d.TableSpec == nil || (d.ColumnAction != ast.ModifyStr && d.ColumnAction != ast.ChangeStr) {
			continue
		}
		for _, c := range d.TableSpec.Columns {
			names = append(names, c.Name.String())
		}
	}
	return names
}
