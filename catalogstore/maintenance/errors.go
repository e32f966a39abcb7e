package maintenance

import (
	"errors"
	"fmt"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

// These errors are caller errors: bad arguments, or a dataset another
// maintainer is working on. Nothing was changed when one is returned. Each
// wraps the catalogstore sentinel the engine maps to a MySQL error code.
var (
	// ErrBadAge: an age such as '7d' that is negative or does not parse.
	ErrBadAge = fmt.Errorf("%w: bad age", catalogstore.ErrBadValue)
	// ErrWindowTooShort: orphan cleanup asked for a safety window below
	// MinOrphanWindow.
	ErrWindowTooShort = fmt.Errorf("%w: orphan window too short", catalogstore.ErrBadValue)
	// ErrBadStrategy: a compaction rule other than brute, sort_aware or
	// performance.
	ErrBadStrategy = fmt.Errorf("%w: unknown compaction rule", catalogstore.ErrBadValue)
	// ErrNoDeleteDebt: the delete_debt compaction rule was asked for;
	// under copy-on-write DELETE there is never any (see the package
	// documentation).
	ErrNoDeleteDebt = fmt.Errorf("%w: no delete debt under copy-on-write deletes", catalogstore.ErrNotSupported)
	// ErrLeaseHeld: another maintainer holds the dataset's maintenance
	// lease; it is returned as a *LeaseHeldError naming the holder and when
	// the lease expires. Retry after that time.
	ErrLeaseHeld = fmt.Errorf("%w: maintenance lease held", catalogstore.ErrLocked)
	// ErrLeaseLost: the caller's lease expired and was taken over (or
	// released) before the work finished; the work was abandoned.
	ErrLeaseLost = fmt.Errorf("%w: maintenance lease lost", catalogstore.ErrLocked)
)

// These errors end a compaction pass after its outputs were written; the
// outputs are deleted and the dataset is unchanged.
var (
	// ErrInputsChanged: another writer removed or rewrote some of the
	// compaction's input files before it could commit. Running compaction
	// again re-plans on the new state.
	ErrInputsChanged = fmt.Errorf("%w: compaction inputs changed", catalogstore.ErrCommitConflict)
	// ErrRowCountMismatch: the rows read or written differ from the rows
	// the manifest lists for the inputs. It is alertable: a healthy
	// dataset never gets here.
	ErrRowCountMismatch = errors.New("compaction row counts do not balance")
)

// These errors are platform inconsistencies, always wrapped with
// catalogstore.MarkAlertable.
var (
	// ErrCleanupRefused: orphan cleanup found a retained snapshot whose
	// document or manifest cannot be read, so it cannot know which files
	// are live and deletes nothing.
	ErrCleanupRefused = errors.New("orphan cleanup refused")
	// ErrStillReferenced: a file orphan cleanup removed turned out to be
	// referenced by a snapshot.
	ErrStillReferenced = errors.New("orphan cleanup removed a referenced file")
	// ErrStatsMismatch: a statistics refresh read a footer that disagrees
	// with the manifest on the file's row count.
	ErrStatsMismatch = errors.New("file footer disagrees with the manifest")
)

// LeaseHeldError is ErrLeaseHeld with who holds the lease (and its
// process, when recorded) and until when.
type LeaseHeldError struct {
	Dataset string
	Holder  string
	Expires time.Time
	PID     int    // 0: not recorded
	Host    string // "": not recorded
}

func (e *LeaseHeldError) Error() string {
	proc := ""
	if e.PID > 0 {
		proc = fmt.Sprintf(" (pid %d on %s)", e.PID, e.Host)
	}
	return fmt.Sprintf("%v: the maintenance lease on %s is held by %q%s until %s; if that process is gone, CALL break_lease('%s')",
		catalogstore.ErrLocked, e.Dataset, e.Holder, proc, e.Expires.UTC().Format(time.RFC3339), e.Dataset)
}

// Unwrap makes errors.Is(err, ErrLeaseHeld) and errors.Is(err,
// catalogstore.ErrLocked) true.
func (e *LeaseHeldError) Unwrap() error { return ErrLeaseHeld }
