package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/sqlerr"
)

// ServerConfig configures the MySQL-wire server.
type ServerConfig struct {
	// Addr is host:port; default 127.0.0.1:3306.
	Addr string
	// Listener, if set, is used instead of listening on Addr.
	Listener net.Listener
	// TLS enables TLS; RequireTLS refuses plain connections.
	TLS        *tls.Config
	RequireTLS bool
	// MaxConnections bounds concurrent clients (0: unlimited).
	MaxConnections uint64
	// NetWriteTimeout drops a client that stops reading a result for this
	// long (MySQL's net_write_timeout; 0: its default, 60 s), so it holds
	// no connection or goroutine.
	NetWriteTimeout time.Duration
	// NetReadTimeout drops a client that stops sending in the middle of
	// a packet for this long (MySQL's net_read_timeout; 0: its default,
	// 30 s). An idle connection between statements is not affected
	// (vitess's own read timeout would cut those too).
	NetReadTimeout time.Duration
}

// DefaultNetWriteTimeout is MySQL's net_write_timeout default.
const DefaultNetWriteTimeout = 60 * time.Second

// DefaultNetReadTimeout is MySQL's net_read_timeout default.
const DefaultNetReadTimeout = 30 * time.Second

// Server is a running MySQL-wire server over an Engine.
type Server struct {
	s *server.Server
}

// NewServer prepares a server; Start runs it.
func (e *Engine) NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.NetWriteTimeout <= 0 {
		cfg.NetWriteTimeout = DefaultNetWriteTimeout
	}
	if cfg.NetReadTimeout <= 0 {
		cfg.NetReadTimeout = DefaultNetReadTimeout
	}
	if cfg.Addr == "" && cfg.Listener == nil {
		cfg.Addr = "127.0.0.1:3306"
	}
	l := cfg.Listener
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", cfg.Addr); err != nil {
			return nil, fmt.Errorf("start server on %s: %w", cfg.Addr, err)
		}
	}
	sc := server.Config{
		Protocol:               "tcp",
		Address:                cfg.Addr,
		Listener:               &mysqlfix.GuardListener{Listener: l, MaxPacket: maxAllowedPacket, ReadTimeout: cfg.NetReadTimeout},
		TLSConfig:              cfg.TLS,
		RequireSecureTransport: cfg.RequireTLS,
		MaxConnections:         cfg.MaxConnections,
		ConnWriteTimeout:       cfg.NetWriteTimeout,
		Version:                "8.0.31-lakesql",
		ProtocolListenerFactory: func(c server.Config, lc mysql.ListenerConfig, sel server.ServerEventListener) (server.ProtocolListener, error) {
			lc.AuthServer = mysqlfix.AuthServer{AuthServer: lc.AuthServer}
			return server.MySQLProtocolListenerFactory(c, lc, sel)
		},
	}
	var s *server.Server
	wrap := func(h mysql.Handler) (mysql.Handler, error) {
		// Innermost, so a panic's 1105 still passes the error remapping.
		g := mysqlfix.PanicGuard{Handler: h, Log: e.log, OnPanic: func(c *mysql.Conn) { afterWirePanic(s, c) }}
		// The re-run of a statement that lost a commit race is outermost,
		// so it sees what was sent after the field fixes.
		h, err := wrapHandler(rerunHandler{Handler: mysqlfix.Results{Handler: g, ResultSchema: func(c *mysql.Conn) sql.Schema { return connSession(s, c).ResultSchema() }},
			srv: func() *server.Server { return s }, log: e.log})
		// Outermost: a late error, once remapped, ends its result set
		// instead of the connection.
		return mysqlfix.MidResult{Handler: h, Log: e.log}, err
	}
	s, err := server.NewServerWithHandler(sc, e.gms, e.newQueryContext, e.sessionBuilder, nil, wrap)
	if err != nil {
		return nil, fmt.Errorf("start server on %s: %w", cfg.Addr, err)
	}
	return &Server{s: s}, nil
}

// maxAllowedPacket is the global max_allowed_packet, which a new
// connection takes (the session value is read-only, as in MySQL).
func maxAllowedPacket() int64 {
	_, v, ok := sql.SystemVariables.GetGlobal("max_allowed_packet")
	if !ok {
		return DefaultMaxAllowedPacket
	}
	switch n := v.(type) {
	case int64:
		return n
	case uint64:
		return int64(n)
	case int:
		return int64(n)
	}
	return DefaultMaxAllowedPacket
}

// sessionBuilder makes a lakesql session for each new connection.
func (e *Engine) sessionBuilder(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
	host, user := "", ""
	if u, ok := conn.UserData.(sql.MysqlConnectionUser); ok {
		host, user = u.Host, u.User
	}
	client := sql.Client{Address: host, User: user, Capabilities: conn.Capabilities}
	base := sql.NewBaseSessionWithClientServer(addr, client, conn.ConnectionID)
	return newSession(base, e, e.cfg.Workspace), nil
}

// Start serves until Close. It blocks.
func (s *Server) Start() error { return s.s.Start() }

// Close stops accepting and closes the listener.
func (s *Server) Close() error { return s.s.Close() }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.s.Listener.Addr() }

// errorHandler refines the error codes GMS's handler sends: GMS flattens
// every error it does not know into 1105 before any hook can see the
// original, so the refinement works from the message (sqlerr.Remap).
type errorHandler struct{ mysql.Handler }

func wrapHandler(h mysql.Handler) (mysql.Handler, error) { return errorHandler{h}, nil }

func remap(err error) error {
	var se *mysql.SQLError
	if errors.As(err, &se) {
		return sqlerr.Remap(se)
	}
	return err
}

func (h errorHandler) ComInitDB(c *mysql.Conn, schema string) error {
	return remap(h.Handler.ComInitDB(c, schema))
}

func (h errorHandler) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	return remap(h.Handler.ComQuery(ctx, c, q, cb))
}

func (h errorHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, q, cb)
	return rest, remap(err)
}

func (h errorHandler) ComPrepare(ctx context.Context, c *mysql.Conn, q string, p *mysql.PrepareData) ([]*querypb.Field, error) {
	f, err := h.Handler.ComPrepare(ctx, c, q, p)
	return f, remap(err)
}

func (h errorHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	return remap(h.Handler.ComStmtExecute(ctx, c, p, cb))
}
