package engine

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/catalogstore"
)

// Re-running an autocommit statement that lost a commit race.
//
// A statement is planned and executed against the snapshot it read; when
// its commit finds the head moved (another writer committed first) the
// catalog refuses it (ErrCommitConflict, re-prepare) and nothing of it
// lands. Inside an explicit transaction that is reported (1213) and the
// client retries the transaction, as in MySQL. An autocommit statement is
// its own transaction, and MySQL would have run it after the rival: so it
// is run again from the start — parsed, planned and executed against the
// new head — as if it had started after the rival committed (snapshot
// isolation). Only a statement whose one commit was refused qualifies (the
// session notes that), and only while nothing was sent to the client.

const (
	// rerunAttempts bounds how often one statement is run.
	rerunAttempts = 10
	// rerunBackoff and maxRerunBackoff bound the jittered pause before a
	// re-run: a uniform pause up to rerunBackoff·2^attempt, at most
	// maxRerunBackoff.
	rerunBackoff    = 5 * time.Millisecond
	maxRerunBackoff = time.Second
)

// rerunnable reports whether err refuses a commit that re-preparing may
// let through: the head moved. A dropped or recreated table is not one.
func rerunnable(err error) bool {
	return errors.Is(err, catalogstore.ErrCommitConflict) && !errors.Is(err, catalogstore.ErrIncarnationChanged)
}

// NoteRefusedCommit records that the running statement's only commit was
// refused with err and nothing of the statement landed; the runner then
// runs the statement again when err is rerunnable. Provider code that
// commits a statement itself (an ALTER's rewrite) calls it through
// provider.NoteRefusedCommit.
func (s *Session) NoteRefusedCommit(err error) {
	if !rerunnable(err) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused = true
}

// takeRefused reports and clears the note.
func (s *Session) takeRefused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.refused
	s.refused = false
	return r
}

// CommandBegin implements sql.LifecycleAwareSession: a statement starts
// with no refusal noted.
func (s *Session) CommandBegin() error {
	s.takeRefused()
	return nil
}

// CommandEnd implements sql.LifecycleAwareSession.
func (s *Session) CommandEnd() {}

// SessionEnd implements sql.LifecycleAwareSession.
func (s *Session) SessionEnd() {}

// autocommitting reports whether the statement of ctx commits by itself:
// autocommit is on and no explicit transaction is open.
func autocommitting(ctx *sql.Context) bool {
	if ctx.GetIgnoreAutoCommit() {
		return false
	}
	v, err := ctx.GetSessionVariable(ctx, "autocommit")
	if err != nil {
		return false
	}
	on, err := sql.ConvertToBool(ctx, v)
	return err == nil && on
}

// rerun runs a statement again after its first run failed with err and
// the session noted a refused commit, until it succeeds, fails for
// another reason, answers the client, or rerunAttempts runs were made.
// run reports whether it sent anything to the client.
func (s *Session) rerun(ctx context.Context, log *slog.Logger, err error, run func() (answered bool, err error)) error {
	for attempt := 1; attempt < rerunAttempts; attempt++ {
		pause := time.Duration(rand.Int64N(int64(min(rerunBackoff<<attempt, maxRerunBackoff)))) + time.Millisecond
		log.Debug("statement lost a commit race; running it again", "attempt", attempt+1, "pause", pause, "cause", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		s.takeRefused()
		var answered bool
		answered, err = run()
		if err == nil || answered || !s.takeRefused() {
			return err
		}
	}
	return err
}

// rerunHandler re-runs refused autocommit statements received over the
// wire (see above), and cancels a command whose client hung up
// (clientgone.go). It sits outside GMS's handler, which plans each
// statement from its text: running the text again plans it afresh.
type rerunHandler struct {
	mysql.Handler
	srv func() *server.Server
	log *slog.Logger
}

// session finds the lakesql session of connection c (nil if none).
func (h rerunHandler) session(c *mysql.Conn) *Session {
	srv := h.srv()
	if srv == nil || c == nil {
		return nil
	}
	var found *Session
	_ = srv.SessionManager().Iter(func(s sql.Session) (bool, error) {
		if s.ID() != c.ConnectionID {
			return false, nil
		}
		found, _ = s.(*Session)
		return true, nil
	})
	return found
}

// run runs one statement with the re-run policy. The session is looked up
// only after a failure, so a statement that succeeds costs nothing more.
func (h rerunHandler) run(ctx context.Context, c *mysql.Conn, run func() (bool, error)) error {
	answered, err := run()
	if err == nil {
		return nil
	}
	s := h.session(c)
	if s != nil {
		// A statement that failed before it was built leaves the
		// file-function stand-in database set (Session.GetCurrentDatabase).
		s.ScopeFileFunctions(false)
	}
	if answered || s == nil || !s.takeRefused() {
		return err
	}
	return s.rerun(ctx, h.log, err, run)
}

func (h rerunHandler) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	if err := tooLarge(c, q); err != nil {
		return err
	}
	ctx, stop := watchClient(ctx, c)
	defer stop()
	var answered bool
	spy := func(r *sqltypes.Result, more bool) error { answered = true; return cb(r, more) }
	return h.run(ctx, c, func() (bool, error) {
		err := h.Handler.ComQuery(ctx, c, q, spy)
		return answered, err
	})
}

func (h rerunHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (string, error) {
	if err := tooLarge(c, q); err != nil {
		return "", err
	}
	ctx, stop := watchClient(ctx, c)
	defer stop()
	var answered bool
	var rest string
	spy := func(r *sqltypes.Result, more bool) error { answered = true; return cb(r, more) }
	err := h.run(ctx, c, func() (bool, error) {
		var err error
		rest, err = h.Handler.ComMultiQuery(ctx, c, q, spy)
		return answered, err
	})
	return rest, err
}

func (h rerunHandler) ComPrepare(ctx context.Context, c *mysql.Conn, q string, p *mysql.PrepareData) ([]*querypb.Field, error) {
	if err := tooLarge(c, q); err != nil {
		return nil, err
	}
	return h.Handler.ComPrepare(ctx, c, q, p)
}

func (h rerunHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	ctx, stop := watchClient(ctx, c)
	defer stop()
	var answered bool
	spy := func(r *sqltypes.Result) error { answered = true; return cb(r) }
	return h.run(ctx, c, func() (bool, error) {
		err := h.Handler.ComStmtExecute(ctx, c, p, spy)
		return answered, err
	})
}
