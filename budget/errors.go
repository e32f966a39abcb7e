package budget

import (
	"errors"
	"fmt"
)

// SysVar is the session (and global) variable holding a query's budget
// in bytes; the errors name it so the user knows what to raise.
const SysVar = "lakesql_query_memory"

// ErrExceeded is returned by a charge that would take a query past its
// memory budget. The query fails (the operator could not spill); the
// session and the server go on. Match it with errors.Is.
var ErrExceeded = errors.New("query memory budget exceeded")

// ExceededError says which operator ran out of budget and by how much.
type ExceededError struct {
	Op    string // the operator that asked: "sort", "hash join build", …
	Limit int64  // the query's budget in bytes
	Used  int64  // what the query held when it asked
	Want  int64  // what it asked for
	// Server: the server's cap (lakesql_server_memory) was reached, not
	// the query's own budget; Limit and Used are then the server's.
	Server bool
}

func (e *ExceededError) Error() string {
	if e.Server {
		return fmt.Sprintf("%v: %s needs more memory than the server has left: running queries hold %d of the %d bytes %s allows (asked for %d more); retry when they finish, or raise it with SET GLOBAL %s = <bytes>",
			ErrExceeded, e.Op, e.Used, e.Limit, ServerSysVar, e.Want, ServerSysVar)
	}
	return fmt.Sprintf("%v: %s needs more than the %d bytes %s allows (the query holds %d and asked for %d more); raise it with SET %s = <bytes>",
		ErrExceeded, e.Op, e.Limit, SysVar, e.Used, e.Want, SysVar)
}

func (e *ExceededError) Unwrap() error { return ErrExceeded }
