package mysqlfix

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// An error after rows were sent. MySQL answers a statement that fails
// while its result set is streaming with an ERR packet in place of the
// next row (or of the closing EOF): the client reports the error and the
// connection goes on. vitess cannot: once a result set's fields went out
// it treats any error from the handler as unsendable ("Error in the
// middle of a stream"), logs it and closes the connection, so the client
// sees 2013 "Lost connection" and the cause is only in the server log.
// GMS streams every 128 rows, so any statement that fails late (a panic,
// an overflow at row 500, KILL QUERY) lost its connection.
//
// The fix has two halves:
//   - StreamConn sits at the top of the connection vitess writes to (over
//     TLS, where the packets are plain). Armed with an error, it writes an
//     ERR packet in place of the next packet it is given, with that
//     packet's sequence number, and drops the packet.
//   - MidResult wraps the handler. When the statement fails after its
//     fields were sent, it flushes the rows vitess buffered, arms the
//     StreamConn with the error and reports success: vitess then writes
//     the result's closing EOF/OK packet, which becomes the ERR packet.
//
// A statement executed with a server-side cursor (COM_STMT_EXECUTE with a
// cursor type) runs on a goroutine of its own while vitess answers
// COM_STMT_FETCH; midresult_cursor.go carries its late error to the
// fetch that reaches it.

// StreamConn is a connection whose next packet can be replaced by an
// error (see above). Write is safe for concurrent use with Arm, and
// passes bytes through unchanged while unarmed.
type StreamConn struct {
	net.Conn
	mu      sync.Mutex
	pending []byte  // the ERR payload to send in place of the next packet
	hdr     [4]byte // the replaced packet's header, as far as it came
	hn      int
	skip    int   // payload bytes of the replaced packet still to drop
	cursor  error // a cursor's statement failed: the error for its last fetch
}

// InstallStreamConn puts a StreamConn on top of c's connection, once. It
// must run after TLS was negotiated (the packets must be readable) and
// before the first command.
func InstallStreamConn(c *mysql.Conn) {
	if c == nil || c.Conn == nil {
		return
	}
	if _, ok := c.Conn.(*StreamConn); ok {
		return
	}
	c.Conn = &StreamConn{Conn: c.Conn}
}

// arm makes the next packet written an ERR packet for err.
func (s *StreamConn) arm(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = errPayload(err)
}

// Write implements net.Conn.
func (s *StreamConn) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil && s.skip == 0 {
		return s.Conn.Write(p)
	}
	done := 0
	for done < len(p) {
		switch {
		case s.skip > 0:
			k := min(s.skip, len(p)-done)
			s.skip -= k
			done += k
		case s.pending == nil:
			n, err := s.Conn.Write(p[done:])
			return done + n, err
		default:
			k := copy(s.hdr[s.hn:], p[done:])
			s.hn += k
			done += k
			if s.hn < len(s.hdr) {
				return done, nil
			}
			s.hn = 0
			s.skip = int(s.hdr[0]) | int(s.hdr[1])<<8 | int(s.hdr[2])<<16
			pkt := framePacket(s.hdr[3], s.pending)
			s.pending = nil
			if _, err := s.Conn.Write(pkt); err != nil {
				return done, err
			}
		}
	}
	return done, nil
}

// framePacket frames payload as one MySQL packet with sequence number seq.
func framePacket(seq byte, payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// maxErrMessage bounds an ERR packet's message (MySQL's MYSQL_ERRMSG_SIZE).
const maxErrMessage = 512

// errPayload is the ERR packet payload vitess would write for err.
func errPayload(err error) []byte {
	code, state, msg := uint16(mysql.ERUnknownError), mysql.SSUnknownSQLState, "unknown error: "+err.Error()
	var se *mysql.SQLError
	if errors.As(err, &se) {
		code, state, msg = uint16(se.Num), se.State, se.Message
	}
	if len(state) != 5 {
		state = mysql.SSUnknownSQLState
	}
	if len(msg) > maxErrMessage {
		msg = strings.ToValidUTF8(msg[:maxErrMessage], "")
	}
	out := []byte{0xff, byte(code), byte(code >> 8), '#'}
	return append(append(out, state...), msg...)
}

// MidResult wraps the wire handler so that a statement failing after its
// result set started streaming ends the result set with its error,
// keeping the connection (see above). It must be the outermost handler:
// vitess writes what it returns. It is safe for concurrent use if the
// wrapped handler is.
type MidResult struct {
	mysql.Handler
	Log *slog.Logger
}

// stream follows one command's result callbacks.
type stream struct {
	calls   int
	fields  bool // the first result carried fields: a result set is open
	cbError bool // writing to the client failed
}

func (s *stream) spool(cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(r *sqltypes.Result, more bool) error {
		s.note(r)
		err := cb(r, more)
		s.cbError = s.cbError || err != nil
		return err
	}
}

func (s *stream) note(r *sqltypes.Result) {
	if s.calls == 0 {
		s.fields = r != nil && len(r.Fields) > 0
	}
	s.calls++
}

// finish is the error to hand vitess for a command that returned err:
// nil when err was armed on the connection to replace the result set's
// closing packet.
func (h MidResult) finish(ctx context.Context, c *mysql.Conn, query string, s *stream, err error) error {
	if err == nil || !s.fields || s.cbError {
		return err
	}
	sc, ok := c.Conn.(*StreamConn)
	if !ok {
		return err
	}
	// The rows vitess buffered go out first, untouched.
	if ferr := c.FlushBuffer(); ferr != nil {
		return err
	}
	sc.arm(err)
	h.logger().DebugContext(ctx, "statement failed after rows were sent; the error ends the result set", "query", query, "error", err)
	return nil
}

func (h MidResult) logger() *slog.Logger {
	if h.Log == nil {
		return slog.Default()
	}
	return h.Log
}

// ComQuery implements mysql.Handler.
func (h MidResult) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	s := &stream{}
	err := h.Handler.ComQuery(ctx, c, q, s.spool(cb))
	return h.finish(ctx, c, q, s, err)
}

// ComMultiQuery implements mysql.Handler. The error ends the batch, as
// any error does.
func (h MidResult) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (string, error) {
	s := &stream{}
	rest, err := h.Handler.ComMultiQuery(ctx, c, q, s.spool(cb))
	if err == nil {
		return rest, nil
	}
	return "", h.finish(ctx, c, q, s, err)
}

// ComStmtExecute implements mysql.Handler.
func (h MidResult) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	s := &stream{}
	cursor := !onCommandGoroutine()
	if cursor {
		// A new cursor: vitess ended the previous one, fetched to its end
		// or closed.
		forgetCursorErr(c)
	}
	err := h.Handler.ComStmtExecute(ctx, c, p, func(r *sqltypes.Result) error {
		s.note(r)
		err := cb(r)
		s.cbError = s.cbError || err != nil
		return err
	})
	if err == nil {
		return nil
	}
	q := ""
	if p != nil {
		q = p.PrepareStmt
	}
	if cursor {
		return h.finishCursor(ctx, c, q, s, err)
	}
	return h.finish(ctx, c, q, s, err)
}

// commandLoop is the vitess function that reads and answers commands;
// a handler called from it (not from a cursor's goroutine) owns the
// connection's writes until it returns.
const commandLoop = "/vitess/go/mysql.(*Conn).handleNextCommand"

// onCommandGoroutine reports whether the caller runs under vitess's
// command loop.
func onCommandGoroutine() bool {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, commandLoop) {
			return true
		}
		if !more {
			return false
		}
	}
}
