package txn

import (
	"fmt"

	"github.com/lakesql/lakesql/catalogstore"
)

// IncarnationError refuses a transaction that wrote a table which was then
// dropped, or dropped and recreated, by someone else: its staged rows
// belong to an incarnation that no longer exists, so committing any part
// of it would lose acknowledged rows (issue 18). It wraps
// catalogstore.ErrIncarnationChanged (MySQL 1412, ER_TABLE_DEF_CHANGED).
type IncarnationError struct {
	Table string // collection.name
	// Statement is set when a statement of the transaction met the new
	// incarnation; otherwise COMMIT refused, and the transaction was rolled
	// back.
	Statement bool
	// Altered: the table was altered (its schema changed), not dropped.
	Altered bool
}

func (e *IncarnationError) Error() string {
	msg := fmt.Sprintf("table %s was dropped/recreated since the transaction first wrote it", e.Table)
	if e.Altered {
		msg = fmt.Sprintf("the definition of table %s changed (ALTER TABLE) since the transaction first wrote it", e.Table)
	}
	switch {
	case e.Statement:
		msg += "; the transaction cannot commit: roll it back and retry"
	default:
		msg += "; the transaction was rolled back"
	}
	return msg
}

func (e *IncarnationError) Unwrap() error { return catalogstore.ErrIncarnationChanged }
