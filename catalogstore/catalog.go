package catalogstore

import (
	"context"
	"github.com/lakesql/lakesql/catalogstore/process"
	"log/slog"
	"time"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// Options configure a Catalog. The zero value is usable.
type Options struct {
	// Logger receives operational logs and the audit lines; nil uses
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil uses time.Now. Tests pin it.
	Now func() time.Time
	// AppendRetries bounds how often an append that lost a race is
	// re-based on the new parent (default 100).
	AppendRetries int
	// ManifestCacheEntries bounds the manifest cache (default 256).
	ManifestCacheEntries int
	// Chain bounds the delta manifest chains commits write
	// (manifestchain.go); the zero value uses the defaults.
	Chain ChainPolicy
	// Hooks are called after events; they can never fail the operation.
	Hooks Hooks
	// NoAudit turns the audit lines off.
	NoAudit bool
}

// Hooks observe the catalog. Each is optional and runs after the event is
// durable; an error or panic in a hook never undoes the event.
type Hooks struct {
	// AfterCommit runs after every committed snapshot (user-created or
	// not), outside the metastore transaction.
	AfterCommit func(ctx context.Context, ds *Dataset, snap *Snapshot)
	// Alert receives alertable errors the catalog detected but did not
	// return (for example a failed trigger enqueue).
	Alert func(ctx context.Context, err error)
}

// Catalog is lakesql's catalog over a document metastore and an object
// store. It is safe for concurrent use; several Catalogs (in one process or
// many) may share the same stores.
type Catalog struct {
	meta      meta.Store
	blob      blob.Store
	manifests *manifest.Cache
	opts      Options
	log       *slog.Logger
	appends   appendGroups     // group commit of concurrent appends, per dataset
	here      process.Identity // this process, to tell an abandoned creation (creating.go)
}

// New returns a Catalog over the given stores. The stores stay owned by the
// caller: Close does not close them.
func New(m meta.Store, b blob.Store, opts Options) *Catalog {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AppendRetries <= 0 {
		opts.AppendRetries = 100
	}
	if opts.ManifestCacheEntries <= 0 {
		opts.ManifestCacheEntries = 256
	}
	return &Catalog{
		here:      process.This(),
		meta:      m,
		blob:      b,
		manifests: manifest.NewCache(opts.ManifestCacheEntries, 256<<20),
		opts:      opts,
		log:       opts.Logger,
	}
}

// Meta returns the metastore the catalog uses.
func (c *Catalog) Meta() meta.Store { return c.meta }

// Blob returns the object store the catalog uses.
func (c *Catalog) Blob() blob.Store { return c.blob }

// Logger is the catalog's logger (Options.Logger).
func (c *Catalog) Logger() *slog.Logger { return c.log }

// SetHooks replaces the catalog's hooks. Call it before concurrent use.
func (c *Catalog) SetHooks(h Hooks) { c.opts.Hooks = h }

func (c *Catalog) now() time.Time { return c.opts.Now().UTC() }

// audit writes one structured audit line for a catalog mutation.
// Extra attributes (an execution id, a reason) follow the fixed ones.
func (c *Catalog) audit(ctx context.Context, action, resource, ws, coll, name, author string, extra ...slog.Attr) {
	if c.opts.NoAudit {
		return
	}
	c.log.LogAttrs(ctx, slog.LevelInfo, "audit", append([]slog.Attr{
		slog.String("action", action), slog.String("resource", resource),
		slog.String("workspace", ws), slog.String("collection", coll),
		slog.String("name", name), slog.String("author", author),
		slog.Time("time", c.now())}, extra...)...)
}

// Document paths (DESIGN.md "Document layout").
func workspacePath(ws string) string        { return meta.Join(ws, "$properties") }
func collectionPath(ws, coll string) string { return meta.Join(ws, coll) }
func datasetsColl(ws, coll string) string   { return meta.Join(ws, coll, "datasets") }
func viewsColl(ws, coll string) string      { return meta.Join(ws, coll, "views") }
func datasetPath(id Ident) string {
	return meta.Join(datasetsColl(id.Workspace, id.Collection), id.Name)
}
func viewPath(id Ident) string { return meta.Join(viewsColl(id.Workspace, id.Collection), id.Name) }
func snapshotPath(ds *Dataset, snap int64) string {
	return meta.Join(ds.DocRoot(), "snapshots", formatSnapID(snap))
}
func schemaPath(ds *Dataset, schemaID int) string {
	return meta.Join(ds.DocRoot(), "schemas", itoa(int64(schemaID)))
}
