package mysqlfix

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// MySQL answers every statement with rows or an error and keeps the
// connection. GMS v0.20.0 panics on some statements (its join planner on
// some multi-way joins, expressions given values of an unexpected type) and
// only recovers panics of the goroutine that streams rows: a panic while
// parsing, planning or building the result escapes to vitess, which logs it
// and closes the connection (the client sees "invalid connection"), and a
// panic in the embedded API reaches the caller. The guards here turn such a
// panic into error 1105 on that statement, logged with its query.

// ErrPanic marks a statement that panicked inside GMS or lakesql; the
// connection and the server go on. Match it with errors.Is.
var ErrPanic = errors.New("internal error")

// PanicError is the error a recovered panic becomes: Value is what was
// passed to panic, Stack where it was raised.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("internal error: %v", e.Value) }

// Is makes errors.Is(err, ErrPanic) hold.
func (e *PanicError) Is(target error) bool { return target == ErrPanic }

// Unwrap returns the panic value when it was an error (runtime errors are).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// SQLError is the error the client receives: 1105 (ER_UNKNOWN_ERROR) with
// the cause, as MySQL reports internal errors.
func (e *PanicError) SQLError() *mysql.SQLError {
	return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "%s", e.Error())
}

// CatchPanic runs fn and returns its error; a panic in fn becomes a
// *PanicError, logged at error level with the query and the stack.
func CatchPanic(ctx context.Context, log *slog.Logger, query string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Recovered(ctx, log, query, r)
		}
	}()
	return fn()
}

// Recovered makes the error for r, a value just recovered from a panic
// while running query, and logs it with the stack. Call it from the
// deferred function that called recover, so the stack is the panic's.
func Recovered(ctx context.Context, log *slog.Logger, query string, r any) *PanicError {
	pe := &PanicError{Value: r, Stack: debug.Stack()}
	if log == nil {
		log = slog.Default()
	}
	log.ErrorContext(ctx, "statement panicked; it fails with an error and the connection stays open",
		"query", query, "panic", fmt.Sprint(r), "stack", string(pe.Stack))
	return pe
}

// gmsStreamPanic is the prefix GMS's row-streaming goroutines give a panic
// they recovered themselves (server/handler.go, pan2err).
const gmsStreamPanic = "handler caught panic: "

// PanicGuard wraps the wire handler GMS builds so that no panic in a
// command closes the client's connection. OnPanic, if set, runs after a
// recovered panic with the connection it happened on, before the error is
// sent: the engine rolls back the session's staged writes there, so a
// statement that panicked half-way changes nothing. It is safe for
// concurrent use if the wrapped handler is.
type PanicGuard struct {
	mysql.Handler
	Log     *slog.Logger
	OnPanic func(c *mysql.Conn)
}

// guard runs fn, turning a panic (and a panic GMS recovered while
// streaming rows) into a logged 1105 error; other errors get their
// message fixed (errmessages.go).
func (g PanicGuard) guard(ctx context.Context, c *mysql.Conn, query string, fn func() error) error {
	err := CatchPanic(ctx, g.Log, query, fn)
	var pe *PanicError
	switch {
	case errors.As(err, &pe):
		if g.OnPanic != nil {
			// The clean-up must not take the connection down either.
			if cerr := CatchPanic(ctx, g.Log, query, func() error { g.OnPanic(c); return nil }); cerr != nil {
				g.logger().ErrorContext(ctx, "clean-up after a panic failed", "error", cerr)
			}
		}
		return pe.SQLError()
	case err != nil && strings.Contains(err.Error(), gmsStreamPanic):
		// GMS recovered it in a row-streaming goroutine (stack lost): log
		// it with the query, which GMS does not, and word it like ours.
		msg := err.Error()
		var se *mysql.SQLError
		if errors.As(err, &se) {
			msg = se.Message
		}
		cause := msg[strings.Index(msg, gmsStreamPanic)+len(gmsStreamPanic):]
		g.logger().ErrorContext(ctx, "statement panicked while streaming rows", "query", query, "panic", cause)
		if g.OnPanic != nil {
			g.OnPanic(c)
		}
		return (&PanicError{Value: cause}).SQLError()
	}
	return FixMessage(err, query)
}

func (g PanicGuard) logger() *slog.Logger {
	if g.Log == nil {
		return slog.Default()
	}
	return g.Log
}

// ComInitDB implements mysql.Handler.
func (g PanicGuard) ComInitDB(c *mysql.Conn, schema string) error {
	return g.guard(context.Background(), c, "USE "+schema, func() error { return g.Handler.ComInitDB(c, schema) })
}

// ComQuery implements mysql.Handler.
func (g PanicGuard) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	return g.guard(ctx, c, q, func() error { return g.Handler.ComQuery(ctx, c, q, cb) })
}

// ComMultiQuery implements mysql.Handler. After a panic the rest of the
// batch does not run, as after any error.
func (g PanicGuard) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (string, error) {
	var rest string
	err := g.guard(ctx, c, q, func() (err error) {
		rest, err = g.Handler.ComMultiQuery(ctx, c, q, cb)
		return err
	})
	if err != nil {
		return "", err
	}
	return rest, nil
}

// ComPrepare implements mysql.Handler.
func (g PanicGuard) ComPrepare(ctx context.Context, c *mysql.Conn, q string, p *mysql.PrepareData) ([]*querypb.Field, error) {
	var fields []*querypb.Field
	err := g.guard(ctx, c, q, func() (err error) {
		fields, err = g.Handler.ComPrepare(ctx, c, q, p)
		return err
	})
	return fields, err
}

// ComStmtExecute implements mysql.Handler.
func (g PanicGuard) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	q := ""
	if p != nil {
		q = p.PrepareStmt
	}
	return g.guard(ctx, c, q, func() error { return g.Handler.ComStmtExecute(ctx, c, p, cb) })
}

// ComResetConnection implements mysql.Handler.
func (g PanicGuard) ComResetConnection(c *mysql.Conn) error {
	return g.guard(context.Background(), c, "COM_RESET_CONNECTION", func() error { return g.Handler.ComResetConnection(c) })
}
