package firestore

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// canonical validates path and converts data to the JSON shape that
// meta.Encode gives (int64, float64, string, bool, nil, []any,
// map[string]any), so that what is written reads back exactly as from the
// SQLite backend: a Go int becomes int64, a whole float64 becomes int64, a
// struct becomes a map.
func canonical(path string, data map[string]any) (map[string]any, error) {
	if err := meta.CheckDocPath(path); err != nil {
		return nil, err
	}
	if data == nil {
		return map[string]any{}, nil
	}
	m, err := meta.Encode(data)
	if err != nil {
		return nil, fmt.Errorf("firestore metastore: %s: %w", path, err)
	}
	for k, v := range m {
		if err := meta.CheckValue(v); err != nil {
			return nil, fmt.Errorf("firestore metastore: %s: field %q: %w", path, k, err)
		}
	}
	return m, nil
}

// fromFirestore converts document data as the client returns it into the
// canonical shape.
func fromFirestore(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = fromValue(v)
	}
	return out
}

func fromValue(v any) any {
	switch t := v.(type) {
	case nil, bool, string, int64, float64:
		return t
	case map[string]any:
		return fromFirestore(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = fromValue(e)
		}
		return out
	case time.Time: // as encoding/json writes it
		return t.UTC().Format(time.RFC3339Nano)
	case []byte:
		return base64.StdEncoding.EncodeToString(t)
	case latLng:
		return map[string]any{"latitude": t.GetLatitude(), "longitude": t.GetLongitude()}
	case *firestore.DocumentRef:
		return docPath(t)
	case firestore.Vector64:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = e
		}
		return out
	case firestore.Vector32:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = float64(e)
		}
		return out
	default:
		return fmt.Sprint(t)
	}
}

// latLng is *latlng.LatLng, Firestore's geo point.
type latLng interface {
	GetLatitude() float64
	GetLongitude() float64
}

// docPath returns the metastore path of a reference: its full name without
// "projects/P/databases/D/documents/".
func docPath(r *firestore.DocumentRef) string {
	const sep = "/documents/"
	if i := strings.Index(r.Path, sep); i >= 0 {
		return r.Path[i+len(sep):]
	}
	return r.Path
}
