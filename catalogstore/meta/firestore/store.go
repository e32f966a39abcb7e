// Package firestore is the production metastore: a meta.Store over Google
// Cloud Firestore (native mode).
//
// Metastore paths are Firestore paths as they are: collections and
// documents alternate. Data is written in the canonical JSON shape of
// meta.Encode, so that it reads back exactly as from the SQLite backend.
// Values that other writers stored in Firestore-only types are read in the
// shape encoding/json gives them (timestamps as RFC 3339 strings, bytes as
// base64, references as their document path).
//
// The client honours FIRESTORE_EMULATOR_HOST, which tests use.
package firestore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"cloud.google.com/go/firestore"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// txAttempts is how many times RunTx runs fn when Firestore aborts the
// transaction for contention, before it fails with meta.ErrContention.
const txAttempts = 20

// Store is a meta.Store in one Firestore database. It is safe for
// concurrent use.
type Store struct {
	client *firestore.Client
}

var _ meta.Store = (*Store)(nil)

// Open connects to the database of project ("" or "(default)" for the
// default database).
func Open(ctx context.Context, project, database string, opts ...option.ClientOption) (*Store, error) {
	if database == "" {
		database = firestore.DefaultDatabaseID
	}
	c, err := firestore.NewClientWithDatabase(ctx, project, database, opts...)
	if err != nil {
		return nil, fmt.Errorf("firestore metastore %s/%s: %w", project, database, err)
	}
	return &Store{client: c}, nil
}

// Close closes the client.
func (s *Store) Close() error { return s.client.Close() }

// Get reads one document.
func (s *Store) Get(ctx context.Context, path string) (meta.Doc, error) {
	if err := meta.CheckDocPath(path); err != nil {
		return meta.Doc{}, err
	}
	snap, err := s.client.Doc(path).Get(ctx)
	return toDoc(path, snap, err)
}

// Set creates or replaces a document.
func (s *Store) Set(ctx context.Context, path string, data map[string]any) error {
	m, err := canonical(path, data)
	if err != nil {
		return err
	}
	_, err = s.client.Doc(path).Set(ctx, m)
	return mapErr("set", path, err)
}

// Merge creates a document or replaces the given top-level fields (a map
// value replaces the whole field; nested maps are not merged).
func (s *Store) Merge(ctx context.Context, path string, data map[string]any) error {
	m, err := canonical(path, data)
	if err != nil {
		return err
	}
	_, err = s.client.Doc(path).Set(ctx, m, mergeOption(m))
	return mapErr("merge", path, err)
}

// Delete removes one document; its sub-collections stay.
func (s *Store) Delete(ctx context.Context, path string) error {
	if err := meta.CheckDocPath(path); err != nil {
		return err
	}
	_, err := s.client.Doc(path).Delete(ctx)
	return mapErr("delete", path, err)
}

// List returns the documents directly in a collection, ordered by ID.
func (s *Store) List(ctx context.Context, collection string) ([]meta.Doc, error) {
	if err := meta.CheckCollectionPath(collection); err != nil {
		return nil, err
	}
	return list(collection, s.client.Collection(collection).OrderBy(firestore.DocumentID, firestore.Asc).Documents(ctx))
}

// Collections returns the sorted IDs of the collections directly under
// docPath ("" for the top level) that hold a document at any depth.
func (s *Store) Collections(ctx context.Context, docPath string) ([]string, error) {
	var it *firestore.CollectionIterator
	if docPath == "" {
		it = s.client.Collections(ctx)
	} else {
		if err := meta.CheckDocPath(docPath); err != nil {
			return nil, err
		}
		it = s.client.Doc(docPath).Collections(ctx)
	}
	out := []string{}
	for {
		c, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, mapErr("collections", docPath, err)
		}
		out = append(out, c.ID)
	}
	sort.Strings(out)
	return out, nil
}

// RunTx runs fn in a Firestore read-write transaction. Firestore locks what
// fn reads, so it is unchanged at commit; when Firestore aborts the
// transaction for contention, fn runs again, up to txAttempts times.
func (s *Store) RunTx(ctx context.Context, fn func(ctx context.Context, tx meta.Tx) error) error {
	ctx, cancel, err := meta.Detached(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	var created []string
	err = s.client.RunTransaction(ctx, func(ctx context.Context, ft *firestore.Transaction) error {
		t := &txn{client: s.client, ctx: ctx, tx: ft}
		err := fn(ctx, t)
		created = t.created
		if err == nil && t.readAfterWrite {
			err = fmt.Errorf("firestore metastore: %w", meta.ErrReadAfterWrite)
		}
		return err
	}, firestore.MaxAttempts(txAttempts))
	if err == nil {
		return nil
	}
	switch status.Code(err) {
	case codes.AlreadyExists:
		return fmt.Errorf("create %s: %w: %v", strings.Join(created, ", "), meta.ErrExists, err)
	case codes.Aborted:
		return fmt.Errorf("firestore metastore: %w: %v", meta.ErrContention, err)
	}
	return err // fn's own error, as it returned it, or the client's
}

// mergeOption replaces exactly the top-level fields of m. (MergeAll would
// merge nested maps field by field and drop empty ones.)
func mergeOption(m map[string]any) firestore.SetOption {
	if len(m) == 0 {
		return firestore.MergeAll // creates the document, changes no field
	}
	paths := make([]firestore.FieldPath, 0, len(m))
	for k := range m {
		paths = append(paths, firestore.FieldPath{k})
	}
	return firestore.Merge(paths...)
}

func list(collection string, it *firestore.DocumentIterator) ([]meta.Doc, error) {
	defer it.Stop()
	out := []meta.Doc{}
	for {
		snap, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return out, nil
		}
		if err != nil {
			return nil, mapErr("list", collection, err)
		}
		p := meta.Join(collection, snap.Ref.ID)
		d, err := toDoc(p, snap, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
}

func toDoc(path string, snap *firestore.DocumentSnapshot, err error) (meta.Doc, error) {
	if err != nil {
		return meta.Doc{}, mapErr("get", path, err)
	}
	if !snap.Exists() {
		return meta.Doc{}, fmt.Errorf("%w: %s", meta.ErrNotFound, path)
	}
	return meta.Doc{Path: path, Data: fromFirestore(snap.Data())}, nil
}

// mapErr maps Firestore's status codes to the metastore's errors.
func mapErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	switch status.Code(err) {
	case codes.NotFound:
		return fmt.Errorf("%w: %s", meta.ErrNotFound, path)
	case codes.AlreadyExists:
		return fmt.Errorf("%s %s: %w", op, path, meta.ErrExists)
	case codes.Aborted:
		// Both wrapped: the client retries a transaction only while it
		// still sees the Aborted status.
		return fmt.Errorf("firestore metastore: %s %s: %w: %w", op, path, meta.ErrContention, err)
	case codes.Canceled:
		// The caller's context was cancelled (KILL QUERY): say so as
		// context.Canceled, as the SQLite backend does.
		return fmt.Errorf("firestore metastore: %s %s: %w: %w", op, path, context.Canceled, err)
	}
	return fmt.Errorf("firestore metastore: %s %s: %w", op, path, err)
}
