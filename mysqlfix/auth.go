package mysqlfix

import (
	"errors"
	"net"

	"github.com/dolthub/vitess/go/mysql"
)

// MySQL answers a login as an unknown user like one with a wrong
// password: error 1045 "Access denied" after the password exchange. GMS
// v0.20.0's auth methods each refuse to handle a user they do not know,
// so vitess finds no method and writes a handshake error the C clients
// cannot parse (mariadb and mysql report 2027 "Malformed packet").
// AuthServer lets the default method take such a user; its password
// check then refuses it with 1045.

// AuthServer wraps GMS's auth server (the mysql database's).
type AuthServer struct {
	mysql.AuthServer
}

// AuthMethods implements mysql.AuthServer.
func (a AuthServer) AuthMethods() []mysql.AuthMethod {
	ms := a.AuthServer.AuthMethods()
	out := make([]mysql.AuthMethod, len(ms))
	for i, m := range ms {
		out[i] = m
		if m.Name() == a.DefaultAuthMethodDescription() {
			out[i] = unknownUsers{AuthMethod: m, all: ms}
		}
		out[i] = afterLogin{out[i]}
	}
	return out
}

// afterLogin installs the connection's StreamConn (midresult.go) once
// the client is authenticated: the first point after TLS was negotiated
// where vitess hands over the connection, and before its first command.
type afterLogin struct{ mysql.AuthMethod }

func (m afterLogin) HandleAuthPluginData(c *mysql.Conn, user string, server, client []byte, addr net.Addr) (mysql.Getter, error) {
	g, err := m.AuthMethod.HandleAuthPluginData(c, user, server, client, addr)
	if err == nil {
		InstallStreamConn(c)
	}
	return g, err
}

// unknownUsers is an auth method that also handles users no method
// knows, so that they fail its password check.
type unknownUsers struct {
	mysql.AuthMethod
	all []mysql.AuthMethod
}

func (m unknownUsers) HandleUser(c *mysql.Conn, user string) bool {
	for _, o := range m.all {
		if o.HandleUser(c, user) {
			return o == m.AuthMethod
		}
	}
	return true
}

// HandleAuthPluginData words a refusal as MySQL does: the user and host
// and whether a password was given ("Access denied for user
// 'ada'@'10.0.0.7' (using password: YES)"); GMS names the user only.
func (m unknownUsers) HandleAuthPluginData(c *mysql.Conn, user string, server, client []byte, addr net.Addr) (mysql.Getter, error) {
	g, err := m.AuthMethod.HandleAuthPluginData(c, user, server, client, addr)
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != mysql.ERAccessDeniedError {
		return g, err
	}
	host := "localhost"
	if addr != nil && addr.Network() != "unix" {
		if h, _, serr := net.SplitHostPort(addr.String()); serr == nil {
			host = h
		}
	}
	using := "NO"
	if len(client) > 0 {
		using = "YES"
	}
	return nil, mysql.NewSQLError(se.Num, se.State, "Access denied for user '%s'@'%s' (using password: %s)", user, host, using)
}
