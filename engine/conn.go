package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/mysqlfix"
)

// Result is the outcome of one statement run through a Conn.
type Result struct {
	Columns []string
	Schema  sql.Schema
	Rows    []sql.Row
}

// Conn is one embedded session: statements run in-process, without a
// socket. A Conn is not safe for concurrent use (like a MySQL connection);
// open one per goroutine.
type Conn struct {
	e    *Engine
	sess *Session
}

// connIDs numbers embedded sessions from the top half of the id space, so
// they never collide with the wire server's connection ids (counted from 1)
// in the engine's process list.
var connIDs = func() *atomic.Uint32 {
	var n atomic.Uint32
	n.Store(1 << 31)
	return &n
}()

// Connect opens an embedded session as user, in the engine's configured
// workspace.
func (e *Engine) Connect(user string) *Conn {
	id := connIDs.Add(1)
	base := sql.NewBaseSessionWithClientServer("embedded", sql.Client{User: user, Address: "localhost"}, id)
	return &Conn{e: e, sess: newSession(base, e, e.cfg.Workspace)}
}

// SQLContext returns a GMS context on the connection's session, for code
// that drives the GMS engine (Engine.GMS) directly, as GMS's own engine
// test suites do through a harness.
func (c *Conn) SQLContext(ctx context.Context) *sql.Context { return c.newContext(ctx, "") }

// Session returns the connection's session.
func (c *Conn) Session() *Session { return c.sess }

// Close ends the session; staged writes of an open transaction are
// discarded.
func (c *Conn) Close() error {
	c.sess.writes.Rollback()
	c.e.gms.CloseSession(c.sess.ID())
	return nil
}

// Query runs one or more statements separated by semicolons and returns
// the result of each. It stops at the first error, which is a
// *mysql.SQLError as a client would see it.
func (c *Conn) Query(ctx context.Context, query string) ([]Result, error) {
	var out []Result
	rest := query
	for strings.TrimSpace(rest) != "" {
		sctx := c.newContext(ctx, rest)
		var parsed sqlparser.Statement
		var stmt, remainder string
		err := mysqlfix.CatchPanic(ctx, c.e.log, rest, func() (err error) {
			parsed, stmt, remainder, err = c.e.parser.Parse(sctx, rest, true)
			return err
		})
		if errors.Is(err, sqlparser.ErrEmpty) {
			break
		}
		if err != nil {
			return out, SQLError(err)
		}
		res, err := c.runStatement(ctx, stmt, parsed)
		if err != nil {
			return out, mysqlfix.FixMessage(err, stmt)
		}
		out = append(out, res)
		rest = remainder
	}
	return out, nil
}

// QueryOne runs one statement and returns its result.
func (c *Conn) QueryOne(ctx context.Context, query string) (Result, error) {
	rs, err := c.Query(ctx, query)
	if err != nil {
		return Result{}, err
	}
	if len(rs) != 1 {
		return Result{}, fmt.Errorf("lakesql: %d statements in QueryOne", len(rs))
	}
	return rs[0], nil
}

// Exec runs statements and discards their rows.
func (c *Conn) Exec(ctx context.Context, query string) error {
	_, err := c.Query(ctx, query)
	return err
}

// newContext makes a context per statement: GMS fixes NOW() when the
// context is made.
func (c *Conn) newContext(ctx context.Context, query string) *sql.Context {
	sctx := c.e.newQueryContext(ctx, sql.WithSession(c.sess), sql.WithQuery(query),
		sql.WithProcessList(c.e.gms.ProcessList), sql.WithMemoryManager(c.e.gms.MemoryManager))
	sctx.SetCurrentDatabase(c.sess.BaseSession.GetCurrentDatabase())
	return sctx
}

// runStatement runs one statement, running it again from its text when
// it autocommits and its commit lost a race (rerun.go).
func (c *Conn) runStatement(ctx context.Context, query string, parsed sqlparser.Statement) (Result, error) {
	c.sess.takeRefused()
	res, err := c.run(ctx, query, parsed)
	if err != nil && c.sess.takeRefused() {
		err = c.sess.rerun(ctx, c.e.log, err, func() (bool, error) {
			var rerr error
			res, rerr = c.run(ctx, query, nil)
			return false, rerr
		})
	}
	return res, err
}

func (c *Conn) run(ctx context.Context, query string, parsed sqlparser.Statement) (_ Result, err error) {
	sctx := c.newContext(ctx, query)
	defer endQuery(sctx)
	defer c.sess.ScopeFileFunctions(false) // the stand-in database ends with the statement
	c.e.running.Add(1)
	defer c.e.running.Add(-1)
	var iter sql.RowIter
	defer func() {
		if r := recover(); r != nil {
			err = c.afterEmbeddedPanic(ctx, query, r, sctx, iter)
		}
	}()
	sch, iter, _, err := c.e.gms.QueryWithBindings(sctx, query, parsed, nil, nil)
	if err != nil {
		return Result{}, SQLError(err)
	}
	var rows []sql.Row
	for {
		r, err := iter.Next(sctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			iter.Close(sctx)
			return Result{}, SQLError(err)
		}
		rows = append(rows, r)
	}
	if err := iter.Close(sctx); err != nil {
		return Result{}, SQLError(err)
	}
	res := Result{Schema: sch, Rows: rows}
	for _, col := range sch {
		res.Columns = append(res.Columns, col.Name)
	}
	return res, nil
}

// Text renders the value at row, col as a MySQL client receives it over the
// wire (decimals at their scale, dates as text); ok is false for NULL.
func (r Result) Text(row, col int) (text string, ok bool) {
	v := r.Rows[row][col]
	if v == nil {
		return "", false
	}
	if col < len(r.Schema) {
		if sv, err := mysqlfix.TemporalSQL(sql.NewEmptyContext(), r.Schema[col].Type, v); err == nil {
			if sv.IsNull() {
				return "", false
			}
			return sv.ToString(), true
		}
	}
	return fmt.Sprint(v), true
}

// IsOK reports whether the result is GMS's OK packet of a DDL or DML
// statement (no rows for a client).
func (r Result) IsOK() (rowsAffected uint64, ok bool) {
	if len(r.Rows) == 1 && len(r.Rows[0]) == 1 {
		if res, is := r.Rows[0][0].(types.OkResult); is {
			return res.RowsAffected, true
		}
	}
	return 0, false
}
