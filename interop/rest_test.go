package interop

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"

	"github.com/lakesql/lakesql/engine"
)

// restLake is a lake with its Iceberg REST catalog served over HTTP.
func restLake(t *testing.T, cfg engine.Config) (*lake, *httptest.Server) {
	t.Helper()
	dir := t.TempDir()
	cfg.Warehouse, cfg.CreateDefaultWorkspace, cfg.NoAudit = dir, true, true
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := e.Connect("root")
	t.Cleanup(func() { c.Close(); e.Close() })
	h, err := e.IcebergRESTHandler(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &lake{t: t, e: e, conn: c, dir: dir}, srv
}

// TestIcebergGoREST: iceberg-go's REST client lists, loads and scans
// lakesql's tables through lakesql's read-only REST catalog.
func TestIcebergGoREST(t *testing.T) {
	l, srv := restLake(t, engine.Config{})
	l.exec("CREATE DATABASE c", "CREATE DATABASE other",
		"CREATE TABLE c.t (id BIGINT, s VARCHAR(10)) PARTITIONED BY (bucket(2, id))",
		"INSERT INTO c.t VALUES (1, 'a'), (2, 'b'), (3, NULL)",
		"CALL create_tag('c.t', 'first')",
		"DELETE FROM c.t WHERE id = 2",
		"CREATE TABLE c.u (x INT)")
	ctx := context.Background()
	cat, err := rest.NewCatalog(ctx, "lake", srv.URL, rest.WithWarehouseLocation("main"))
	if err != nil {
		t.Fatalf("iceberg-go REST client: %v", err)
	}
	nss, err := cat.ListNamespaces(ctx, nil)
	if err != nil || len(nss) != 2 || nss[0][0] != "c" || nss[1][0] != "other" {
		t.Errorf("namespaces %v (%v), want [c] [other]", nss, err)
	}
	var names []string
	for id, err := range cat.ListTables(ctx, table.Identifier{"c"}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.Join(id, "."))
	}
	if strings.Join(names, ",") != "c.t,c.u" {
		t.Errorf("tables %v, want c.t, c.u", names)
	}
	if ok, err := cat.CheckTableExists(ctx, table.Identifier{"c", "t"}); !ok || err != nil {
		t.Errorf("CheckTableExists(c.t): %v %v", ok, err)
	}
	if ok, err := cat.CheckTableExists(ctx, table.Identifier{"c", "nope"}); ok || err != nil {
		t.Errorf("CheckTableExists(c.nope): %v %v, want false", ok, err)
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"c", "t"})
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	equalRows(t, "REST head", scanRows(t, tbl.Scan(), nil), canonical(l.query("SELECT * FROM c.t"), nil))
	tagged, err := tbl.Scan().UseRef("first")
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, "REST tag", scanRows(t, tagged, nil), canonical(l.query("SELECT * FROM c.t FOR VERSION AS OF 'first'"), nil))

	if _, err := cat.LoadTable(ctx, table.Identifier{"c", "nope"}); !errors.Is(err, catalog.ErrNoSuchTable) {
		t.Errorf("LoadTable(c.nope): %v, want ErrNoSuchTable", err)
	}
	// Writes and unknown names get Iceberg's error bodies.
	for _, c := range []struct {
		method, path string
		code         int
		typ          string
	}{
		{"POST", "/v1/main/namespaces/c/tables", 405, "NotSupportedException"},
		{"DELETE", "/v1/main/namespaces/c/tables/t", 405, "NotSupportedException"},
		{"GET", "/v1/main/namespaces/nope/tables", 404, "NoSuchNamespaceException"},
		{"GET", "/v1/nows/namespaces", 404, "NoSuchNamespaceException"},
		{"GET", "/v1/main/namespaces/c/tables/nope", 404, "NoSuchTableException"},
	} {
		code, typ := restCall(t, srv.URL, c.method, c.path, "")
		if code != c.code || typ != c.typ {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, code, typ, c.code, c.typ)
		}
	}
}

// restCall sends one request and returns the status and the Iceberg error
// type of the body, if any.
func restCall(t *testing.T, base, method, path, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader("{}"))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var body struct {
		Error struct {
			Type string `json:"type"`
			Code int    `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(b, &body)
	if body.Error.Type != "" && body.Error.Code != resp.StatusCode {
		t.Errorf("%s %s: error body code %d, status %d", method, path, body.Error.Code, resp.StatusCode)
	}
	return resp.StatusCode, body.Error.Type
}

// TestIcebergGoREST_Auth: tokens for lakesql users; a user reads the
// collections it has SELECT on, nothing else; no token is 401.
func TestIcebergGoREST_Auth(t *testing.T) {
	l, srv := restLake(t, engine.Config{Auth: true, RootPassword: "rootpw"})
	l.exec("CREATE DATABASE c", "CREATE DATABASE secret",
		"CREATE TABLE c.t (id BIGINT)", "INSERT INTO c.t VALUES (1), (2)",
		"CREATE TABLE secret.t (id BIGINT)",
		"CREATE USER 'reader'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON c.* TO 'reader'@'%'")
	ctx := context.Background()
	if _, err := rest.NewCatalog(ctx, "lake", srv.URL, rest.WithWarehouseLocation("main"), rest.WithCredential("reader:wrong")); err == nil {
		t.Error("a wrong password got a token")
	}
	cat, err := rest.NewCatalog(ctx, "lake", srv.URL, rest.WithWarehouseLocation("main"), rest.WithCredential("reader:pw"))
	if err != nil {
		t.Fatalf("iceberg-go REST client with reader's credentials: %v", err)
	}
	nss, err := cat.ListNamespaces(ctx, nil)
	if err != nil || len(nss) != 1 || nss[0][0] != "c" {
		t.Errorf("reader sees namespaces %v (%v), want only c", nss, err)
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"c", "t"})
	if err != nil {
		t.Fatalf("reader LoadTable(c.t): %v", err)
	}
	equalRows(t, "reader's scan", scanRows(t, tbl.Scan(), nil), canonical(l.query("SELECT * FROM c.t"), nil))
	if _, err := cat.LoadTable(ctx, table.Identifier{"secret", "t"}); err == nil || !strings.Contains(err.Error(), "may not read") {
		t.Errorf("reader LoadTable(secret.t): %v, want forbidden", err)
	}
	if code, typ := restCall(t, srv.URL, "GET", "/v1/main/namespaces", ""); code != 401 || typ != "NotAuthorizedException" {
		t.Errorf("no token: %d %s, want 401 NotAuthorizedException", code, typ)
	}
	if code, _ := restCall(t, srv.URL, "GET", "/v1/main/namespaces/secret/tables/t", "forged.token.value"); code != 401 {
		t.Errorf("forged token: %d, want 401", code)
	}
}
