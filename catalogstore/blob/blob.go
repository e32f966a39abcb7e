// Package blob defines the object store that holds lakesql's data files and
// manifests, shaped like Pebble's remote.Storage: a few methods, each with
// its concurrency contract.
//
// Keys are slash-separated paths relative to the store's root, for example
// "ws/coll/orders-3f2c.../data/9a1e....parquet". Objects are write-once in
// practice: a data file or manifest is never rewritten in place. Every
// backend refuses the same malformed keys with the one rule, CheckKey
// (key.go), as io/fs.ValidPath does for file systems.
//
// Backends: blob/local (a folder; the embedded default) and blob/gcs
// (Google Cloud Storage). Both pass the contract suite in blob/blobtest.
// The engine picks one from the configured URI (file:// or a path, gs://).
package blob

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// Info describes one object.
type Info struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// PutOptions modify Put.
type PutOptions struct {
	// IfNotExists makes Put fail with ErrExists when the key already holds
	// an object, atomically (create-only).
	IfNotExists bool
}

// Store is an object store. All methods are safe for concurrent use,
// including parallel ReadAt calls on one object.
type Store interface {
	// Put writes the whole of r as the object at key. The object becomes
	// visible atomically when Put returns nil: readers never see a
	// partially written object. ErrExists with opts.IfNotExists.
	Put(ctx context.Context, key string, r io.Reader, opts PutOptions) error
	// Get reads a whole object. ErrNotFound if absent.
	Get(ctx context.Context, key string) ([]byte, error)
	// ReadAt reads len(p) bytes at offset off, like io.ReaderAt: it returns
	// io.EOF with n < len(p) at the end of the object. ErrNotFound if
	// absent.
	ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error)
	// Stat describes an object. ErrNotFound if absent.
	Stat(ctx context.Context, key string) (Info, error)
	// List returns every object whose key starts with prefix, sorted by
	// key. A prefix is a plain string prefix, not a directory.
	List(ctx context.Context, prefix string) ([]Info, error)
	// Delete removes an object. Deleting a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// URI returns the store's root as a URI (file:///abs/path or
	// gs://bucket/prefix).
	URI() string
	Close() error
}

// ReaderAt adapts one object to io.ReaderAt for Parquet readers. It binds
// ctx for the reader's lifetime, which is the lifetime of one scan.
// ReadAt is safe for concurrent use; Seek is not.
type ReaderAt struct {
	ctx   context.Context
	store Store
	key   string
	size  int64
	pos   int64 // Seek position; ReadAt ignores it

	mu  sync.Mutex
	err error // the first read error (not io.EOF), for Err
}

// NewReaderAt returns an io.ReaderAt over key, whose size the caller knows
// (from Stat or a manifest entry).
func NewReaderAt(ctx context.Context, s Store, key string, size int64) *ReaderAt {
	return &ReaderAt{ctx: ctx, store: s, key: key, size: size}
}

// ReadAt implements io.ReaderAt.
func (r *ReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.store.ReadAt(r.ctx, r.key, p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
	return n, err
}

// Err is the first error a ReadAt returned other than io.EOF, or nil: a
// Parquet decoder may pass a read error on without wrapping it, and this
// tells a failed read from damaged content.
func (r *ReaderAt) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Size is the object's size.
func (r *ReaderAt) Size() int64 { return r.size }

// Seek implements io.Seeker for readers that want one (arrow-go's
// parquet.ReaderAtSeeker calls Seek(0, io.SeekEnd) to learn the size). It
// only moves a position that nothing reads from: there is no Read.
func (r *ReaderAt) Seek(offset int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case io.SeekStart:
		pos = offset
	case io.SeekCurrent:
		pos = r.pos + offset
	case io.SeekEnd:
		pos = r.size + offset
	default:
		return 0, errors.New("blob: seek: invalid whence")
	}
	if pos < 0 {
		return 0, errors.New("blob: seek: negative position")
	}
	r.pos = pos
	return pos, nil
}
