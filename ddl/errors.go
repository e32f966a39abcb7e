package ddl

import (
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/sqlerr"
)

// SyntaxError is a malformed lakehouse statement. GMS reports every parser
// error as a syntax error (ER_PARSE_ERROR, 1064), keeping this message.
type SyntaxError struct {
	// Position is one past the byte offset where the offending token ends,
	// the convention of vitess's own "syntax error at position N".
	Position int
	// Near is the offending token; empty at the end of the statement.
	Near string
	// Message says what was expected instead.
	Message string
}

// Unwrap makes a SyntaxError match sqlerr.ErrSyntax (ER_PARSE_ERROR).
func (e *SyntaxError) Unwrap() error { return sqlerr.ErrSyntax }

func (e *SyntaxError) Error() string {
	if e.Near == "" {
		return fmt.Sprintf("syntax error at position %d at the end of the statement: %s", e.Position, e.Message)
	}
	return fmt.Sprintf("syntax error at position %d near '%s': %s", e.Position, e.Near, e.Message)
}

// These errors can occur when parsing a statement that vitess accepts but
// lakesql refuses.
var (
	// ErrMySQLPartitioning: a CREATE or ALTER TABLE with MySQL's
	// PARTITION BY (or ADD/DROP/... PARTITION), which GMS would parse and
	// silently drop. lakesql tables use PARTITIONED BY.
	ErrMySQLPartitioning = fmt.Errorf("%w: MySQL partitioning", catalogstore.ErrNotSupported)
)

// These errors can occur when executing a lakehouse statement. Errors of the
// catalog (catalogstore.ErrWorkspaceNotFound and the like) are returned
// unchanged, so errors.Is matches them.
var (
	// ErrNotLakesqlSession: the context's session does not implement
	// Session (the engine was not set up with lakesql sessions).
	ErrNotLakesqlSession = errors.New("the session is not a lakesql session")
	// ErrNoWorkspace: the statement needs a workspace and the session has
	// none selected.
	ErrNoWorkspace = errors.New("no workspace selected")
	// ErrDropCurrentWorkspace: DROP WORKSPACE of the session's current
	// workspace; switch to another workspace first.
	ErrDropCurrentWorkspace = errors.New("cannot drop the current workspace")
)

// partitioningError refuses a MySQL partitioning clause. It matches
// ErrMySQLPartitioning.
type partitioningError struct{ clause string }

func (e *partitioningError) Error() string {
	return "lakesql tables are partitioned with PARTITIONED BY (day(ts), bucket(16, id), ...); MySQL " +
		e.clause + " is not supported"
}

func (e *partitioningError) Unwrap() error { return ErrMySQLPartitioning }
