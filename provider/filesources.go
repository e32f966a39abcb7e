package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/mysqlfix"
)

// ErrNoFiles: a file reference names no file (a missing file, a folder, a
// glob matching nothing).
var ErrNoFiles = fmt.Errorf("%w: no such file", catalogstore.ErrBadValue)

// FileRefs resolves the file references of add_files, read_parquet and
// read_csv — warehouse keys (relative paths), absolute local paths,
// file:// and gs:// URIs, each possibly a glob (*, ?, [...] in the last
// segments) — to files in stores. A reference inside the warehouse's own
// store resolves to it (Store nil: registered in place); a local path
// outside it passes the server-file guard (FILE privilege and
// secure_file_priv); another bucket needs FILE. Close releases the
// stores opened. Not safe for concurrent use.
type FileRefs struct {
	// needFile makes every reference need FILE, warehouse keys too
	// (read_parquet, read_csv: reading any object of the warehouse would
	// bypass table grants and expose the metastore file).
	needFile bool
	wh       blob.Store
	guard    mysqlfix.FileGuard
	disk     *local.Store
	bucket   func(ctx context.Context, name string) (blob.Store, error)
}

// NewFileRefs returns a resolver for the warehouse store wh under guard;
// bucket opens (or returns an open) store over a GCS bucket, which the
// caller of NewFileRefs owns.
func NewFileRefs(wh blob.Store, guard mysqlfix.FileGuard, bucket func(ctx context.Context, name string) (blob.Store, error)) *FileRefs {
	return &FileRefs{wh: wh, guard: guard, bucket: bucket}
}

// Resolve returns the files ref names, sorted by key for a glob. A glob
// matching nothing, a missing file or a folder is ErrNoFiles naming ref.
func (r *FileRefs) Resolve(ctx *sql.Context, ref string) ([]catalogstore.FileSource, error) {
	ref = strings.TrimSpace(ref)
	if r.needFile {
		if err := r.guard.Allowed(ctx); err != nil {
			return nil, err
		}
	}
	whURI := strings.TrimSuffix(r.wh.URI(), "/")
	switch {
	case ref == "":
		return nil, fmt.Errorf("%w: an empty file name", catalogstore.ErrBadValue)
	case strings.HasPrefix(ref, whURI+"/"):
		return r.inStore(ctx, ref, nil, r.wh, strings.TrimPrefix(ref, whURI+"/"))
	case strings.HasPrefix(ref, "gs://"):
		return r.inBucket(ctx, ref)
	case strings.HasPrefix(ref, "file://"):
		p := strings.TrimPrefix(ref, "file://")
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%w: %s: a file:// URI names an absolute path (file:///dir/x.parquet)", catalogstore.ErrBadValue, ref)
		}
		return r.localPath(ctx, ref, p)
	case filepath.IsAbs(ref):
		return r.localPath(ctx, ref, ref)
	case strings.Contains(ref, "://"):
		return nil, fmt.Errorf("%w: %s: use a warehouse key, an absolute path, file:// or gs://", catalogstore.ErrBadValue, ref)
	default:
		return r.inStore(ctx, ref, nil, r.wh, ref)
	}
}

// metastoreFile reports whether a warehouse key is the embedded
// metastore's SQLite file (or its -wal/-shm companions), which holds the
// users' password hashes: no file reference reads it.
func metastoreFile(key string) bool {
	return !strings.Contains(key, "/") && strings.HasPrefix(key, "lakesql.db")
}

// hasMeta reports whether p is a glob.
func hasMeta(p string) bool { return strings.ContainsAny(p, "*?[") }

// inStore resolves key (maybe a glob) in store; own is nil for the
// warehouse (in place) or the store itself (copied).
func (r *FileRefs) inStore(ctx context.Context, ref string, own, store blob.Store, key string) ([]catalogstore.FileSource, error) {
	if own == nil && catalogstore.InDatasetLocation(key) {
		return nil, fmt.Errorf("%w: %s is in the folder of a lakesql table, whose files lakesql manages: query the table instead", catalogstore.ErrBadValue, ref)
	}
	if own == nil && metastoreFile(key) {
		return nil, fmt.Errorf("%w: %s is the metastore, not a data file", mysqlfix.ErrSecureFilePriv, ref)
	}
	if !hasMeta(key) {
		if _, err := store.Stat(ctx, key); err != nil {
			if !errors.Is(err, blob.ErrNotFound) {
				return nil, fmt.Errorf("%w: %s: %w", catalogstore.ErrBadValue, ref, err)
			}
			if objs, lerr := store.List(ctx, strings.TrimSuffix(key, "/")+"/"); lerr == nil && len(objs) > 0 {
				return nil, fmt.Errorf("%w: %s is a folder, not a file (name its files, or a glob such as %s/*.parquet)", ErrNoFiles, ref, strings.TrimSuffix(ref, "/"))
			}
			return nil, fmt.Errorf("%w: %s does not exist", ErrNoFiles, ref)
		}
		return []catalogstore.FileSource{{Name: ref, Store: own, Key: key}}, nil
	}
	prefix := key
	if i := strings.IndexAny(key, "*?["); i >= 0 {
		prefix = key[:i]
	}
	objs, err := store.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", catalogstore.ErrBadValue, ref, err)
	}
	var out []catalogstore.FileSource
	for _, o := range objs {
		ok, err := path.Match(key, o.Key)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: bad glob: %v", catalogstore.ErrBadValue, ref, err)
		}
		if !ok {
			continue
		}
		if own == nil && metastoreFile(o.Key) {
			continue
		}
		if own == nil && catalogstore.InDatasetLocation(o.Key) {
			return nil, fmt.Errorf("%w: %s matches %s, in the folder of a lakesql table, whose files lakesql manages", catalogstore.ErrBadValue, ref, o.Key)
		}
		out = append(out, catalogstore.FileSource{Name: refName(ref, key, o.Key), Store: own, Key: o.Key})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s matched no files", ErrNoFiles, ref)
	}
	return out, nil
}

// refName is the name of one match of a glob: ref with the glob part
// replaced by the key's.
func refName(ref, glob, key string) string {
	return strings.TrimSuffix(ref, glob) + key
}

// bucket resolves a gs:// reference outside the warehouse: it needs FILE,
// and the bucket must be reachable with the server's credentials.
func (r *FileRefs) inBucket(ctx *sql.Context, ref string) ([]catalogstore.FileSource, error) {
	if err := r.guard.Allowed(ctx); err != nil {
		return nil, err
	}
	rest := strings.TrimPrefix(ref, "gs://")
	name, key, _ := strings.Cut(rest, "/")
	if key == "" {
		return nil, fmt.Errorf("%w: %s names a bucket, not a file", catalogstore.ErrBadValue, ref)
	}
	b, err := r.bucket(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: bucket %s cannot be reached: %w", catalogstore.ErrBadValue, ref, name, err)
	}
	return r.inStore(ctx, ref, b, b, key)
}

// localPath resolves an absolute local path: inside the warehouse's own
// folder it is a key there (in place); anywhere else it passes the guard
// and is read through a read-only store over the disk.
func (r *FileRefs) localPath(ctx *sql.Context, ref, p string) ([]catalogstore.FileSource, error) {
	p = filepath.Clean(p)
	if key, ok := r.warehouseKey(p); ok {
		return r.inStore(ctx, ref, nil, r.wh, key)
	}
	if hasMeta(p) {
		return r.localGlob(ctx, ref, p)
	}
	real, err := r.guard.ReadPath(ctx, p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist", ErrNoFiles, ref)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %w", catalogstore.ErrBadValue, ref, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a folder, not a file (name its files, or a glob such as %s/*.parquet)", ErrNoFiles, ref, strings.TrimSuffix(ref, "/"))
	}
	d, err := r.diskStore()
	if err != nil {
		return nil, err
	}
	return []catalogstore.FileSource{{Name: ref, Store: d, Key: diskKey(real)}}, nil
}

// localGlob resolves a glob outside the warehouse: its folder and each
// match must pass the guard; folders are skipped.
func (r *FileRefs) localGlob(ctx *sql.Context, ref, p string) ([]catalogstore.FileSource, error) {
	if _, err := r.guard.ReadPath(ctx, filepath.Dir(p[:strings.IndexAny(p, "*?[")]+"x")); err != nil {
		return nil, err
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: bad glob: %v", catalogstore.ErrBadValue, ref, err)
	}
	d, err := r.diskStore()
	if err != nil {
		return nil, err
	}
	var out []catalogstore.FileSource
	for _, m := range matches {
		real, err := r.guard.ReadPath(ctx, m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, catalogstore.FileSource{Name: m, Store: d, Key: diskKey(real)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s matched no files", ErrNoFiles, ref)
	}
	return out, nil
}

// warehouseKey returns p's key when p lies in a local warehouse folder.
func (r *FileRefs) warehouseKey(p string) (string, bool) {
	uri := r.wh.URI()
	if !strings.HasPrefix(uri, "file://") {
		return "", false
	}
	root := filepath.FromSlash(strings.TrimPrefix(uri, "file://"))
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	for _, cand := range []string{p, evalDir(p)} {
		rel, err := filepath.Rel(root, cand)
		if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// evalDir resolves the symbolic links of p's folder (p itself may be a
// glob or missing).
func evalDir(p string) string {
	d, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return p
	}
	return filepath.Join(d, filepath.Base(p))
}

// diskStore is the read-only store over the whole disk that local files
// outside the warehouse are read through.
func (r *FileRefs) diskStore() (*local.Store, error) {
	if r.disk == nil {
		d, err := local.OpenReadOnly(string(filepath.Separator))
		if err != nil {
			return nil, err
		}
		r.disk = d
	}
	return r.disk, nil
}

// diskKey is an absolute path's key in the disk store.
func diskKey(p string) string {
	return strings.TrimPrefix(filepath.ToSlash(p), "/")
}
