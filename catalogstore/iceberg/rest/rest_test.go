package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/iceberg/rest"
	"github.com/lakesql/lakesql/engine"
)

// iceberg-go's REST client runs against this handler in the interop
// module; these tests pin the wire shapes without it.

func TestHandler_Shapes(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := e.Connect("root")
	defer c.Close()
	if err := c.Exec(ctx, "CREATE DATABASE c; CREATE TABLE c.t (id BIGINT); INSERT INTO c.t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rest.NewHandler(e.Catalog(), rest.Config{Workspace: "main"}))
	defer srv.Close()

	get := func(method, path string) (int, map[string]any) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	code, body := get("GET", "/v1/config")
	if eps, _ := body["endpoints"].([]any); code != 200 || len(eps) == 0 || body["overrides"].(map[string]any)["prefix"] != "main" {
		t.Errorf("config: %d %v", code, body)
	}
	code, body = get("GET", "/v1/main/namespaces/c/tables/t")
	if md, _ := body["metadata"].(map[string]any); code != 200 || md["format-version"] != 2.0 ||
		!strings.HasSuffix(body["metadata-location"].(string), "/iceberg/metadata/v1.metadata.json") {
		t.Errorf("load table: %d %v", code, body)
	}
	for _, c := range []struct {
		method, path string
		code         int
		typ          string
	}{
		{"HEAD", "/v1/main/namespaces/c/tables/t", 204, ""},
		{"HEAD", "/v1/main/namespaces/c/tables/nope", 404, ""},
		{"POST", "/v1/main/namespaces", 405, "NotSupportedException"},
		{"POST", "/v1/main/namespaces/c/tables/t", 405, "NotSupportedException"},
		{"GET", "/v1/main/namespaces/x", 404, "NoSuchNamespaceException"},
		{"GET", "/v1/main/namespaces/c/tables/x", 404, "NoSuchTableException"},
		{"POST", "/v1/main/namespaces/c/tables/t/metrics", 204, ""},
		{"POST", "/v1/oauth/tokens", 400, ""},
	} {
		code, body := get(c.method, c.path)
		typ := ""
		if e, ok := body["error"].(map[string]any); ok {
			typ, _ = e["type"].(string)
			if e["code"] != float64(code) {
				t.Errorf("%s %s: body code %v, status %d", c.method, c.path, e["code"], code)
			}
		}
		if code != c.code || typ != c.typ {
			t.Errorf("%s %s: %d %q, want %d %q", c.method, c.path, code, typ, c.code, c.typ)
		}
	}
}
