package firestore

import (
	"context"
	"fmt"

	"cloud.google.com/go/firestore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// txn is the meta.Tx of RunTx over a *firestore.Transaction. It checks
// read-after-write itself, so that both backends return
// meta.ErrReadAfterWrite.
type txn struct {
	client         *firestore.Client
	ctx            context.Context
	tx             *firestore.Transaction
	wrote          bool
	readAfterWrite bool
	created        []string
}

func (t *txn) read() error {
	if t.wrote {
		t.readAfterWrite = true // RunTx fails even if fn drops this error
		return fmt.Errorf("firestore metastore: %w", meta.ErrReadAfterWrite)
	}
	return nil
}

func (t *txn) Get(path string) (meta.Doc, error) {
	if err := meta.CheckDocPath(path); err != nil {
		return meta.Doc{}, err
	}
	if err := t.read(); err != nil {
		return meta.Doc{}, err
	}
	snap, err := t.tx.Get(t.client.Doc(path))
	return toDoc(path, snap, err)
}

func (t *txn) List(collection string) ([]meta.Doc, error) {
	if err := meta.CheckCollectionPath(collection); err != nil {
		return nil, err
	}
	if err := t.read(); err != nil {
		return nil, err
	}
	q := t.client.Collection(collection).OrderBy(firestore.DocumentID, firestore.Asc)
	return list(collection, t.tx.Documents(q))
}

func (t *txn) Set(path string, data map[string]any) error {
	m, err := canonical(path, data)
	if err != nil {
		return err
	}
	if err := t.tx.Set(t.client.Doc(path), m); err != nil {
		return mapErr("set", path, err)
	}
	t.wrote = true
	return nil
}

func (t *txn) Merge(path string, data map[string]any) error {
	m, err := canonical(path, data)
	if err != nil {
		return err
	}
	if err := t.tx.Set(t.client.Doc(path), m, mergeOption(m)); err != nil {
		return mapErr("merge", path, err)
	}
	t.wrote = true
	return nil
}

func (t *txn) Create(path string, data map[string]any) error {
	m, err := canonical(path, data)
	if err != nil {
		return err
	}
	if err := t.tx.Create(t.client.Doc(path), m); err != nil {
		return mapErr("create", path, err)
	}
	t.wrote = true
	t.created = append(t.created, path)
	return nil
}

func (t *txn) Delete(path string) error {
	if err := meta.CheckDocPath(path); err != nil {
		return err
	}
	if err := t.tx.Delete(t.client.Doc(path)); err != nil {
		return mapErr("delete", path, err)
	}
	t.wrote = true
	return nil
}
