package mysqlfix

import (
	"context"

	"github.com/dolthub/vitess/go/mysql"
)

// A late error under a server-side cursor. For COM_STMT_EXECUTE with a
// cursor type, vitess runs the handler on a goroutine of its own and
// hands its results to COM_STMT_FETCH through a channel: the execute
// answers with the fields only, and each fetch writes rows until the
// goroutine's results run out. When the handler then returns an error,
// vitess logs "Error in the middle of a stream" and closes the
// connection (2013); when it fails before its first result, vitess
// answers the execute with 1105 "unknown error: missing result set" and
// the cause is lost. MySQL answers both with the statement's own error:
// the execute's, or the fetch's that reached it, and the connection
// goes on.
//
// The handler's goroutine must not arm the StreamConn while vitess may
// be writing rows of an earlier fetch or answering another command, so
// the error is carried to where vitess writes the packet it replaces:
//   - failing before any result set (no result, or a result without
//     fields, which vitess answers with OK once the handler returned),
//     vitess's command loop waits for the handler: the goroutine arms
//     the StreamConn itself, and the ERR packet replaces vitess's
//     "missing result set" or its OK.
//   - failing once the cursor is open, the goroutine keeps the error on
//     the StreamConn and reports success. vitess's fetch then sees the
//     results end, marks the cursor's last row sent, asks WarningCount
//     for the closing EOF — on the command goroutine, just before it
//     writes it — and WarningCount flushes the fetch's rows and arms the
//     StreamConn with the error, which replaces that EOF.
// vitess keeps one cursor per connection and a new COM_STMT_EXECUTE
// waits until the previous one ended, so the kept error belongs to the
// only cursor and is forgotten when the next statement executes.

// finishCursor is the error to hand vitess for a cursor's statement that
// returned err (see above): nil when the error was kept for the last
// fetch (vitess then ends the cursor as if its rows ran out).
func (h MidResult) finishCursor(ctx context.Context, c *mysql.Conn, query string, s *stream, err error) error {
	if s.cbError {
		// vitess cancelled the cursor (COM_STMT_CLOSE, reset): nobody reads
		// the error.
		return err
	}
	sc, ok := c.Conn.(*StreamConn)
	if !ok {
		return err
	}
	if !s.fields {
		sc.arm(err)
		return err
	}
	sc.mu.Lock()
	sc.cursor = err
	sc.mu.Unlock()
	h.logger().DebugContext(ctx, "cursor statement failed after its fields were sent; the error answers its last fetch", "query", query, "error", err)
	return nil
}

// WarningCount implements mysql.Handler. vitess asks it on the command
// goroutine right before writing a result's closing packet; at a cursor's
// last fetch, it arms the kept error to replace that packet.
func (h MidResult) WarningCount(c *mysql.Conn) uint16 {
	if c != nil {
		armCursorErr(c)
	}
	return h.Handler.WarningCount(c)
}

// armCursorErr arms c's StreamConn with the error its cursor's statement
// failed with, if any and if this is the cursor's last fetch, after
// flushing the rows already written.
func armCursorErr(c *mysql.Conn) {
	sc, ok := c.Conn.(*StreamConn)
	if !ok {
		return
	}
	// The kept error is read first, under the lock the handler's goroutine
	// kept it with: only then has that goroutine's last write to
	// c.StatusFlags (GMS sets it as a statement ends) happened before
	// this read of it.
	sc.mu.Lock()
	err := sc.cursor
	last := err != nil && c.StatusFlags&mysql.ServerCursorLastRowSent != 0
	if last {
		sc.cursor = nil
	}
	sc.mu.Unlock()
	if !last {
		return
	}
	if c.FlushBuffer() != nil {
		return // the connection is broken; vitess finds out writing the EOF
	}
	sc.arm(err)
}

// forgetCursorErr drops an error kept for a cursor that was closed
// before its last fetch.
func forgetCursorErr(c *mysql.Conn) {
	if sc, ok := c.Conn.(*StreamConn); ok {
		sc.mu.Lock()
		sc.cursor = nil
		sc.mu.Unlock()
	}
}
