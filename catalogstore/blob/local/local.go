package local

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// staleTemp is how old a temporary file must be before Open removes it: far
// longer than any Put, so a live writer in another process keeps its file.
const staleTemp = 24 * time.Hour

// maxPublishAttempts bounds Put's retries when a concurrent Delete prunes the
// folder Put has just created.
const maxPublishAttempts = 50

// Store is a blob.Store over a folder. All methods are safe for concurrent
// use, also by several processes sharing the folder.
type Store struct {
	root     string // absolute, cleaned
	tmp      string // root/.tmp
	readOnly bool   // OpenReadOnly: Put and Delete refuse
}

var _ blob.Store = (*Store)(nil)

// Open returns the store rooted at the folder root, creating the folder
// (and its .tmp/ sub-folder) if missing. It removes temporary files that
// killed writers left behind more than a day ago.
func Open(root string) (*Store, error) {
	if root == "" {
		return nil, fmt.Errorf("%w: empty folder path", blob.ErrBadURI)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open local store %s: %w", root, err)
	}
	s := &Store{root: abs, tmp: filepath.Join(abs, blob.ReservedDir)}
	if err := os.MkdirAll(s.tmp, 0o755); err != nil {
		return nil, fmt.Errorf("open local store %s: %w", root, err)
	}
	s.removeStaleTemps(time.Now().Add(-staleTemp))
	return s, nil
}

// OpenReadOnly returns a store over the existing folder root that only
// reads: it creates nothing (no .tmp/ folder), and Put and Delete return
// blob.ErrReadOnly. For reading files lakesql does not own (add_files and
// read_parquet of local paths outside the warehouse).
func OpenReadOnly(root string) (*Store, error) {
	if root == "" {
		return nil, fmt.Errorf("%w: empty folder path", blob.ErrBadURI)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open local store %s: %w", root, err)
	}
	return &Store{root: abs, tmp: filepath.Join(abs, blob.ReservedDir), readOnly: true}, nil
}

// removeStaleTemps deletes temporary files last modified before cutoff.
// Failures are ignored: a leftover file costs disk space, nothing else.
func (s *Store) removeStaleTemps(cutoff time.Time) {
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(s.tmp, e.Name()))
		}
	}
}

// path returns the file that holds key, or a blob.ErrBadKey error.
func (s *Store) path(key string) (string, error) {
	if err := blob.CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// LocalPath returns the file that holds key, for readers that want to open
// it themselves, or "" if key is not a valid key. The file may not exist.
// It is an optional extra of this backend: find it by type assertion.
func (s *Store) LocalPath(key string) string {
	p, err := s.path(key)
	if err != nil {
		return ""
	}
	return p
}

// Put writes r to a temporary file, fsyncs it and moves it to key, so the
// object appears whole or not at all. With opts.IfNotExists it hard-links
// the file into place instead, which fails with blob.ErrExists if key holds
// an object, atomically even across processes. If r fails or ctx is done,
// nothing is published and a previous object at key is kept.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) error {
	if s.readOnly {
		return fmt.Errorf("put %s: %w", key, blob.ErrReadOnly)
	}
	dst, err := s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	tmp, err := s.writeTemp(ctx, r)
	if err != nil {
		if ctx.Err() == nil {
			err = writeError(err)
		}
		return fmt.Errorf("put %s: %w", key, err)
	}
	if err := publish(tmp, dst, opts.IfNotExists); err != nil {
		_ = os.Remove(tmp)
		if err == errTargetExists {
			if fi, serr := os.Stat(dst); serr == nil && fi.IsDir() {
				return fmt.Errorf("put %s: a folder of that name exists", key)
			}
			return fmt.Errorf("put %s: %w", key, blob.ErrExists)
		}
		return fmt.Errorf("put %s: %w", key, writeError(err))
	}
	return nil
}

// errTargetExists is publish's answer when a create-only link finds the
// target taken.
var errTargetExists = errors.New("target exists")

// writeTemp copies r into a new fsynced file under s.tmp and returns its
// name.
func (s *Store) writeTemp(ctx context.Context, r io.Reader) (string, error) {
	f, err := createTemp(s.tmp)
	if errors.Is(err, fs.ErrNotExist) { // someone removed .tmp/
		if err = os.MkdirAll(s.tmp, 0o755); err == nil {
			f, err = createTemp(s.tmp)
		}
	}
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, ctxReader{ctx, r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// createTemp creates a new file with a random name in dir. Unlike
// os.CreateTemp it lets the umask, not 0600, decide the permissions, since
// the file becomes the object.
func createTemp(dir string) (*os.File, error) {
	for range 3 {
		f, err := os.OpenFile(filepath.Join(dir, "put-"+rand.Text()), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, errors.New("cannot create a temporary file")
}

// publish moves the finished temporary file tmp to dst, creating dst's
// folder. With create it links instead of renaming, returning
// errTargetExists if dst exists, and removes tmp on success.
//
// A concurrent Delete may prune dst's folder at any moment, so a missing
// folder (ENOENT from the move, or from MkdirAll) and MkdirAll's EEXIST
// (its Mkdir lost a race, and the winner's folder was pruned before it
// looked) are retried; only the link's EEXIST means dst exists.
func publish(tmp, dst string, create bool) error {
	dir := filepath.Dir(dst)
	for attempt := 1; ; attempt++ {
		last := attempt == maxPublishAttempts
		if err := os.MkdirAll(dir, 0o755); err != nil {
			if !last && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist)) {
				continue
			}
			return err
		}
		var err error
		if create {
			if err = os.Link(tmp, dst); err == nil {
				_ = os.Remove(tmp)
			} else if errors.Is(err, fs.ErrExist) {
				return errTargetExists
			}
		} else {
			err = os.Rename(tmp, dst)
		}
		if err == nil {
			syncDir(dir)
			return nil
		}
		if last || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
}

// syncDir fsyncs a folder so a rename in it survives a crash. It is best
// effort: some systems (Windows) cannot sync a folder.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// ctxReader stops a copy when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// isNotExist reports whether err says a path (or one of its parents) does
// not exist; a parent that is a file gives ENOTDIR.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// open opens the file of key for reading. A missing key, or a folder, is
// blob.ErrNotFound.
func (s *Store) open(ctx context.Context, op, key string) (*os.File, fs.FileInfo, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", op, key, err)
	}
	f, err := os.Open(p)
	if isNotExist(err) {
		return nil, nil, fmt.Errorf("%s %s: %w", op, key, blob.ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", op, key, err)
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = blob.ErrNotFound
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s %s: %w", op, key, err)
	}
	return f, fi, nil
}

// Get reads the whole object at key. It returns blob.ErrNotFound if absent.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	f, fi, err := s.open(ctx, "get", key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Put replaces files by rename, never in place, so the open file keeps
	// the size it had when opened.
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + 1)
	if _, err := buf.ReadFrom(ctxReader{ctx, f}); err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	return buf.Bytes(), nil
}

// ReadAt reads len(p) bytes of key from offset off with one os.File.ReadAt,
// returning io.EOF (unwrapped) when fewer remain. It returns
// blob.ErrNotFound if absent.
func (s *Store) ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", key, off)
	}
	f, _, err := s.open(ctx, "read", key)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := f.ReadAt(p, off)
	if err != nil && err != io.EOF {
		return n, fmt.Errorf("read %s: %w", key, err)
	}
	return n, err
}

// Stat describes the object at key. It returns blob.ErrNotFound if absent.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	p, err := s.path(key)
	if err != nil {
		return blob.Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return blob.Info{}, fmt.Errorf("stat %s: %w", key, err)
	}
	fi, err := os.Stat(p)
	if isNotExist(err) || (err == nil && fi.IsDir()) {
		return blob.Info{}, fmt.Errorf("stat %s: %w", key, blob.ErrNotFound)
	}
	if err != nil {
		return blob.Info{}, fmt.Errorf("stat %s: %w", key, err)
	}
	return blob.Info{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// List walks the folders that can hold keys starting with prefix and
// returns the objects whose keys do, sorted by key. Objects put or deleted
// during the walk may or may not be listed.
func (s *Store) List(ctx context.Context, prefix string) ([]blob.Info, error) {
	start := s.root
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		// Every key that matches has prefix[:i] as its leading segments; if
		// those are not a valid key, no valid key matches.
		dir := prefix[:i]
		if blob.CheckKey(dir) != nil {
			return nil, nil
		}
		start = filepath.Join(s.root, filepath.FromSlash(dir))
	}
	var out []blob.Info
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if isNotExist(err) { // never there, or removed by a Delete
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == start && d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			dk := key + "/"
			if p == s.tmp || !(strings.HasPrefix(dk, prefix) || strings.HasPrefix(prefix, dk)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(key, prefix) || blob.CheckKey(key) != nil {
			return nil
		}
		fi, err := os.Stat(p) // follows a symbolic link, as Get does
		if isNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			out = append(out, blob.Info{Key: key, Size: fi.Size(), ModTime: fi.ModTime()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	slices.SortFunc(out, func(a, b blob.Info) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Delete removes the object at key and then every parent folder that is
// left empty, up to the root. A missing object is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if s.readOnly {
		return fmt.Errorf("delete %s: %w", key, blob.ErrReadOnly)
	}
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	fi, err := os.Lstat(p)
	if isNotExist(err) || (err == nil && fi.IsDir()) {
		return nil
	}
	if err == nil {
		err = os.Remove(p)
	}
	if err != nil && !isNotExist(err) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	for dir := filepath.Dir(p); dir != s.root && strings.HasPrefix(dir, s.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty, or gone
			break
		}
	}
	return nil
}

// URI returns "file://" and the absolute root.
func (s *Store) URI() string {
	p := filepath.ToSlash(s.root)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/lake
	}
	return "file://" + p
}

// Close does nothing: the store holds no open files between calls.
func (s *Store) Close() error { return nil }
