package iceberg_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/iceberg"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/engine"
)

// The readers that prove the exported tables readable (iceberg-go, icebird)
// are in the interop module; these tests check what is written.

type env struct {
	t    *testing.T
	e    *engine.Engine
	conn *engine.Conn
}

func newEnv(t *testing.T, setup ...string) *env {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Warehouse: t.TempDir(), CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	c := e.Connect("root")
	t.Cleanup(func() { c.Close(); e.Close() })
	v := &env{t: t, e: e, conn: c}
	v.exec(setup...)
	return v
}

func (v *env) exec(stmts ...string) {
	v.t.Helper()
	for _, s := range stmts {
		if err := v.conn.Exec(context.Background(), s); err != nil {
			v.t.Fatalf("%s: %v", s, err)
		}
	}
}

func (v *env) dataset(name string) *catalogstore.Dataset {
	v.t.Helper()
	ds, err := v.e.Catalog().Dataset(context.Background(), catalogstore.Ident{Workspace: v.e.Workspace(), Collection: "c", Name: name})
	if err != nil {
		v.t.Fatal(err)
	}
	return ds
}

func (v *env) export(name string) *iceberg.Result {
	v.t.Helper()
	res, err := iceberg.Export(context.Background(), v.e.Catalog(), v.dataset(name))
	if err != nil {
		v.t.Fatal(err)
	}
	return res
}

// objects lists the keys under a dataset's Iceberg directory, relative to
// it.
func (v *env) objects(name string) map[string]bool {
	v.t.Helper()
	dir := v.dataset(name).Location + "/" + iceberg.Dir + "/"
	infos, err := v.e.Catalog().Blob().List(context.Background(), dir)
	if err != nil {
		v.t.Fatal(err)
	}
	out := map[string]bool{}
	for _, i := range infos {
		out[strings.TrimPrefix(i.Key, dir)] = true
	}
	return out
}

func added(before, after map[string]bool) []string {
	var out []string
	for k := range after {
		if !before[k] {
			out = append(out, k)
		}
	}
	return out
}

func TestExport_AppendReusesManifests(t *testing.T) {
	v := newEnv(t, "CREATE DATABASE c", "CREATE TABLE c.t (id BIGINT, v VARCHAR(5))")
	for i := range 10 {
		v.exec(fmt.Sprintf("INSERT INTO c.t VALUES (%d, 'x')", i))
	}
	first := v.export("t")
	if !first.Written || first.Version != 1 || first.ManifestLists != 10 {
		t.Fatalf("first export %+v, want version 1 written with 10 manifest lists", first)
	}
	before := v.objects("t")
	// 10 lists, 10 manifests (one per append), v1, the hint.
	if len(before) != 22 {
		t.Fatalf("%d objects after the first export, want 22: %v", len(before), before)
	}
	v.exec("INSERT INTO c.t VALUES (10, 'y')")
	second := v.export("t")
	if !second.Written || second.Version != 2 || second.ManifestLists != 1 {
		t.Fatalf("second export %+v, want version 2 with 1 manifest list", second)
	}
	var lists, manifests, metas int
	for _, k := range added(before, v.objects("t")) {
		switch {
		case strings.HasPrefix(k, "snap-"):
			lists++
		case strings.HasPrefix(k, "m-"):
			manifests++
		case strings.HasSuffix(k, ".metadata.json"):
			metas++
		}
	}
	if lists != 1 || manifests != 1 || metas != 1 {
		t.Errorf("the append's export wrote %d lists, %d manifests, %d metadata files; want 1 each", lists, manifests, metas)
	}
	hint, err := v.e.Catalog().Blob().Get(context.Background(), v.dataset("t").Location+"/"+iceberg.Dir+"/version-hint.text")
	if err != nil || string(hint) != "2" {
		t.Errorf("version-hint.text %q (%v), want 2", hint, err)
	}
	// Nothing changed: nothing is written.
	third := v.export("t")
	if third.Written || third.Version != 2 || third.ManifestLists != 0 {
		t.Errorf("unchanged export %+v, want version 2 not written", third)
	}
	// A tag changes the refs: a new version, no new manifests.
	v.exec("CALL create_tag('c.t', 'release')")
	objs := v.objects("t")
	fourth := v.export("t")
	if !fourth.Written || fourth.Version != 3 || len(added(objs, v.objects("t"))) != 1 {
		t.Errorf("export after a tag %+v wrote %v, want only v3.metadata.json", fourth, added(objs, v.objects("t")))
	}
}

func TestExport_RefusesUnsignedIntegersWritingNothing(t *testing.T) {
	for _, typ := range []string{"INT UNSIGNED", "BIGINT UNSIGNED"} {
		t.Run(typ, func(t *testing.T) {
			v := newEnv(t, "CREATE DATABASE c", "CREATE TABLE c.t (id BIGINT, u "+typ+")", "INSERT INTO c.t VALUES (1, 4000000000)")
			_, err := iceberg.Export(context.Background(), v.e.Catalog(), v.dataset("t"))
			if !errors.Is(err, iceberg.ErrNoIcebergType) || !strings.Contains(err.Error(), `column "u"`) {
				t.Fatalf("export: %v, want ErrNoIcebergType naming column u", err)
			}
			if objs := v.objects("t"); len(objs) != 0 {
				t.Errorf("a refused export wrote %v", objs)
			}
			// The same refusal through SQL, with MySQL's "not supported" code.
			_, err = v.conn.QueryOne(context.Background(), "CALL iceberg_metadata('c.t')")
			if err == nil || !strings.Contains(err.Error(), "no Iceberg type") || !strings.Contains(err.Error(), "1235") {
				t.Errorf("CALL iceberg_metadata: %v, want the refusal with code 1235", err)
			}
		})
	}
}

func TestType_Mapping(t *testing.T) {
	cases := []struct {
		in   schema.Type
		want string
	}{
		{schema.Type{Kind: schema.Bool}, "boolean"},
		{schema.Type{Kind: schema.Int8}, "int"},
		{schema.Type{Kind: schema.Uint8}, "int"},
		{schema.Type{Kind: schema.Uint16}, "int"},
		{schema.Type{Kind: schema.Int32}, "int"},
		{schema.Type{Kind: schema.Int64}, "long"},
		{schema.Type{Kind: schema.Uint32}, ""},
		{schema.Type{Kind: schema.Uint64}, ""},
		{schema.Type{Kind: schema.Float32}, "float"},
		{schema.Type{Kind: schema.Float64}, "double"},
		{schema.Type{Kind: schema.Decimal, Precision: 38, Scale: 10}, "decimal(38,10)"},
		{schema.Type{Kind: schema.String}, "string"},
		{schema.Type{Kind: schema.JSON}, "string"},
		{schema.Type{Kind: schema.Binary}, "binary"},
		{schema.Type{Kind: schema.Date}, "date"},
		{schema.Type{Kind: schema.Time}, "time"},
		{schema.Type{Kind: schema.Timestamp}, "timestamptz"},
	}
	for _, c := range cases {
		got, err := iceberg.Type(c.in)
		if c.want == "" {
			if !errors.Is(err, iceberg.ErrNoIcebergType) {
				t.Errorf("%s: %q, %v; want ErrNoIcebergType", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestExport_OrphanCleanupLeavesIcebergAlone: the Iceberg directory is
// outside lakesql's data/ and metadata/, so remove_orphan_files counts its
// objects as foreign and never quarantines or removes them.
func TestExport_OrphanCleanupLeavesIcebergAlone(t *testing.T) {
	v := newEnv(t, "CREATE DATABASE c", "CREATE TABLE c.t (id BIGINT)", "INSERT INTO c.t VALUES (1)", "INSERT INTO c.t VALUES (2)")
	v.export("t")
	objs := v.objects("t")
	res, err := maintenance.RemoveOrphans(context.Background(), v.e.Catalog(), v.dataset("t"), maintenance.MinOrphanWindow, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Foreign != len(objs) || len(res.Quarantined) != 0 || len(res.Removed) != 0 {
		t.Errorf("orphan pass: %d foreign, quarantined %v, removed %v; want the %d Iceberg objects foreign and untouched",
			res.Foreign, res.Quarantined, res.Removed, len(objs))
	}
}
