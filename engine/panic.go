package engine

import (
	"context"

	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/mysqlfix"
)

// A statement that panics fails with 1105 and keeps its connection
// (mysqlfix.PanicGuard on the wire, Conn.run embedded). What it staged is
// discarded with the whole open transaction, as MySQL does after an error
// that aborts a transaction: committing half a statement's writes is never
// right.

// discardAfterPanic drops the session's staged writes and its GMS
// transaction, so the next statement starts clean.
func (s *Session) discardAfterPanic() {
	s.writes.Rollback()
	s.BaseSession.SetTransaction(nil)
}

// connSession is the lakesql session of connection c (an empty one if
// none: its methods answer nothing).
func connSession(srv *server.Server, c *mysql.Conn) *Session {
	var out *Session
	if srv == nil || c == nil {
		return &Session{}
	}
	_ = srv.SessionManager().Iter(func(s sql.Session) (bool, error) {
		if s.ID() != c.ConnectionID {
			return false, nil
		}
		out, _ = s.(*Session)
		return true, nil
	})
	if out == nil {
		return &Session{}
	}
	return out
}

// afterWirePanic finds the session of connection c and discards its
// staged work. srv is the running server (nil before it is made).
func afterWirePanic(srv *server.Server, c *mysql.Conn) {
	if srv == nil || c == nil {
		return
	}
	_ = srv.SessionManager().Iter(func(s sql.Session) (bool, error) {
		if s.ID() != c.ConnectionID {
			return false, nil
		}
		if ls, ok := s.(*Session); ok {
			ls.discardAfterPanic()
		}
		return true, nil
	})
}

// afterEmbeddedPanic is Conn.run's recovery: it logs the panic with the
// query, discards the session's staged work, then closes the statement's
// iterator (if any; after the rollback, so closing commits nothing) and
// returns the error the client sees.
func (c *Conn) afterEmbeddedPanic(ctx context.Context, query string, r any, sctx *sql.Context, iter sql.RowIter) error {
	pe := mysqlfix.Recovered(ctx, c.e.log, query, r)
	c.sess.discardAfterPanic()
	if iter != nil {
		_ = mysqlfix.CatchPanic(ctx, c.e.log, query, func() error { return iter.Close(sctx) })
	}
	return pe.SQLError()
}
