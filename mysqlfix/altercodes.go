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

//
// GMS also refuses a column an ALTER TABLE names but the table lacks
// with one code for every action, 1054 "table "t" does not have column",
// and names the table by its plan node for CHANGE and MODIFY. MySQL 8
// answers DROP COLUMN with 1091 ER_CANT_DROP_FIELD_OR_KEY and the others
// with 1054 "Unknown column 'x' in 't'"; a duplicate added column is
// 1060 "Duplicate column name 'c'". columnCode gives those.

var (
	tooLong   = regexp.MustCompile(`^string '(?s:.*)' is too large for column '[^']*'$`)
	nullInto  = regexp.MustCompile(`^column name '([^']*)' is non-nullable but attempted to set a value of null$`)
	noColumn  = regexp.MustCompile(`^table "(?s:.*)" does not have column "([^"]*)"$`)
	dupColumn = regexp.MustCompile(`^Column "([^"]*)" already exists$`)
)

// alterCode returns MySQL's error for se when query is an ALTER TABLE
// that failed converting its rows, or nil. se may still carry the
// generic 1105 (the wire handler remaps codes after this).
func alterCode(se *mysql.SQLError, query string) *mysql.SQLError {
	if fixed := columnCode(se, query); fixed != nil {
		return fixed
	}
	switch se.Num {
	case 1406, mysql.ERBadNullError, mysql.ERUnknownError:
	default:
		return nil
	}
	long, null := tooLong.MatchString(se.Message), nullInto.FindStringSubmatch(se.Message)
	if !long && null == nil {
		return nil
	}
	alter, ok := parseAlter(query)
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

// columnCode returns MySQL's error for se when query is an ALTER TABLE
// that GMS refused for a missing or duplicate column, or nil.
func columnCode(se *mysql.SQLError, query string) *mysql.SQLError {
	switch se.Num {
	case mysql.ERBadFieldError, mysql.ERDupFieldName, mysql.ERUnknownError:
	default:
		return nil
	}
	missing, dup := noColumn.FindStringSubmatch(se.Message), dupColumn.FindStringSubmatch(se.Message)
	if missing == nil && dup == nil {
		return nil
	}
	alter, ok := parseAlter(query)
	if !ok {
		return nil
	}
	if dup != nil {
		return mysql.NewSQLError(mysql.ERDupFieldName, "42S21", "Duplicate column name '%s'", dup[1])
	}
	action, ok := columnAction(alter, missing[1])
	switch {
	case !ok:
		return nil
	case action == ast.DropStr:
		return mysql.NewSQLError(mysql.ERCantDropFieldOrKey, "42000", "Can't DROP '%s'; check that column/key exists", missing[1])
	default:
		return mysql.NewSQLError(mysql.ERBadFieldError, "42S22", "Unknown column '%s' in '%s'", missing[1], alter.Table.Name.String())
	}
}

// parseAlter returns query as an ALTER TABLE.
func parseAlter(query string) (*ast.AlterTable, bool) {
	st, err := ast.Parse(query)
	if err != nil {
		return nil, false
	}
	alter, ok := st.(*ast.AlterTable)
	return alter, ok
}

// columnAction returns the column action (drop, rename, change, modify)
// of the clause of alter that names the existing column col.
func columnAction(alter *ast.AlterTable, col string) (string, bool) {
	for _, d := range alter.Statements {
		switch d.ColumnAction {
		case ast.DropStr, ast.RenameStr, ast.ChangeStr, ast.ModifyStr:
			if strings.EqualFold(d.Column.String(), col) {
				return d.ColumnAction, true
			}
		}
	}
	return "", false
}
