package catalogstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta/metatest"
)

// TestEgress_GuardSemantics pins the fail-closed tri-state of
// egress_protection as the one gate applies it: only a real false lets a
// copy out.
func TestEgress_GuardSemantics(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		cases := []struct {
			name       string
			props      map[string]any // nil: no properties field at all
			restricted bool
		}{
			{"absent", nil, true},
			{"empty properties", map[string]any{}, true},
			{"null", map[string]any{"egress_protection": nil}, true},
			{"'OFF' string", map[string]any{"egress_protection": "OFF"}, true},
			{"'false' string", map[string]any{"egress_protection": "false"}, true},
			{"zero", map[string]any{"egress_protection": int64(0)}, true},
			{"true", map[string]any{"egress_protection": true}, true},
			{"false", map[string]any{"egress_protection": false}, false},
		}
		for _, c := range cases {
			src := "s" + metatest.UniqueName()
			doc := map[string]any{"name": src, "author": "x"}
			if c.props != nil {
				doc["properties"] = c.props
			}
			if err := e.m.Set(ctx, src+"/$properties", doc); err != nil {
				t.Fatal(err)
			}
			if got := e.cat.IsEgressRestricted(ctx, src); got != c.restricted {
				t.Errorf("%s: IsEgressRestricted = %v, want %v", c.name, got, c.restricted)
			}
			err := catalogstore.EnforceEgress(ctx, e.cat, []catalogstore.Ident{{Workspace: src, Collection: "raw", Name: "t"}}, e.ws, "copy")
			if c.restricted != errors.Is(err, catalogstore.ErrEgressRestricted) {
				t.Errorf("%s: EnforceEgress = %v, want restricted %v", c.name, err, c.restricted)
			}
			// Within its own workspace a copy is never egress.
			if err := catalogstore.EnforceEgress(ctx, e.cat, []catalogstore.Ident{{Workspace: src, Collection: "raw", Name: "t"}}, src, "copy"); err != nil {
				t.Errorf("%s: same-workspace copy refused: %v", c.name, err)
			}
		}
		// A workspace that does not exist is restricted too.
		missing := "m" + metatest.UniqueName()
		if !e.cat.IsEgressRestricted(ctx, missing) {
			t.Error("a missing workspace must read as restricted")
		}
		err := catalogstore.EnforceEgress(ctx, e.cat, []catalogstore.Ident{{Workspace: missing, Collection: "c", Name: "t"}}, e.ws, "copy")
		if !errors.Is(err, catalogstore.ErrEgressRestricted) || !strings.Contains(err.Error(), "cannot be read") {
			t.Errorf("missing workspace: %v", err)
		}
		// ALTER WORKSPACE ... TO maybe is refused and changes nothing.
		if err := e.cat.SetWorkspaceProperty(ctx, e.ws, "egress_protection", "maybe", "x"); !errors.Is(err, catalogstore.ErrBadValue) {
			t.Errorf("a non-boolean value: %v", err)
		}
		if err := e.cat.SetWorkspaceProperty(ctx, e.ws, "egress", false, "x"); !errors.Is(err, catalogstore.ErrUnknownProperty) {
			t.Errorf("an unknown property: %v", err)
		}
	})
}

// TestEgress_ReportsEverySource: the gate names every refusing workspace
// and source, each with its remediation, and ignores allowed ones.
func TestEgress_ReportsEverySource(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		var wss []string
		for range 3 {
			ws := "w" + metatest.UniqueName()
			if _, err := e.cat.CreateWorkspace(ctx, ws, "x"); err != nil {
				t.Fatal(err)
			}
			wss = append(wss, ws)
		}
		if err := e.cat.SetWorkspaceProperty(ctx, wss[2], catalogstore.PropEgressProtection, false, "x"); err != nil {
			t.Fatal(err)
		}
		srcs := []catalogstore.Ident{
			{Workspace: wss[0], Collection: "raw", Name: "a"}, {Workspace: wss[0], Collection: "raw", Name: "b"},
			{Workspace: wss[1], Collection: "raw", Name: "c"}, {Workspace: wss[2], Collection: "raw", Name: "d"},
			{Workspace: e.ws, Collection: "raw", Name: "e"},
		}
		err := catalogstore.EnforceEgress(ctx, e.cat, srcs, e.ws, "create table "+e.ws+".mart.copy")
		var ee *catalogstore.EgressError
		if !errors.As(err, &ee) || len(ee.Refused) != 2 || ee.Destination != e.ws {
			t.Fatalf("EnforceEgress = %v", err)
		}
		msg := err.Error()
		for _, want := range []string{
			wss[0] + ".raw.a", wss[0] + ".raw.b", wss[1] + ".raw.c",
			"ALTER WORKSPACE " + wss[0] + " SET egress_protection TO OFF",
			"ALTER WORKSPACE " + wss[1] + " SET egress_protection TO OFF",
			"create table " + e.ws + ".mart.copy",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
		if strings.Contains(msg, wss[2]) || strings.Contains(msg, ".raw.e") {
			t.Errorf("message %q names an allowed source", msg)
		}
		if catalogstore.IsAlertable(err) {
			t.Error("an egress refusal is a caller error, never alertable")
		}
	})
}
