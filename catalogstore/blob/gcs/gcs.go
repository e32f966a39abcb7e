package gcs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// Store is a blob.Store over one GCS bucket and prefix. All methods are safe
// for concurrent use.
type Store struct {
	client     *storage.Client
	ownsClient bool
	bucket     *storage.BucketHandle
	bucketName string
	prefix     string // "" or ends with "/"
}

var _ blob.Store = (*Store)(nil)

// Open returns the store at uri, gs://bucket or gs://bucket/prefix, with a
// new client made from opts; Close closes that client. It does not contact
// GCS, so a missing bucket shows up on the first call. It returns
// blob.ErrBadURI if uri is not such a URI.
func Open(ctx context.Context, uri string, opts ...option.ClientOption) (*Store, error) {
	bucket, prefix, err := parseURI(uri)
	if err != nil {
		return nil, err
	}
	// Reads go through the JSON API (…/storage/v1/b/…/o/…?alt=media) on
	// the client's endpoint, like every other call: the XML API's
	// host-style URLs need an emulator to know its public host
	// (fake-gcs-server's -public-host), and a missing one fails reads
	// only, long after writes succeeded.
	opts = append([]option.ClientOption{storage.WithJSONReads()}, opts...)
	client, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", uri, err)
	}
	s := NewWithClient(client, bucket, prefix)
	s.ownsClient = true
	return s, nil
}

// NewWithClient returns the store over bucket and prefix (slashes at either
// end are optional) using client, which the caller keeps and closes.
func NewWithClient(client *storage.Client, bucket, prefix string) *Store {
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &Store{client: client, bucket: client.Bucket(bucket), bucketName: bucket, prefix: prefix}
}

// parseURI splits gs://bucket/prefix into the bucket and the prefix with a
// trailing slash ("" for none).
func parseURI(uri string) (bucket, prefix string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("%w %q: %s", blob.ErrBadURI, uri, why)
	}
	if strings.ContainsAny(uri, "?#") {
		return bad("query or fragment")
	}
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return bad(err.Error())
	case u.Scheme != "gs":
		return bad("scheme is not gs")
	case u.Opaque != "" || u.Host == "":
		return bad("no bucket; want gs://bucket/prefix")
	case u.User != nil || u.Port() != "":
		return bad("user or port in the bucket name")
	}
	if why := bucketProblem(u.Host); why != "" {
		return bad(why)
	}
	p := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	if p == "" && u.Path != "" && u.Path != "/" {
		return bad("empty prefix segment")
	}
	if p != "" {
		if why := blob.KeyProblem(p); why != "" {
			return bad("prefix: " + why)
		}
		p += "/"
	}
	return u.Host, p, nil
}

// bucketProblem checks GCS's bucket naming rules, roughly: 3-63 characters
// (222 with dots) of a-z, 0-9, '-', '_' and '.', starting and ending with a
// letter or digit.
func bucketProblem(b string) string {
	if len(b) < 3 || len(b) > 222 || (len(b) > 63 && !strings.Contains(b, ".")) {
		return "bucket name must have 3 to 63 characters"
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && c != '-' && c != '_' && c != '.' {
			return "bucket name may only hold a-z, 0-9, '-', '_' and '.'"
		}
		if !alnum && (i == 0 || i == len(b)-1) {
			return "bucket name must start and end with a letter or digit"
		}
	}
	return ""
}

// object returns the handle of key, or a blob.ErrBadKey error.
func (s *Store) object(key string) (*storage.ObjectHandle, error) {
	if err := blob.CheckKey(key); err != nil {
		return nil, err
	}
	return s.bucket.Object(s.prefix + key), nil
}

// isPreconditionFailed reports a failed ifGenerationMatch: HTTP 412, or
// FAILED_PRECONDITION from a gRPC client.
func isPreconditionFailed(err error) bool {
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusPreconditionFailed {
		return true
	}
	return status.Code(err) == codes.FailedPrecondition
}

// isRangeNotSatisfiable reports a range read that starts at or past the
// end of the object (HTTP 416, or OUT_OF_RANGE from a gRPC client).
func isRangeNotSatisfiable(err error) bool {
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusRequestedRangeNotSatisfiable {
		return true
	}
	return status.Code(err) == codes.OutOfRange
}

// Put uploads r as the object at key. GCS publishes it when the upload
// finalises; if r fails or ctx is done first, the upload is abandoned and a
// previous object at key is kept. With opts.IfNotExists it returns
// blob.ErrExists if the object exists.
//
// The client retries a create-only upload after a transient failure, so
// when a first attempt succeeded but its answer was lost, the retry reports
// blob.ErrExists for the caller's own object. Callers for which that matters
// (commit protocols) compare the content.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	if opts.IfNotExists {
		obj = obj.If(storage.Conditions{DoesNotExist: true})
	} else {
		// Rewriting the same bytes is harmless, so retry plain uploads too.
		obj = obj.Retryer(storage.WithPolicy(storage.RetryAlways))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := obj.NewWriter(ctx)
	w.ContentType = "application/octet-stream"
	_, err = io.Copy(w, r)
	if err != nil {
		cancel() // abandons the upload
		_ = w.Close()
	} else {
		err = w.Close()
	}
	switch {
	case err == nil:
		return nil
	case opts.IfNotExists && isPreconditionFailed(err):
		return fmt.Errorf("put %s: %w", key, blob.ErrExists)
	default:
		return fmt.Errorf("put %s: %w", key, err)
	}
}

// mapErr wraps err with the operation and key, turning a missing object
// into blob.ErrNotFound.
func mapErr(op, key string, err error) error {
	if errors.Is(err, storage.ErrObjectNotExist) {
		return fmt.Errorf("%s %s: %w", op, key, blob.ErrNotFound)
	}
	return fmt.Errorf("%s %s: %w", op, key, err)
}

// Get downloads the whole object at key. It returns blob.ErrNotFound if
// absent.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	rd, err := obj.NewReader(ctx)
	if err != nil {
		return nil, mapErr("get", key, err)
	}
	defer rd.Close()
	var buf bytes.Buffer
	buf.Grow(int(rd.Attrs.Size) + 1)
	if _, err := buf.ReadFrom(rd); err != nil {
		return nil, mapErr("get", key, err)
	}
	return buf.Bytes(), nil
}

// ReadAt reads len(p) bytes of key from offset off with one range request,
// returning io.EOF (unwrapped) when fewer remain. It returns
// blob.ErrNotFound if absent.
func (s *Store) ReadAt(ctx context.Context, key string, p []byte, off int64) (int, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", key, off)
	}
	if len(p) == 0 { // a zero-length range reads the whole object
		if _, err := obj.Attrs(ctx); err != nil {
			return 0, mapErr("read", key, err)
		}
		return 0, nil
	}
	rd, err := obj.NewRangeReader(ctx, off, int64(len(p)))
	if isRangeNotSatisfiable(err) {
		return 0, io.EOF
	}
	if err != nil {
		return 0, mapErr("read", key, err)
	}
	defer rd.Close()
	n, err := io.ReadFull(rd, p)
	switch err {
	case nil:
		return n, nil
	case io.EOF, io.ErrUnexpectedEOF:
		return n, io.EOF
	default:
		return n, mapErr("read", key, err)
	}
}

// Stat reads the object's attributes. It returns blob.ErrNotFound if
// absent.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	obj, err := s.object(key)
	if err != nil {
		return blob.Info{}, err
	}
	a, err := obj.Attrs(ctx)
	if err != nil {
		return blob.Info{}, mapErr("stat", key, err)
	}
	return blob.Info{Key: key, Size: a.Size, ModTime: a.Updated}, nil
}

// List pages through the objects under the store's prefix and prefix,
// sorted by key. Objects whose names are not valid keys (such as the
// "folder/" placeholders the Cloud Console makes) are left out.
func (s *Store) List(ctx context.Context, prefix string) ([]blob.Info, error) {
	q := &storage.Query{Prefix: s.prefix + prefix}
	if err := q.SetAttrSelection([]string{"Name", "Size", "Updated"}); err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	var out []blob.Info
	it := s.bucket.Objects(ctx, q)
	for {
		a, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list %q: %w", prefix, err)
		}
		key, ok := strings.CutPrefix(a.Name, s.prefix)
		if !ok || blob.CheckKey(key) != nil {
			continue
		}
		out = append(out, blob.Info{Key: key, Size: a.Size, ModTime: a.Updated})
	}
	slices.SortFunc(out, func(a, b blob.Info) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Delete removes the object at key. A missing object is not an error, so
// Delete is retried like an idempotent call.
func (s *Store) Delete(ctx context.Context, key string) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	err = obj.Retryer(storage.WithPolicy(storage.RetryAlways)).Delete(ctx)
	if err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}

// URI returns gs://bucket/prefix, without a trailing slash.
func (s *Store) URI() string {
	if s.prefix == "" {
		return "gs://" + s.bucketName
	}
	return "gs://" + s.bucketName + "/" + strings.TrimSuffix(s.prefix, "/")
}

// Close closes the client if Open made it.
func (s *Store) Close() error {
	if s.ownsClient {
		return s.client.Close()
	}
	return nil
}
