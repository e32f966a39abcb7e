package catalogstore

import (
	"errors"
	"fmt"
)

// These errors are caller errors: the request named something that does not
// exist, already exists, is protected, or is malformed. They are never
// alertable, and the engine maps each to one MySQL error code.
var (
	ErrBadIdentifier      = errors.New("bad identifier")
	ErrWorkspaceNotFound  = errors.New("workspace not found")
	ErrWorkspaceExists    = errors.New("workspace already exists")
	ErrCollectionNotFound = errors.New("collection not found")
	ErrCollectionExists   = errors.New("collection already exists")
	ErrCollectionNotEmpty = errors.New("collection is not empty")
	// ErrWorkspaceNotEmpty: DROP WORKSPACE without CASCADE on a workspace
	// that still has collections.
	ErrWorkspaceNotEmpty = errors.New("workspace is not empty")
	ErrDatasetNotFound   = errors.New("dataset not found")
	ErrDatasetExists     = errors.New("dataset already exists")
	ErrViewNotFound      = errors.New("view not found")
	ErrViewExists        = errors.New("view already exists")
	ErrSnapshotNotFound  = errors.New("snapshot not found")
	// ErrLocked: the dataset or collection is locked-by someone and cannot
	// be dropped or renamed.
	ErrLocked = errors.New("locked")
	// ErrDeletionProtected: the workspace's deletion_protection is on.
	ErrDeletionProtected = errors.New("deletion protection is on")
	// ErrEgressRestricted: a copy out of a workspace whose
	// egress_protection is on.
	ErrEgressRestricted = errors.New("egress protection is on")
	// ErrMaterializedViewReadOnly: a user write (INSERT, UPDATE, DELETE,
	// TRUNCATE, ALTER) to a materialized view, which only its refresh
	// writes.
	ErrMaterializedViewReadOnly = errors.New("materialized view is read-only")
	// ErrDuplicateFile: a commit would list a data file that is already
	// live (add_files of a registered file).
	ErrDuplicateFile = errors.New("data file already live")
	// ErrUnknownProperty: a workspace or dataset property that does not
	// exist.
	ErrUnknownProperty = errors.New("unknown property")
	// ErrBadValue: a property or argument value of the wrong kind.
	ErrBadValue = errors.New("bad value")
	// ErrSchema: a schema change that is not allowed (narrowing, a
	// duplicate or missing column, a reserved name).
	ErrSchema = errors.New("schema change refused")
	// ErrColumnNotFound, ErrDropNoColumn, ErrColumnExists and
	// ErrLastColumn are the schema changes refused for the columns they
	// name; each is an ErrSchema, told apart because MySQL gives each its
	// own code.
	ErrColumnNotFound = fmt.Errorf("%w: unknown column", ErrSchema)
	ErrDropNoColumn   = fmt.Errorf("%w: cannot drop a column that does not exist", ErrSchema)
	ErrColumnExists   = fmt.Errorf("%w: duplicate column name", ErrSchema)
	ErrLastColumn     = fmt.Errorf("%w: a table keeps at least one column; use DROP TABLE instead", ErrSchema)
	// ErrNotSupported: a statement or option lakesql does not support.
	ErrNotSupported = errors.New("not supported")
	// ErrDuplicateKey: rows already hold a primary key twice (ADD
	// PRIMARY KEY on data that is not unique).
	ErrDuplicateKey = errors.New("duplicate primary key")
	// ErrNullKey: a row holds NULL in a column that would become part of
	// the primary key.
	ErrNullKey = errors.New("invalid use of NULL value")
)

// These errors come from Commit. Each is returned inside a *CommitError that
// says whether retrying the same commit is safe.
var (
	// ErrCommitConflict: another writer moved the dataset between the
	// snapshot the work was prepared against and the commit.
	ErrCommitConflict = errors.New("commit conflict")
	// ErrSpecChanged is a commit conflict re-basing cannot resolve: the
	// partition spec changed since the rows were split into files, so the
	// statement must be prepared again.
	ErrSpecChanged = fmt.Errorf("%w: the partition spec changed", ErrCommitConflict)
	// ErrSchemaChanged is the other: the table's schema changed (ALTER
	// TABLE) since the rows were written under it, so they may lack a
	// column's default or carry a dropped one (Commit.CheckSchema).
	ErrSchemaChanged = fmt.Errorf("%w: the table's schema changed", ErrCommitConflict)
	// ErrIncarnationChanged: the dataset was dropped and recreated (its
	// table uuid changed) since the work was prepared.
	ErrIncarnationChanged = errors.New("the table was recreated")
	// ErrManifestUnreadable: the parent snapshot's manifest cannot be
	// read; the commit is refused rather than treating it as empty. It is
	// also alertable.
	ErrManifestUnreadable = errors.New("manifest unreadable")
)

// Retry says what a caller may do after a failed commit.
type Retry int

const (
	// RePrepare: the work must be rebuilt from fresh metadata.
	RePrepare Retry = iota
	// Retryable: the same commit may be submitted again.
	Retryable
	// OutcomeUnknown: the metastore transaction failed in a way that may
	// come after it applied (a cancelled context, a lost connection), so
	// the commit may have landed: none of its files may be deleted, and
	// it must not be submitted again blindly (MayHaveLanded).
	OutcomeUnknown
)

func (r Retry) String() string {
	switch r {
	case Retryable:
		return "retryable"
	case OutcomeUnknown:
		return "outcome unknown"
	}
	return "re-prepare"
}

// CommitError is a refused commit. Its files were never referenced and are
// orphans for cleanup — unless its Retry is OutcomeUnknown.
type CommitError struct {
	Dataset string
	Err     error // one of the commit sentinels, or a metastore error
	Retry   Retry
	Detail  string
}

func (e *CommitError) Error() string {
	msg := fmt.Sprintf("commit to %s refused (%s): %v", e.Dataset, e.Retry, e.Err)
	if e.Retry == OutcomeUnknown {
		msg = fmt.Sprintf("commit to %s may have landed (outcome unknown): %v", e.Dataset, e.Err)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *CommitError) Unwrap() error { return e.Err }

// MayHaveLanded reports whether err is a commit error after which the
// commit may be in the table: its files must stay.
func MayHaveLanded(err error) bool {
	var ce *CommitError
	return errors.As(err, &ce) && ce.Retry == OutcomeUnknown
}

// IsRetryable reports whether err is a commit error that may be retried
// unchanged.
func IsRetryable(err error) bool {
	var ce *CommitError
	return errors.As(err, &ce) && ce.Retry == Retryable
}

// Severity grades an alertable error.
type Severity string

const (
	SeverityWarning  Severity = "warning"
	SeverityError    Severity = "error"
	SeverityCritical Severity = "critical"
)

// AlertableError marks a platform inconsistency: a state that should be
// impossible (a summary that disagrees with its manifest, an unreadable
// manifest). The alert sinks report it; it is never silently swallowed.
// Caller errors are never alertable.
type AlertableError struct {
	Err      error
	Severity Severity
	// Fingerprint identifies the failure across occurrences (the sinks
	// salt it with the component name).
	Fingerprint string
	Labels      map[string]string
}

func (e *AlertableError) Error() string { return e.Err.Error() }
func (e *AlertableError) Unwrap() error { return e.Err }

// MarkAlertable wraps err as alertable.
func MarkAlertable(err error, sev Severity, fingerprint string, labels map[string]string) error {
	if err == nil {
		return nil
	}
	return &AlertableError{Err: err, Severity: sev, Fingerprint: fingerprint, Labels: labels}
}

// IsAlertable reports whether err, or any error it wraps, is alertable.
func IsAlertable(err error) bool {
	var ae *AlertableError
	return errors.As(err, &ae)
}
