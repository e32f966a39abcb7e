// Package sqlite is the embedded metastore: a meta.Store kept in one SQLite
// file through modernc.org/sqlite (pure Go, no cgo).
//
// Every document is one row of the table docs(path, coll, id, data), with
// its data as JSON. Several processes may open the same file: the database
// runs in WAL mode (readers never wait for the writer), every write is a
// BEGIN IMMEDIATE transaction (one writer at a time, taken before anything
// is read, so a transaction never has to be retried for a stale read), and
// a writer waits up to busyTimeout for the lock held by another process.
//
// Within one process writers queue on a semaphore rather than on SQLite's
// polling busy handler, so the lock is handed over without sleeps.
//
// Caveat: SQLite's POSIX locks belong to the process. Closing any other
// os.File open on the database file drops them; never open the file directly
// while a Store uses it (see modernc.org/sqlite's OFDLocking).
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

const (
	// busyTimeout is how long SQLite waits for another connection's lock
	// before it reports SQLITE_BUSY.
	busyTimeout = 10 * time.Second
	// busyRetries is how many more times a write is tried after SQLITE_BUSY
	// before it fails with meta.ErrContention.
	busyRetries = 3
	// formatVersion is stored in PRAGMA user_version.
	formatVersion = 1
)

const schema = `
CREATE TABLE IF NOT EXISTS docs (
	path TEXT PRIMARY KEY,
	coll TEXT NOT NULL,
	id   TEXT NOT NULL,
	data TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS docs_coll ON docs (coll, id);
`

// Store is a meta.Store in one SQLite file. It is safe for concurrent use by
// several goroutines and several processes.
type Store struct {
	db      *sql.DB
	writer  chan struct{} // holds one token while a write transaction runs
	retries int
	backoff time.Duration // first pause after SQLITE_BUSY; doubles
}

var _ meta.Store = (*Store)(nil)

// Open opens the metastore in the SQLite file at path, creating the file and
// its table if they do not exist.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, busyTimeout, busyRetries)
}

func open(ctx context.Context, path string, timeout time.Duration, retries int) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite metastore: empty path")
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", timeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	// A file: URI so that '?' or '#' in the path cannot be taken for the
	// query; url.URL escapes them.
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite metastore %s: %w", path, err)
	}
	s := &Store{db: db, writer: make(chan struct{}, 1), retries: retries, backoff: 50 * time.Millisecond}
	err = s.write(ctx, func(tx *sql.Tx) error {
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return err
		}
		if v > formatVersion {
			return fmt.Errorf("file format %d is newer than this lakesql (%d)", v, formatVersion)
		}
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", formatVersion))
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite metastore %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Get reads one document.
func (s *Store) Get(ctx context.Context, path string) (meta.Doc, error) {
	if err := meta.CheckDocPath(path); err != nil {
		return meta.Doc{}, err
	}
	return get(ctx, s.db, path)
}

// Set creates or replaces a document.
func (s *Store) Set(ctx context.Context, path string, data map[string]any) error {
	w, err := newWrite(opSet, path, data)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error { return w.apply(ctx, tx) })
}

// Merge creates a document or replaces the given top-level fields.
func (s *Store) Merge(ctx context.Context, path string, data map[string]any) error {
	w, err := newWrite(opMerge, path, data)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error { return w.apply(ctx, tx) })
}

// Delete removes one document; its sub-collections stay.
func (s *Store) Delete(ctx context.Context, path string) error {
	w, err := newWrite(opDelete, path, nil)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error { return w.apply(ctx, tx) })
}

// List returns the documents directly in a collection, ordered by ID.
func (s *Store) List(ctx context.Context, collection string) ([]meta.Doc, error) {
	if err := meta.CheckCollectionPath(collection); err != nil {
		return nil, err
	}
	return list(ctx, s.db, collection)
}

// Collections returns the sorted IDs of the collections directly under
// docPath ("" for the top level) that hold a document at any depth.
//
// It skips through the primary key: every path below docPath/c lies in
// [docPath/c/, docPath/c0) ('0' follows '/'), so one indexed lookup per
// collection finds the next one, however many documents each holds.
func (s *Store) Collections(ctx context.Context, docPath string) ([]string, error) {
	prefix, end := "", ""
	if docPath != "" {
		if err := meta.CheckDocPath(docPath); err != nil {
			return nil, err
		}
		prefix, end = docPath+"/", docPath+"0"
	}
	// One read transaction, so that all lookups see one snapshot.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("sqlite metastore: collections %q: %w", docPath, err)
	}
	defer tx.Rollback()
	out := []string{}
	from := prefix
	for {
		var p string
		var err error
		if end == "" {
			err = tx.QueryRowContext(ctx, `SELECT path FROM docs WHERE path >= ? ORDER BY path LIMIT 1`, from).Scan(&p)
		} else {
			err = tx.QueryRowContext(ctx, `SELECT path FROM docs WHERE path >= ? AND path < ? ORDER BY path LIMIT 1`, from, end).Scan(&p)
		}
		if errors.Is(err, sql.ErrNoRows) {
			// Path order puts "a-b/" before "a/": sort the IDs themselves.
			sort.Strings(out)
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite metastore: collections %q: %w", docPath, err)
		}
		rest := p[len(prefix):]
		i := strings.IndexByte(rest, '/')
		if i < 0 { // cannot happen: a document path below prefix has 2+ more segments
			return nil, fmt.Errorf("sqlite metastore: collections %q: stray path %q", docPath, p)
		}
		out = append(out, rest[:i])
		from = prefix + rest[:i] + "0"
	}
}

// RunTx runs fn in one BEGIN IMMEDIATE transaction. fn's reads go to the
// database; its writes are staged and applied when fn returns nil. Because
// the write lock is held from the start, what fn read is unchanged at
// commit. fn runs again only if SQLite reports SQLITE_BUSY after its busy
// timeout (another process held the lock that long).
func (s *Store) RunTx(ctx context.Context, fn func(ctx context.Context, tx meta.Tx) error) error {
	ctx, cancel, err := meta.Detached(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	return s.write(ctx, func(stx *sql.Tx) error {
		t := &txn{ctx: ctx, tx: stx}
		if err := fn(ctx, t); err != nil {
			return err
		}
		if t.readAfterWrite {
			return fmt.Errorf("sqlite metastore: %w", meta.ErrReadAfterWrite)
		}
		for _, w := range t.writes {
			if err := w.apply(ctx, stx); err != nil {
				return err
			}
		}
		return nil
	})
}

// errBusy marks a failed attempt that may succeed when tried again.
type errBusy struct{ err error }

func (e errBusy) Error() string { return e.err.Error() }
func (e errBusy) Unwrap() error { return e.err }

// write runs fn in a BEGIN IMMEDIATE transaction and commits if fn returns
// nil, retrying after SQLITE_BUSY with backoff.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writer }()

	pause := s.backoff
	for attempt := 0; ; attempt++ {
		err := s.writeOnce(ctx, fn)
		var busy errBusy
		if !errors.As(err, &busy) {
			return err
		}
		if attempt >= s.retries {
			return fmt.Errorf("sqlite metastore: %w: %v", meta.ErrContention, busy.err)
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctx.Err()
		}
		pause *= 2
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return classify(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return classify(err)
	}
	if err := tx.Commit(); err != nil {
		tx.Rollback()
		return classify(err)
	}
	return nil
}

// classify marks SQLITE_BUSY (and SQLITE_LOCKED) errors as errBusy.
func classify(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return errBusy{err}
		}
	}
	return err
}

// querier is what reads need from *sql.DB and *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func get(ctx context.Context, q querier, path string) (meta.Doc, error) {
	var data string
	err := q.QueryRowContext(ctx, `SELECT data FROM docs WHERE path = ?`, path).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.Doc{}, fmt.Errorf("%w: %s", meta.ErrNotFound, path)
	}
	if err != nil {
		return meta.Doc{}, fmt.Errorf("sqlite metastore: get %s: %w", path, err)
	}
	m, err := decode(path, data)
	if err != nil {
		return meta.Doc{}, err
	}
	return meta.Doc{Path: path, Data: m}, nil
}

func list(ctx context.Context, q querier, collection string) ([]meta.Doc, error) {
	rows, err := q.QueryContext(ctx, `SELECT path, data FROM docs WHERE coll = ? ORDER BY id`, collection)
	if err != nil {
		return nil, fmt.Errorf("sqlite metastore: list %s: %w", collection, err)
	}
	defer rows.Close()
	out := []meta.Doc{}
	for rows.Next() {
		var path, data string
		if err := rows.Scan(&path, &data); err != nil {
			return nil, fmt.Errorf("sqlite metastore: list %s: %w", collection, err)
		}
		m, err := decode(path, data)
		if err != nil {
			return nil, err
		}
		out = append(out, meta.Doc{Path: path, Data: m})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite metastore: list %s: %w", collection, err)
	}
	return out, nil
}

func decode(path, data string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("sqlite metastore: %s holds bad JSON: %w", path, err)
	}
	return meta.Normalize(m), nil
}
