package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// txn is the meta.Tx of RunTx: reads go to the open SQLite transaction,
// writes are staged and applied by RunTx after fn returns nil.
type txn struct {
	ctx            context.Context // RunTx's context, for the reads of this one call
	tx             *sql.Tx
	writes         []write
	readAfterWrite bool
}

func (t *txn) read() error {
	if len(t.writes) > 0 {
		t.readAfterWrite = true // RunTx fails even if fn drops this error
		return fmt.Errorf("sqlite metastore: %w", meta.ErrReadAfterWrite)
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
	return get(t.ctx, t.tx, path)
}

func (t *txn) List(collection string) ([]meta.Doc, error) {
	if err := meta.CheckCollectionPath(collection); err != nil {
		return nil, err
	}
	if err := t.read(); err != nil {
		return nil, err
	}
	return list(t.ctx, t.tx, collection)
}

func (t *txn) stage(op opKind, path string, data map[string]any) error {
	w, err := newWrite(op, path, data)
	if err != nil {
		return err
	}
	t.writes = append(t.writes, w)
	return nil
}

func (t *txn) Set(path string, data map[string]any) error   { return t.stage(opSet, path, data) }
func (t *txn) Merge(path string, data map[string]any) error { return t.stage(opMerge, path, data) }
func (t *txn) Create(path string, data map[string]any) error {
	return t.stage(opCreate, path, data)
}
func (t *txn) Delete(path string) error { return t.stage(opDelete, path, nil) }

type opKind int

const (
	opSet opKind = iota
	opMerge
	opCreate
	opDelete
)

// write is one staged change, with its data already encoded so that bad
// data fails the call that staged it.
type write struct {
	op     opKind
	path   string
	fields map[string]json.RawMessage // top-level fields, JSON-encoded
}

func newWrite(op opKind, path string, data map[string]any) (write, error) {
	if err := meta.CheckDocPath(path); err != nil {
		return write{}, err
	}
	w := write{op: op, path: path}
	if op == opDelete {
		return w, nil
	}
	w.fields = make(map[string]json.RawMessage, len(data))
	for k, v := range data {
		if err := meta.CheckValue(v); err != nil {
			return write{}, fmt.Errorf("sqlite metastore: %s: field %q: %w", path, k, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return write{}, fmt.Errorf("sqlite metastore: %s: field %q: %w", path, k, err)
		}
		w.fields[k] = b
	}
	return w, nil
}

func encodeFields(fields map[string]json.RawMessage) string {
	// json.Marshal sorts map keys, so equal data gives equal text.
	b, _ := json.Marshal(fields) // RawMessages are valid JSON
	return string(b)
}

// apply performs the write in tx.
func (w write) apply(ctx context.Context, tx *sql.Tx) error {
	coll, id := meta.Parent(w.path), meta.Base(w.path)
	var err error
	switch w.op {
	case opSet:
		_, err = tx.ExecContext(ctx, `INSERT INTO docs (path, coll, id, data) VALUES (?, ?, ?, ?)
			ON CONFLICT (path) DO UPDATE SET data = excluded.data`, w.path, coll, id, encodeFields(w.fields))
	case opCreate:
		var res sql.Result
		res, err = tx.ExecContext(ctx, `INSERT INTO docs (path, coll, id, data) VALUES (?, ?, ?, ?)
			ON CONFLICT (path) DO NOTHING`, w.path, coll, id, encodeFields(w.fields))
		if err == nil {
			var n int64
			if n, err = res.RowsAffected(); err == nil && n == 0 {
				return fmt.Errorf("create %s: %w", w.path, meta.ErrExists)
			}
		}
	case opMerge:
		var old string
		err = tx.QueryRowContext(ctx, `SELECT data FROM docs WHERE path = ?`, w.path).Scan(&old)
		fields := map[string]json.RawMessage{}
		switch {
		case errors.Is(err, sql.ErrNoRows):
			err = nil
		case err == nil:
			if err = json.Unmarshal([]byte(old), &fields); err != nil {
				return fmt.Errorf("sqlite metastore: %s holds bad JSON: %w", w.path, err)
			}
		}
		if err != nil {
			break
		}
		if fields == nil { // the stored text was "null"
			fields = map[string]json.RawMessage{}
		}
		for k, v := range w.fields {
			fields[k] = v
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO docs (path, coll, id, data) VALUES (?, ?, ?, ?)
			ON CONFLICT (path) DO UPDATE SET data = excluded.data`, w.path, coll, id, encodeFields(fields))
	case opDelete:
		_, err = tx.ExecContext(ctx, `DELETE FROM docs WHERE path = ?`, w.path)
	}
	if err != nil {
		// %w, so that classify still sees SQLITE_BUSY.
		return fmt.Errorf("sqlite metastore: write %s: %w", w.path, err)
	}
	return nil
}
