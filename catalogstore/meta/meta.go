// Package meta defines the document metastore that holds lakesql's catalog:
// workspaces, collections, datasets, snapshots, views, triggers and jobs.
//
// A metastore is a tree of documents addressed by slash-separated paths in
// which collections and documents alternate, as in Firestore:
//
//	{workspace}/$properties
//	{workspace}/{collection}/datasets/{dataset}/incarnations/{uuid}/snapshots/{id}
//	jobs/{execution-id}
//
// A document path has an even number of segments; a collection path an odd
// number. Documents hold JSON-shaped data (strings, float64/int64 numbers,
// bools, nil, []any, map[string]any). Callers normally convert to and from
// Go structs with Encode and Doc.Decode, which round-trip through JSON so
// both backends decode identically. An array directly inside an array is
// refused by both (CheckValue), as Firestore refuses it.
//
// Two backends implement Store: meta/sqlite (the embedded default) and
// meta/firestore (production). Both pass the contract suite in
// meta/metatest.
package meta

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Doc is one document read from a Store.
type Doc struct {
	Path string         // full document path
	Data map[string]any // JSON-shaped fields
}

// ID returns the last segment of the document's path.
func (d Doc) ID() string { return Base(d.Path) }

// Decode unmarshals the document's data into v (a pointer to a struct or
// map), through JSON, so that numbers decode into the field types of v.
func (d Doc) Decode(v any) error {
	b, err := json.Marshal(d.Data)
	if err != nil {
		return fmt.Errorf("decode %s: %w", d.Path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", d.Path, err)
	}
	return nil
}

// Encode converts v (a struct with json tags, or a map) to document data.
func Encode(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode document: %w", err)
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("encode document: %w", err)
	}
	return normalize(m).(map[string]any), nil
}

// normalize turns json.Number into int64 where it is integral, float64
// otherwise, recursively.
func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	default:
		return v
	}
}

// Normalize converts JSON-decoded data (with json.Number values) into the
// canonical document shape. Backends that store JSON use it on read.
func Normalize(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return normalize(m).(map[string]any)
}

// Store is a document metastore. Implementations are safe for concurrent
// use by multiple goroutines; the SQLite backend is also safe across
// processes sharing one file.
type Store interface {
	// Get reads one document. It returns ErrNotFound if it does not exist.
	Get(ctx context.Context, path string) (Doc, error)
	// Set creates or replaces a document.
	Set(ctx context.Context, path string, data map[string]any) error
	// Merge creates a document or updates only the given top-level fields.
	Merge(ctx context.Context, path string, data map[string]any) error
	// Delete removes one document (not its sub-collections). Deleting a
	// missing document is not an error.
	Delete(ctx context.Context, path string) error
	// List returns the documents directly in a collection, ordered by ID.
	// An empty or missing collection gives an empty slice.
	List(ctx context.Context, collection string) ([]Doc, error)
	// Collections returns the IDs of the sub-collections under a document
	// path, sorted; the empty path lists the top-level collections. A
	// collection exists while any document exists at or below it.
	Collections(ctx context.Context, docPath string) ([]string, error)
	// RunTx runs fn in a read-write transaction and commits when fn returns
	// nil. fn may be called more than once (on contention), so it must only
	// read through tx and stage writes; all reads must come before the first
	// write (ErrReadAfterWrite). Reads are consistent with the commit: a
	// document read in fn is unchanged when the transaction commits, which
	// gives compare-and-set semantics.
	// Once begun, a transaction runs to its end whatever happens to ctx
	// (Detached): a cancelled caller never leaves its outcome unknown.
	RunTx(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
	// Close releases the store's resources.
	Close() error
}

// Tx is a read-write transaction passed to Store.RunTx.
type Tx interface {
	Get(path string) (Doc, error) // ErrNotFound
	// List returns the documents in a collection, as Store.List does.
	List(collection string) ([]Doc, error)
	Set(path string, data map[string]any) error
	Merge(path string, data map[string]any) error
	// Create writes a new document; the transaction fails with ErrExists
	// if it already exists.
	Create(path string, data map[string]any) error
	Delete(path string) error
}

// Join joins path segments with "/".
func Join(segs ...string) string { return strings.Join(segs, "/") }

// Base returns the last segment of a path.
func Base(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Parent returns the path of the collection holding a document, or of the
// document holding a collection; "" for a top-level collection.
func Parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// CheckDocPath reports whether p is a well-formed document path: an even,
// non-zero number of non-empty segments.
func CheckDocPath(p string) error {
	segs := strings.Split(p, "/")
	if len(segs)%2 != 0 {
		return fmt.Errorf("%w: %q is not a document path (it needs an even number of segments)", ErrBadPath, p)
	}
	return checkSegs(p, segs)
}

// CheckValue refuses a field value Firestore cannot store, so that code
// written against the embedded store works in production: an array
// directly in an array (ErrNestedArray). Both backends check every written
// field with it; other values are checked by their encoding.
func CheckValue(v any) error { return checkValue(v, false) }

func checkValue(v any, inArray bool) error {
	switch t := v.(type) {
	case []any:
		if inArray {
			return ErrNestedArray
		}
		for _, e := range t {
			if err := checkValue(e, true); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range t {
			if err := checkValue(e, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckCollectionPath reports whether p is a well-formed collection path.
func CheckCollectionPath(p string) error {
	segs := strings.Split(p, "/")
	if len(segs)%2 != 1 {
		return fmt.Errorf("%w: %q is not a collection path (it needs an odd number of segments)", ErrBadPath, p)
	}
	return checkSegs(p, segs)
}

func checkSegs(p string, segs []string) error {
	for _, s := range segs {
		if s == "" {
			return fmt.Errorf("%w: %q has an empty segment", ErrBadPath, p)
		}
	}
	return nil
}

// DeleteTree deletes a document and every document below it. It is not
// atomic: a crash part-way leaves some descendants, which a repeated call
// removes. Documents that are absent but have descendants are not visited
// (the catalog always writes parents before children).
func DeleteTree(ctx context.Context, s Store, docPath string) error {
	colls, err := s.Collections(ctx, docPath)
	if err != nil {
		return err
	}
	for _, c := range colls {
		cp := c
		if docPath != "" {
			cp = docPath + "/" + c
		}
		docs, err := s.List(ctx, cp)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if err := DeleteTree(ctx, s, d.Path); err != nil {
				return err
			}
		}
	}
	if docPath == "" {
		return nil
	}
	return s.Delete(ctx, docPath)
}
