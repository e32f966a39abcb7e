package reliability

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
)

// The ledger of the randomized schedule: every write unit (an autocommit
// statement or a transaction) a client ran, with the outcome the client
// saw, and the rows it touched before and after. The final table must be
// what the acknowledged units say; units whose outcome the client could
// not know must have applied wholly or not at all.

// outcome is what the client learnt about a unit.
type outcome int

const (
	outAcked   outcome = iota // OK received (for a transaction: for its COMMIT)
	outRefused                // an error packet, a ROLLBACK, or the transaction never reached COMMIT
	outUnknown                // the connection died (killed, or its server SIGKILLed) while the unit's last statement ran
)

func (o outcome) String() string { return [...]string{"acknowledged", "refused", "unknown"}[o] }

// errHung marks a statement that did not answer in time.
var errHung = errors.New("statement hung")

// classify is the outcome of a unit's last statement: an error packet from
// the server is a refusal, anything else (a closed or reset connection, a
// hung statement) leaves it unknown.
func classify(err error) outcome {
	var me *gomysql.MySQLError
	switch {
	case err == nil:
		return outAcked
	case errors.As(err, &me):
		return outRefused
	default:
		return outUnknown
	}
}

// rowState is a ledger row as a unit left it (or found it): absent, or
// present with value v.
type rowState struct {
	present bool
	v       int64
}

func (s rowState) String() string {
	if !s.present {
		return "absent"
	}
	return fmt.Sprintf("v=%d", s.v)
}

// unit is one write unit of one client.
type unit struct {
	grp     int64 // unique; the grp of the rows it inserts
	worker  int
	sql     []string // its statements, for messages
	outcome outcome
	err     error
	// before and after are the states of the ledger rows it touched.
	before, after map[int64]rowState
	// side are the ids it inserted into the side table; wipesAtStart is
	// how many DROP/TRUNCATEs of the side table had begun when it began.
	side         []int64
	wipesAtStart int64
}

func (u *unit) describe() string {
	s := strings.Join(u.sql, "; ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	msg := fmt.Sprintf("unit %d of client %d (%s", u.grp, u.worker, u.outcome)
	if u.err != nil {
		msg += ": " + u.err.Error()
	}
	return msg + ") " + s
}

// tableRow is a row of the ledger table (or of the side table: v unused).
type tableRow struct{ id, grp, v int64 }

// ledgerCheck compares the final tables with the ledger.
type ledgerCheck struct {
	units []*unit
	// model is every row's state per the acknowledged and refused units,
	// for rows no unknown unit touched; frozen maps rows an unknown unit
	// touched to it (no later unit touches them).
	model  map[int64]rowState
	frozen map[int64]*unit
	wipes  int64 // DROP/TRUNCATEs of the side table begun during the run
}

// check returns one message per violation (empty: the tables agree with
// the ledger) and counts for the log.
func (lc *ledgerCheck) check(main, side []tableRow) (violations []string, stats map[string]int) {
	stats = map[string]int{}
	fail := func(format string, args ...any) {
		violations = append(violations, fmt.Sprintf(format, args...))
	}
	got := map[int64]rowState{}
	for _, r := range main {
		if _, dup := got[r.id]; dup {
			fail("row %d (grp %d) is in the ledger table more than once", r.id, r.grp)
		}
		got[r.id] = rowState{true, r.v}
	}
	// Rows of known outcome: exactly the model.
	for id, want := range lc.model {
		if g := got[id]; g != want {
			fail("row %d: %s, want %s", id, g, want)
		}
	}
	for id := range got {
		if _, known := lc.model[id]; !known && lc.frozen[id] == nil {
			fail("row %d is in the table but no unit wrote it", id)
		}
	}
	sideByGrp := map[int64]int{}
	sideSeen := map[int64]bool{}
	for _, r := range side {
		if sideSeen[r.id] {
			fail("side row %d (grp %d) is there more than once", r.id, r.grp)
		}
		sideSeen[r.id] = true
		sideByGrp[r.grp]++
	}
	units := map[int64]*unit{}
	for _, u := range lc.units {
		units[u.grp] = u
		stats[u.outcome.String()]++
		lc.checkUnit(u, got, sideByGrp[u.grp], fail, stats)
	}
	for grp := range sideByGrp {
		if units[grp] == nil {
			fail("side rows of grp %d that no unit wrote", grp)
		}
	}
	sort.Strings(violations)
	return violations, stats
}

// checkUnit: an unknown unit applied wholly or not at all; a unit's side
// rows are all there or none, never a refused unit's, always an
// acknowledged one's unless the side table was wiped after it began, and
// only beside its ledger-table changes.
func (lc *ledgerCheck) checkUnit(u *unit, got map[int64]rowState, sideN int, fail func(string, ...any), stats map[string]int) {
	applied, notApplied := true, true
	if u.outcome == outUnknown {
		for id := range u.after {
			applied = applied && got[id] == u.after[id]
			notApplied = notApplied && got[id] == u.before[id]
		}
		switch {
		case applied && notApplied: // it changed nothing visible (e.g. a DELETE of nothing)
		case applied:
			stats["unknown, applied"]++
		case notApplied:
			stats["unknown, not applied"]++
		default:
			fail("%s is half-visible: %s", u.describe(), diffStates(u, got))
		}
	}
	if len(u.side) == 0 {
		return
	}
	switch {
	case sideN != 0 && sideN != len(u.side):
		fail("%s: %d of its %d side rows are there", u.describe(), sideN, len(u.side))
	case u.outcome == outRefused && sideN != 0:
		fail("%s: its side rows are there", u.describe())
	case u.outcome == outAcked && sideN == 0 && lc.wipes == u.wipesAtStart:
		fail("%s: its side rows are gone, and the side table was not dropped or truncated after it began", u.describe())
	case sideN != 0 && u.outcome == outUnknown && !applied:
		fail("%s: its side rows are there but its ledger-table changes are not: %s", u.describe(), diffStates(u, got))
	}
}

// diffStates lists the unit's rows as they are against before → after.
func diffStates(u *unit, got map[int64]rowState) string {
	var ids []int64
	for id := range u.after {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var parts []string
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("row %d is %s (before %s, after %s)", id, got[id], u.before[id], u.after[id]))
	}
	return strings.Join(parts, "; ")
}

func isHung(err error) bool { return errors.Is(err, errHung) }
