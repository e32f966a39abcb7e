package mysqlfix

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// GMS v0.20.0 creates some of its errors without the values their
// messages name, and the client reads "expression #%!d(MISSING) of SELECT
// list contains nonaggregated column '%!s(MISSING)'". Every error a client
// sees passes FixMessage once (the wire handler's PanicGuard and
// engine.Conn), which puts the real values back where the statement
// gives them and never lets a format artifact through.

// missingVerb is what fmt writes for a verb without a value.
var missingVerb = regexp.MustCompile(`%!\w?\(MISSING\)`)

// gmsWindowMix is the message GMS gives a window function beside
// aggregation: sql.ErrNonAggregatedColumnWithoutGroupBy created without
// values (planbuilder/aggregates.go, buildAggregateFunc and
// buildWindowFunc).
var gmsWindowMix = sql.ErrNonAggregatedColumnWithoutGroupBy.New().Error()

// FixMessage returns err with a readable message when GMS formatted it
// without its values or prefixed MySQL's (duplicateEntry), with MySQL's
// code where GMS used another statement's (alterCode), or without the
// object a privilege refusal is about (privileges.go); any other error is
// returned unchanged.
func FixMessage(err error, query string) error {
	if dup, ok := duplicateEntry(err); ok {
		return dup
	}
	if pe := privilegeError(err, query); pe != nil {
		return pe
	}
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return err
	}
	if fixed := alterCode(se, query); fixed != nil {
		return fixed
	}
	if !strings.Contains(se.Message, "(MISSING)") {
		return err
	}
	if se.Message == gmsWindowMix {
		return windowMixError(query)
	}
	// Nothing in the statement says what the value was: say so plainly.
	msg := missingVerb.ReplaceAllString(se.Message, "?")
	return mysql.NewSQLError(se.Num, se.State, "%s", msg)
}

// gmsDuplicatePrefix is what GMS puts before the message of a key
// violation (sql.ErrPrimaryKeyViolation wrapping the provider's
// sql.UniqueKeyError); the provider's message is MySQL's own.
const gmsDuplicatePrefix = "duplicate primary key given: "

// duplicateEntry returns a primary-key violation as MySQL words it,
// "Duplicate entry '1' for key 't.PRIMARY'" (1062, 23000), whether GMS
// has made it a SQLError yet or not.
func duplicateEntry(err error) (error, bool) {
	if err == nil {
		return nil, false
	}
	msg := err.Error()
	var se *mysql.SQLError
	if errors.As(err, &se) {
		msg = se.Message
	}
	i := strings.Index(msg, gmsDuplicatePrefix+"Duplicate entry '")
	if i < 0 {
		return nil, false
	}
	return mysql.NewSQLError(mysql.ERDupEntry, "23000", "%s", msg[i+len(gmsDuplicatePrefix):]), true
}

// windowMixError names the select-list expression that mixes a window
// function with aggregation, which the rewrite in windowagg.go does not
// reach (inside a subquery, or beside SELECT *).
func windowMixError(query string) error {
	expr, pos := "", 0
	if st, err := ast.Parse(markRollup(query)); err == nil {
		_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
			sel, ok := n.(*ast.Select)
			if !ok || expr != "" {
				return expr == "", nil
			}
			for i, se := range sel.SelectExprs {
				if containsExpr(se, isWindow) && (len(sel.GroupBy) > 0 || containsExpr(sel.SelectExprs, isAggregate)) {
					expr, pos = render(se), i+1
					if ae, ok := se.(*ast.AliasedExpr); ok && ae.InputExpression != "" {
						// The text as written; vitess keeps a dangling
						// "AS" in it when there is an alias.
						expr = strings.TrimSpace(ae.InputExpression)
						if !ae.As.IsEmpty() && len(expr) > 3 && strings.EqualFold(expr[len(expr)-3:], " as") {
							expr = strings.TrimSpace(expr[:len(expr)-3])
						}
					}
					break
				}
			}
			return expr == "", nil
		}, st)
	}
	if expr == "" {
		return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
			"This version of lakesql doesn't yet support: window functions beside aggregation in this position (a subquery or SELECT *)")
	}
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "%s",
		fmt.Sprintf("This version of lakesql doesn't yet support: expression #%d of SELECT list (%s) is a window function in a grouped query inside a subquery or beside SELECT *; "+
			"move the grouping into a derived table", pos, expr))
}
