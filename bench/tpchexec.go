package main

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/engine"
)

// errTimeout marks a query stopped at the per-query timeout.
var errTimeout = errors.New("timed out")

// killGrace is how long a query killed at its timeout gets to return
// before the client gives up on it (and closes its connection).
const killGrace = 20 * time.Second

// wireServer is lakesql's MySQL-wire server on a loopback port, in this
// process, and a client pool connected to it.
type wireServer struct {
	srv  *engine.Server
	pool *dbsql.DB
}

func startWire(ctx context.Context, e *engine.Engine, database string) (*wireServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv, err := e.NewServer(engine.ServerConfig{Listener: ln})
	if err != nil {
		ln.Close()
		return nil, err
	}
	go srv.Start() //nolint:errcheck // Start returns when Close is called
	pool, err := dbsql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s", ln.Addr(), database))
	if err != nil {
		srv.Close()
		return nil, err
	}
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		srv.Close()
		return nil, fmt.Errorf("lakesql wire: %w", err)
	}
	return &wireServer{srv: srv, pool: pool}, nil
}

func (w *wireServer) Close() {
	w.pool.Close()
	w.srv.Close()
}

// query runs q on a connection of its own; at the timeout it tells the
// server to KILL QUERY that connection and waits for the query to stop.
func (w *wireServer) query(ctx context.Context, q string, timeout time.Duration) ([][]any, float64, error) {
	conn, err := w.pool.Conn(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return nil, 0, err
	}
	killed := make(chan error, 1)
	timer := time.AfterFunc(timeout, func() {
		_, err := w.pool.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
		killed <- err
	})
	defer timer.Stop()
	// The client gives up only well after the KILL: the point is that the
	// server stops the query.
	qctx, cancel := context.WithTimeout(ctx, timeout+killGrace)
	defer cancel()
	t0 := time.Now()
	rows, err := scanWire(qctx, conn, q)
	el := ms(time.Since(t0))
	if !timer.Stop() {
		kerr := <-killed
		switch {
		case kerr != nil:
			return nil, el, fmt.Errorf("%w after %v; KILL QUERY failed: %v", errTimeout, timeout, kerr)
		case qctx.Err() != nil:
			return nil, el, fmt.Errorf("%w after %v; the server did not stop the query within %v of KILL QUERY", errTimeout, timeout, killGrace)
		}
		return nil, el, fmt.Errorf("%w after %v (killed; the query stopped %.1f s later)", errTimeout, timeout, el/1000-timeout.Seconds())
	}
	return rows, el, err
}

// scanWire reads a result set, converting each text-protocol value by its
// column's type so it compares with DuckDB's typed values.
func scanWire(ctx context.Context, conn *dbsql.Conn, q string) ([][]any, error) {
	rs, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cts, err := rs.ColumnTypes()
	if err != nil {
		return nil, err
	}
	var out [][]any
	raw := make([]dbsql.RawBytes, len(cts))
	ptrs := make([]any, len(cts))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cts))
		for i, b := range raw {
			if b == nil {
				continue
			}
			if row[i], err = wireValue(cts[i].DatabaseTypeName(), string(b)); err != nil {
				return nil, fmt.Errorf("column %s: %w", cts[i].Name(), err)
			}
		}
		out = append(out, row)
	}
	return out, rs.Err()
}

func wireValue(typ, s string) (any, error) {
	switch strings.TrimPrefix(typ, "UNSIGNED ") {
	case "DECIMAL":
		return decimal.NewFromString(s)
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
		if strings.HasPrefix(typ, "UNSIGNED") {
			return strconv.ParseUint(s, 10, 64)
		}
		return strconv.ParseInt(s, 10, 64)
	case "FLOAT", "DOUBLE":
		return strconv.ParseFloat(s, 64)
	}
	return s, nil
}

// queryEmbedded runs q in-process with the timeout as its context's
// deadline (the embedded API's way of killing a query).
func queryEmbedded(ctx context.Context, conn *engine.Conn, q string, timeout time.Duration) ([][]any, float64, error) {
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rows, el, err := timeLake(qctx, conn, q)
	if err != nil && qctx.Err() != nil {
		return nil, el, fmt.Errorf("%w after %v: %v", errTimeout, timeout, err)
	}
	return rows, el, err
}

// queryDuck runs q on DuckDB with the timeout as its context's deadline.
func queryDuck(ctx context.Context, db *dbsql.DB, q string, timeout time.Duration) ([][]any, float64, error) {
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rows, el, err := timeDuck(qctx, db, q)
	if err != nil && qctx.Err() != nil {
		return nil, el, fmt.Errorf("%w after %v: %v", errTimeout, timeout, err)
	}
	return rows, el, err
}
