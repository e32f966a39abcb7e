package provider

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/gcs"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// Provider is the GMS DatabaseProvider over a catalog.
type Provider struct {
	cat   *catalogstore.Catalog
	fns   map[string]sql.TableFunction
	cache *scan.Cache
	// pruner keeps the columnar bounds of manifests by path, so repeated
	// plans of one snapshot do not rebuild them (the catalog caches the
	// decoded manifests themselves).
	pruner *scan.Pruner
	// mem recycles the vectorised scans' decode buffers across queries;
	// footers keeps decoded data-file footers.
	mem     *datafile.BufferPool
	footers *datafile.FooterCache
	procs   sql.ExternalStoredProcedureRegistry
	// guard confines the server files lakesql's own statements read and
	// write (add_files, read_parquet, export_parquet).
	guard mysqlfix.FileGuard
	// buckets are the GCS buckets file references read (other than the
	// warehouse's), opened once and closed by Close.
	buckets *bucketCache
}

// bucketCache holds open bucket stores by name.
type bucketCache struct {
	mu sync.Mutex
	m  map[string]blob.Store
}

var (
	_ sql.DatabaseProvider        = (*Provider)(nil)
	_ sql.MutableDatabaseProvider = (*Provider)(nil)
	_ sql.TableFunctionProvider   = (*Provider)(nil)
)

// New returns a provider over cat.
func New(cat *catalogstore.Catalog) *Provider {
	return (&Provider{cat: cat, fns: map[string]sql.TableFunction{}, cache: scan.NewCache(scan.DefaultCacheBytes),
		pruner: scan.NewPruner(scan.DefaultPrunerBytes), mem: datafile.NewBufferPool(datafile.DefaultPoolBytes),
		footers: datafile.NewFooterCache(datafile.DefaultFooterBytes),
		procs:   sql.NewExternalStoredProcedureRegistry(), buckets: &bucketCache{m: map[string]blob.Store{}}}).withHistoryFunctions().withFileFunctions()
}

// SetFileGuard sets the server-file guard (the engine's secure_file_priv,
// read-only mode and users). Call it before serving queries.
func (p *Provider) SetFileGuard(g mysqlfix.FileGuard) { p.guard = g }

// FileGuard returns the server-file guard.
func (p *Provider) FileGuard() mysqlfix.FileGuard { return p.guard }

// FileRefs returns a resolver of file references for one statement; the
// caller closes it.
func (p *Provider) FileRefs() *FileRefs { return NewFileRefs(p.cat.Blob(), p.guard, p.bucket) }

// readRefs is FileRefs for the table functions, which need FILE for
// every reference.
func (p *Provider) readRefs() *FileRefs {
	r := p.FileRefs()
	r.needFile = true
	return r
}

// bucket returns the store over a GCS bucket, opening it once.
func (p *Provider) bucket(ctx context.Context, name string) (blob.Store, error) {
	c := p.buckets
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.m[name]; ok {
		return b, nil
	}
	b, err := gcs.Open(ctx, "gs://"+name)
	if err != nil {
		return nil, err
	}
	c.m[name] = b
	return b, nil
}

// Close closes the buckets file references opened.
func (p *Provider) Close() error {
	c := p.buckets
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, b := range c.m {
		b.Close()
		delete(c.m, name)
	}
	return nil
}

// Catalog returns the provider's catalog.
func (p *Provider) Catalog() *catalogstore.Catalog { return p.cat }

// resolve splits a SQL database name into workspace and collection: a
// plain name is a collection of the session's workspace, `ws.coll` names
// another workspace's collection.
func (p *Provider) resolve(ctx *sql.Context, name string) (ws, coll string, err error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return "", "", err
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		return name[:i], name[i+1:], nil
	}
	return s.CurrentWorkspace(), name, nil
}

// Database implements sql.DatabaseProvider.
func (p *Provider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	ws, coll, err := p.resolve(ctx, name)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	if ws == "" {
		return nil, sql.ErrDatabaseNotFound.New(name + " (no workspace selected: USE WORKSPACE w first)")
	}
	c, err := p.cat.Collection(ctx, ws, coll)
	if errors.Is(err, catalogstore.ErrCollectionNotFound) {
		// MySQL database names are case-sensitive on Linux, but clients
		// often lower-case them: fall back to a unique case-insensitive
		// match.
		if match := p.caseInsensitive(ctx, ws, coll); match != "" {
			c, err = p.cat.Collection(ctx, ws, match)
		}
	}
	if errors.Is(err, catalogstore.ErrCollectionNotFound) {
		return nil, sql.ErrDatabaseNotFound.New(name)
	}
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return newDatabase(p, ws, c.Name, name), nil
}

func (p *Provider) caseInsensitive(ctx *sql.Context, ws, coll string) string {
	colls, err := p.cat.ListCollections(ctx, ws)
	if err != nil {
		return ""
	}
	match := ""
	for _, c := range colls {
		if strings.EqualFold(c.Name, coll) {
			if match != "" {
				return ""
			}
			match = c.Name
		}
	}
	return match
}

// HasDatabase implements sql.DatabaseProvider.
func (p *Provider) HasDatabase(ctx *sql.Context, name string) bool {
	_, err := p.Database(ctx, name)
	return err == nil
}

// AllDatabases implements sql.DatabaseProvider: the collections of the
// session's workspace.
func (p *Provider) AllDatabases(ctx *sql.Context) []sql.Database {
	s, err := sessionOf(ctx)
	if err != nil || s.CurrentWorkspace() == "" {
		return nil
	}
	colls, err := p.cat.ListCollections(ctx, s.CurrentWorkspace())
	if err != nil {
		ctx.GetLogger().Warnf("list collections: %v", err)
		return nil
	}
	out := make([]sql.Database, 0, len(colls))
	for _, c := range colls {
		out = append(out, newDatabase(p, s.CurrentWorkspace(), c.Name, c.Name))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// CreateDatabase implements sql.MutableDatabaseProvider: it creates a
// collection.
func (p *Provider) CreateDatabase(ctx *sql.Context, name string) error {
	ws, coll, err := p.resolve(ctx, name)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	s, _ := sessionOf(ctx)
	_, err = p.cat.CreateCollection(ctx, ws, coll, s.Author(), catalogstore.CreateCollectionOptions{})
	if errors.Is(err, catalogstore.ErrCollectionExists) {
		return sql.ErrDatabaseExists.New(name)
	}
	return sqlerr.Wrap(err)
}

// DropDatabase implements sql.MutableDatabaseProvider: it drops a
// collection and everything in it, as MySQL's DROP DATABASE does.
func (p *Provider) DropDatabase(ctx *sql.Context, name string) error {
	ws, coll, err := p.resolve(ctx, name)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	s, _ := sessionOf(ctx)
	if m := p.caseInsensitive(ctx, ws, coll); m != "" {
		coll = m
	}
	err = p.cat.DropCollection(ctx, ws, coll, s.Author(), true)
	if errors.Is(err, catalogstore.ErrCollectionNotFound) {
		return sql.ErrDatabaseNotFound.New(name)
	}
	return sqlerr.Wrap(err)
}

// TableFunction implements sql.TableFunctionProvider.
func (p *Provider) TableFunction(_ *sql.Context, name string) (sql.TableFunction, bool) {
	fn, ok := p.fns[strings.ToLower(name)]
	return fn, ok
}

// WithTableFunctions implements sql.TableFunctionProvider.
func (p *Provider) WithTableFunctions(fns ...sql.TableFunction) (sql.TableFunctionProvider, error) {
	cp := *p
	cp.fns = map[string]sql.TableFunction{}
	for _, fn := range fns {
		cp.fns[strings.ToLower(fn.Name())] = fn
	}
	return &cp, nil
}
