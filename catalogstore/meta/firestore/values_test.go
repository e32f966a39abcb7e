package firestore

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

type geo struct{ lat, lng float64 }

func (g geo) GetLatitude() float64  { return g.lat }
func (g geo) GetLongitude() float64 { return g.lng }

func TestFromFirestore_CanonicalShape(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))
	got := fromFirestore(map[string]any{
		"i":   int64(3),
		"f":   1.5,
		"ts":  ts,
		"b":   []byte("hi"),
		"geo": geo{1.5, -2},
		"ref": &firestore.DocumentRef{Path: "projects/p/databases/(default)/documents/ws/c", ID: "c"},
		"v64": firestore.Vector64{1, 2.5},
		"v32": firestore.Vector32{0.5},
		"arr": []any{map[string]any{"t": ts}, nil},
		"m":   map[string]any{"n": nil},
	})
	want := map[string]any{
		"i":   int64(3),
		"f":   1.5,
		"ts":  "2026-01-02T02:04:05.0000006Z",
		"b":   "aGk=",
		"geo": map[string]any{"latitude": 1.5, "longitude": -2.0},
		"ref": "ws/c",
		"v64": []any{1.0, 2.5},
		"v32": []any{0.5},
		"arr": []any{map[string]any{"t": "2026-01-02T02:04:05.0000006Z"}, nil},
		"m":   map[string]any{"n": nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fromFirestore:\n got %#v\nwant %#v", got, want)
	}
}

func TestCanonical(t *testing.T) {
	got, err := canonical("a/b", map[string]any{"i": 1, "w": 2.0, "s": struct {
		X int `json:"x"`
	}{4}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": int64(1), "w": int64(2), "s": map[string]any{"x": int64(4)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("canonical = %#v, want %#v", got, want)
	}
	if _, err := canonical("a", nil); !errors.Is(err, meta.ErrBadPath) {
		t.Errorf("canonical(bad path) err = %v, want ErrBadPath", err)
	}
	if _, err := canonical("a/b", map[string]any{"x": []any{1, []any{2}}}); !errors.Is(err, meta.ErrNestedArray) {
		t.Errorf("canonical(nested array) err = %v, want meta.ErrNestedArray", err)
	}
	if m, err := canonical("a/b", nil); err != nil || m == nil || len(m) != 0 {
		t.Errorf("canonical(nil) = %#v, %v; want an empty map", m, err)
	}
}
