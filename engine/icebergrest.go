package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/golang-jwt/jwt/v5"

	"github.com/lakesql/lakesql/catalogstore/iceberg/rest"
)

// IcebergRESTHandler serves the warehouse as a read-only Iceberg REST
// catalog (package catalogstore/iceberg/rest). With Config.Auth, clients
// exchange a lakesql user and password for a bearer token (OAuth2
// client_credentials at /v1/oauth/tokens) and read the collections that
// user has SELECT on, as the MySQL server would let them; without it,
// every request reads everything (serve it on loopback only).
func (e *Engine) IcebergRESTHandler(log *slog.Logger) (http.Handler, error) {
	cfg := rest.Config{Workspace: e.cfg.Workspace, Log: log}
	if e.cfg.Auth {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		cfg.Auth = &restAuth{e: e, key: key, ttl: time.Hour}
	}
	return rest.NewHandler(e.cat, cfg), nil
}

// restAuth checks REST requests against the engine's MySQL users and
// grants. Tokens are HMAC-signed with a key made at start: they are valid
// on the process that issued them, for ttl.
type restAuth struct {
	e   *Engine
	key []byte
	ttl time.Duration
}

var _ rest.Auth = (*restAuth)(nil)

func (a *restAuth) Token(ctx context.Context, user, password string) (string, error) {
	mdb := a.e.gms.Analyzer.Catalog.MySQLDb
	rd := mdb.Reader()
	u := mdb.GetUser(rd, user, "localhost", false)
	rd.Close()
	if u == nil || u.Locked || !nativePasswordMatches(u.AuthString, password) {
		return "", rest.ErrUnauthorized
	}
	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject: user, Issuer: "lakesql-iceberg-rest", IssuedAt: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(a.ttl)),
	})
	return tok.SignedString(a.key)
}

// nativePasswordMatches checks password against a mysql_native_password
// hash ("*" and hex of SHA1(SHA1(password))); an empty hash is no password.
func nativePasswordMatches(hash, password string) bool {
	if hash == "" {
		return password == ""
	}
	s1 := sha1.Sum([]byte(password))
	s2 := sha1.Sum(s1[:])
	want := "*" + strings.ToUpper(hex.EncodeToString(s2[:]))
	return subtle.ConstantTimeCompare([]byte(want), []byte(strings.ToUpper(hash))) == 1
}

func (a *restAuth) User(_ context.Context, token string) (string, error) {
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer("lakesql-iceberg-rest"))
	if err != nil || claims.Subject == "" {
		return "", fmt.Errorf("%w: %v", rest.ErrUnauthorized, errors.Join(err))
	}
	return claims.Subject, nil
}

// CanRead: SELECT granted globally, on `ws.coll`, or (in the engine's
// workspace) on `coll`, as checkRefreshRights counts grants.
func (a *restAuth) CanRead(ctx context.Context, user, ws, coll string) bool {
	mdb := a.e.gms.Analyzer.Catalog.MySQLDb
	sess := sql.NewBaseSessionWithClientServer("iceberg-rest", sql.Client{User: user, Address: "localhost"}, 0)
	sctx := sql.NewContext(ctx, sql.WithSession(sess))
	names := []string{ws + "." + coll}
	if ws == a.e.cfg.Workspace {
		names = append(names, coll)
	}
	for _, db := range names {
		if mdb.UserHasPrivileges(sctx, sql.NewPrivilegedOperation(sql.PrivilegeCheckSubject{Database: db}, sql.PrivilegeType_Select)) {
			return true
		}
	}
	return false
}
