// Package rest serves lakesql's catalog as a read-only Iceberg REST
// catalog (apache/iceberg open-api/rest-catalog-open-api.yaml), for engines
// that only reach Iceberg tables through one (Trino, DuckDB ATTACH,
// StarRocks, pyiceberg, iceberg-go).
//
// A workspace is a prefix (GET /v1/config?warehouse=WS answers
// {"overrides":{"prefix":"WS"}}), a collection a namespace, a dataset a
// table. Loading a table exports its Iceberg metadata if it is not current
// (package iceberg) and returns it; clients then plan and read the files
// themselves. Writes answer 405 with Iceberg's error body; an unknown
// namespace or table 404; a request without a valid bearer token 401, and
// one for a collection its user may not read 403.
package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/iceberg"
)

// Auth decides who a request is and what it may read. A nil Auth lets
// every request read everything (the embedded, loopback-only default).
type Auth interface {
	// Token exchanges client credentials (OAuth2 client_credentials: a
	// lakesql user and password) for a bearer token; ErrUnauthorized.
	Token(ctx context.Context, user, password string) (string, error)
	// User returns the user a bearer token stands for; ErrUnauthorized.
	User(ctx context.Context, token string) (string, error)
	// CanRead reports whether user may read collection coll of workspace ws.
	CanRead(ctx context.Context, user, ws, coll string) bool
}

// ErrUnauthorized: missing, wrong or expired credentials.
var ErrUnauthorized = errors.New("unauthorized")

// Config configures a Handler.
type Config struct {
	// Workspace is the prefix clients get when they name no warehouse.
	Workspace string
	Auth      Auth
	Log       *slog.Logger
}

// endpoints are the routes served, as GET /v1/config lists them so clients
// do not assume write endpoints exist.
var endpoints = []string{
	"GET /v1/{prefix}/namespaces",
	"GET /v1/{prefix}/namespaces/{namespace}",
	"HEAD /v1/{prefix}/namespaces/{namespace}",
	"GET /v1/{prefix}/namespaces/{namespace}/tables",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
}

type server struct {
	cat *catalogstore.Catalog
	cfg Config
}

// NewHandler returns the REST catalog's HTTP handler. It is safe for
// concurrent use.
func NewHandler(cat *catalogstore.Catalog, cfg Config) http.Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &server{cat: cat, cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/config", s.config)
	mux.HandleFunc("POST /v1/oauth/tokens", s.token)
	mux.HandleFunc("GET /v1/{prefix}/namespaces", s.authed(s.listNamespaces))
	mux.HandleFunc("GET /v1/{prefix}/namespaces/{ns}", s.authed(s.loadNamespace))
	mux.HandleFunc("HEAD /v1/{prefix}/namespaces/{ns}", s.authed(s.loadNamespace))
	mux.HandleFunc("GET /v1/{prefix}/namespaces/{ns}/tables", s.authed(s.listTables))
	mux.HandleFunc("GET /v1/{prefix}/namespaces/{ns}/tables/{table}", s.authed(s.loadTable))
	mux.HandleFunc("HEAD /v1/{prefix}/namespaces/{ns}/tables/{table}", s.authed(s.loadTable))
	mux.HandleFunc("POST /v1/{prefix}/namespaces/{ns}/tables/{table}/metrics", s.authed(func(w http.ResponseWriter, _ *http.Request, _ string) {
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			writeError(w, http.StatusMethodNotAllowed, "NotSupportedException",
				fmt.Sprintf("%s %s: lakesql's Iceberg REST catalog is read-only; write through lakesql's SQL", r.Method, r.URL.Path))
			return
		}
		writeError(w, http.StatusNotFound, "NoSuchEndpointException", "no such endpoint: "+r.URL.Path)
	})
	return mux
}

// errorModel is Iceberg's error body.
type errorModel struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, code int, typ, msg string) {
	var e errorModel
	e.Error.Message, e.Error.Type, e.Error.Code = msg, typ, code
	writeJSON(w, code, e)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *server) config(w http.ResponseWriter, r *http.Request) {
	ws := r.URL.Query().Get("warehouse")
	if ws == "" {
		ws = s.cfg.Workspace
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"defaults":  map[string]string{},
		"overrides": map[string]string{"prefix": url.PathEscape(ws)},
		"endpoints": endpoints,
	})
}

// token is the OAuth2 client_credentials exchange: client_id is a lakesql
// user, client_secret its password.
func (s *server) token(w http.ResponseWriter, r *http.Request) {
	oauthError := func(code int, e, desc string) {
		writeJSON(w, code, map[string]string{"error": e, "error_description": desc})
	}
	if s.cfg.Auth == nil {
		oauthError(http.StatusBadRequest, "unsupported_grant_type", "this server does not check credentials: send no token")
		return
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" {
		oauthError(http.StatusBadRequest, "unsupported_grant_type", "only client_credentials is supported")
		return
	}
	tok, err := s.cfg.Auth.Token(r.Context(), r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"))
	if err != nil {
		oauthError(http.StatusUnauthorized, "invalid_client", "wrong user or password")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": tok, "token_type": "bearer", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
	})
}

// authed checks the bearer token and the workspace, then calls h with the
// request's user ("" without Auth).
func (s *server) authed(h func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user := ""
		if s.cfg.Auth != nil {
			raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			u, err := s.cfg.Auth.User(r.Context(), strings.TrimSpace(raw))
			if !ok || err != nil {
				writeError(w, http.StatusUnauthorized, "NotAuthorizedException", "a valid bearer token is required (POST /v1/oauth/tokens with a lakesql user and password)")
				return
			}
			user = u
		}
		if _, err := s.cat.Workspace(r.Context(), r.PathValue("prefix")); err != nil {
			s.fail(w, err)
			return
		}
		h(w, r, user)
	}
}

// canRead answers 403 and false when user may not read collection coll.
func (s *server) canRead(w http.ResponseWriter, r *http.Request, user, coll string) bool {
	if s.cfg.Auth == nil || s.cfg.Auth.CanRead(r.Context(), user, r.PathValue("prefix"), coll) {
		return true
	}
	writeError(w, http.StatusForbidden, "ForbiddenException", fmt.Sprintf("user %q may not read %s", user, coll))
	return false
}

// fail maps a catalog error to Iceberg's error responses.
func (s *server) fail(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, catalogstore.ErrWorkspaceNotFound), errors.Is(err, catalogstore.ErrCollectionNotFound):
		writeError(w, http.StatusNotFound, "NoSuchNamespaceException", err.Error())
	case errors.Is(err, catalogstore.ErrDatasetNotFound):
		writeError(w, http.StatusNotFound, "NoSuchTableException", err.Error())
	case errors.Is(err, catalogstore.ErrBadIdentifier):
		writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
	case errors.Is(err, iceberg.ErrNoIcebergType):
		writeError(w, http.StatusBadRequest, "BadRequestException", err.Error())
	default:
		s.cfg.Log.Error("iceberg rest", "err", err)
		writeError(w, http.StatusInternalServerError, "ServerErrorException", err.Error())
	}
}

// namespace decodes a single-level namespace (collections do not nest).
func namespace(r *http.Request) (string, error) {
	ns := r.PathValue("ns")
	if strings.ContainsRune(ns, '\x1f') {
		return "", fmt.Errorf("%w: nested namespace %q: lakesql collections do not nest", catalogstore.ErrCollectionNotFound, ns)
	}
	return ns, nil
}

func (s *server) listNamespaces(w http.ResponseWriter, r *http.Request, user string) {
	if r.URL.Query().Get("parent") != "" {
		writeJSON(w, http.StatusOK, map[string]any{"namespaces": [][]string{}})
		return
	}
	colls, err := s.cat.ListCollections(r.Context(), r.PathValue("prefix"))
	if err != nil {
		s.fail(w, err)
		return
	}
	out := [][]string{}
	for _, c := range colls {
		if s.cfg.Auth == nil || s.cfg.Auth.CanRead(r.Context(), user, r.PathValue("prefix"), c.Name) {
			out = append(out, []string{c.Name})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"namespaces": out})
}

func (s *server) loadNamespace(w http.ResponseWriter, r *http.Request, user string) {
	ns, err := namespace(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !s.canRead(w, r, user, ns) {
		return
	}
	if _, err := s.cat.Collection(r.Context(), r.PathValue("prefix"), ns); err != nil {
		s.fail(w, err)
		return
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"namespace": []string{ns}, "properties": map[string]string{}})
}

func (s *server) listTables(w http.ResponseWriter, r *http.Request, user string) {
	ns, err := namespace(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !s.canRead(w, r, user, ns) {
		return
	}
	if _, err := s.cat.Collection(r.Context(), r.PathValue("prefix"), ns); err != nil {
		s.fail(w, err)
		return
	}
	datasets, err := s.cat.ListDatasets(r.Context(), r.PathValue("prefix"), ns)
	if err != nil {
		s.fail(w, err)
		return
	}
	type ident struct {
		Namespace []string `json:"namespace"`
		Name      string   `json:"name"`
	}
	out := []ident{}
	for _, d := range datasets {
		out = append(out, ident{[]string{ns}, d.Name})
	}
	writeJSON(w, http.StatusOK, map[string]any{"identifiers": out})
}

func (s *server) loadTable(w http.ResponseWriter, r *http.Request, user string) {
	ns, err := namespace(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !s.canRead(w, r, user, ns) {
		return
	}
	id := catalogstore.Ident{Workspace: r.PathValue("prefix"), Collection: ns, Name: r.PathValue("table")}
	if _, err := s.cat.Collection(r.Context(), id.Workspace, ns); err != nil {
		s.fail(w, err)
		return
	}
	ds, err := s.cat.Dataset(r.Context(), id)
	if err != nil {
		s.fail(w, err)
		return
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	res, err := iceberg.Export(r.Context(), s.cat, ds)
	if err != nil {
		s.fail(w, err)
		return
	}
	raw, err := iceberg.ReadMetadata(r.Context(), s.cat, ds, res.Version)
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"metadata-location": res.MetadataLocation,
		"metadata":          json.RawMessage(raw),
		"config":            map[string]string{},
	})
}
