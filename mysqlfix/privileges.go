package mysqlfix

import (
	"errors"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0 refuses a statement the user lacks a table or database
// privilege for with one message, "command denied to user 'u'@'h'"
// (sql.ErrPrivilegeCheckFailed), whatever the statement. MySQL names the
// object: 1142 "INSERT command denied to user 'u'@'h' for table 't'" for
// a table's statement, 1044 "Access denied for user 'u'@'h' to database
// 'd'" for a database's. privilegeError gives the statement's code and
// message; statements on neither (CREATE USER, LOAD DATA's FILE) keep
// the generic 1227 the code table gives GMS's error.

// gmsCommandDenied is the start of GMS's ErrPrivilegeCheckFailed text.
const gmsCommandDenied = "command denied to user "

// privilegeError refines err, GMS's privilege refusal of query, or
// returns nil when it is not one or the statement names no table or
// database.
func privilegeError(err error, query string) error {
	var se *mysql.SQLError
	if !errors.As(err, &se) || !strings.HasPrefix(se.Message, gmsCommandDenied) {
		return nil
	}
	who := strings.TrimPrefix(se.Message, gmsCommandDenied)
	st, perr := ast.Parse(query)
	if perr != nil {
		return nil
	}
	var cmd, table string
	switch x := st.(type) {
	case *ast.Insert:
		cmd, table = strings.ToUpper(x.Action), x.Table.Name.String()
		if cmd == "" {
			cmd = "INSERT"
		}
	case *ast.Update:
		cmd, table = "UPDATE", firstTable(x.TableExprs)
	case *ast.Delete:
		cmd, table = "DELETE", firstTable(x.TableExprs)
	case *ast.DDL:
		cmd, table = strings.ToUpper(x.Action), x.Table.Name.String()
		if table == "" && len(x.FromTables) > 0 {
			table = x.FromTables[0].Name.String()
		}
	case *ast.DBDDL:
		if x.DBName == "" {
			return nil
		}
		return mysql.NewSQLError(mysql.ERDBAccessDenied, "42000", "Access denied for user %s to database '%s'", who, x.DBName)
	}
	if table == "" {
		return nil
	}
	// ER_TABLEACCESS_DENIED_ERROR
	return mysql.NewSQLError(1142, "42000", "%s command denied to user %s for table '%s'", cmd, who, table)
}

// firstTable is the name of the first table of a FROM list.
func firstTable(exprs ast.TableExprs) string {
	var name string
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		if t, ok := n.(ast.TableName); ok && name == "" && !t.IsEmpty() {
			name = t.Name.String()
		}
		return name == "", nil
	}, exprs)
	return name
}
