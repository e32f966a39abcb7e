package engine

import (
	"context"
	"errors"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/mysqlfix"
)

// errClientGone cancels the statement of a client that hung up.
var errClientGone = errors.New("the client closed the connection")

// watchClient returns a context for one command of connection c that is
// cancelled as soon as the client hangs up — while the statement is
// planned as well as while it runs or streams rows (GMS itself polls the
// socket only while streaming). stop releases the watch.
func watchClient(ctx context.Context, c *mysql.Conn) (_ context.Context, stop func()) {
	g := mysqlfix.GuardOf(c.Conn)
	if g == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		select {
		case <-g.Gone():
			cancel(errClientGone)
		case <-done:
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// tooLarge refuses a command longer than max_allowed_packet on a TLS
// connection, whose packets the guarded connection cannot see (it sees
// TLS records): the command was read, but it is not planned. The
// connection stays open (MySQL would close it).
func tooLarge(c *mysql.Conn, q string) error {
	if c.TLSEnabled() && int64(len(q)) > maxAllowedPacket() {
		return mysql.NewSQLError(mysql.ERNetPacketTooLarge, "08S01", "%s", mysqlfix.ErrPacketTooLarge.Error())
	}
	return nil
}
