package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/sqlerr"
)

// Database is one collection seen as a SQL database.
type Database struct {
	p    *Provider
	ws   string
	coll string
	name string // as SQL named it: "coll" or "ws.coll"
}

var (
	_ sql.Database         = (*Database)(nil)
	_ sql.TableCreator     = (*Database)(nil)
	_ sql.TableDropper     = (*Database)(nil)
	_ sql.TableRenamer     = (*Database)(nil)
	_ sql.ViewDatabase     = (*Database)(nil)
	_ sql.AliasedDatabase  = (*Database)(nil)
	_ sql.CollatedDatabase = (*Database)(nil)
)

func newDatabase(p *Provider, ws, coll, name string) *Database {
	return &Database{p: p, ws: ws, coll: coll, name: name}
}

// Name implements sql.Nameable.
func (d *Database) Name() string { return d.name }

// AliasedName implements sql.AliasedDatabase: grants see one canonical
// name, ws.coll.
func (d *Database) AliasedName() string { return d.ws + "." + d.coll }

// Workspace and Collection name the catalog collection behind d.
func (d *Database) Workspace() string  { return d.ws }
func (d *Database) Collection() string { return d.coll }

func (d *Database) ident(name string) catalogstore.Ident {
	return catalogstore.Ident{Workspace: d.ws, Collection: d.coll, Name: name}
}

// GetTableInsensitive implements sql.Database. It reads one dataset
// document; a case-insensitive match is tried only when the exact name
// misses.
func (d *Database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if base, kind, ok := strings.Cut(name, "$"); ok {
		return d.metadataTable(ctx, base, kind, nil)
	}
	ds, err := d.p.cat.Dataset(ctx, d.ident(name))
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		match, ok, lerr := d.matchName(ctx, name)
		if lerr != nil || !ok {
			return nil, false, lerr
		}
		ds, err = d.p.cat.Dataset(ctx, d.ident(match))
	}
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, sqlerr.Wrap(err)
	}
	return newTable(d, ds), true, nil
}

func (d *Database) matchName(ctx *sql.Context, name string) (string, bool, error) {
	dss, err := d.p.cat.ListDatasets(ctx, d.ws, d.coll)
	if err != nil {
		return "", false, err
	}
	for _, ds := range dss {
		if strings.EqualFold(ds.Name, name) {
			return ds.Name, true, nil
		}
	}
	return "", false, nil
}

// GetTableNames implements sql.Database: datasets (and materialized
// views), not views and not metadata tables.
func (d *Database) GetTableNames(ctx *sql.Context) ([]string, error) {
	dss, err := d.p.cat.ListDatasets(ctx, d.ws, d.coll)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	names := make([]string, len(dss))
	for i, ds := range dss {
		names[i] = ds.Name
	}
	return names, nil
}

// CreateTable implements sql.TableCreator.
func (d *Database) CreateTable(ctx *sql.Context, name string, s sql.PrimaryKeySchema, _ sql.CollationID, comment string) error {
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	cols, err := columnsFromSQL(s.Schema)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	for n, ord := range s.PkOrdinals {
		cols[ord].PrimaryKey, cols[ord].KeySeq = true, n+1
	}
	_, err = d.p.cat.CreateDataset(ctx, d.ident(name), schema.Schema{Columns: cols}, sess.Author(),
		catalogstore.CreateDatasetOptions{Comment: comment})
	if errors.Is(err, catalogstore.ErrDatasetExists) {
		return sql.ErrTableAlreadyExists.New(name)
	}
	return sqlerr.Wrap(err)
}

// DropTable implements sql.TableDropper.
func (d *Database) DropTable(ctx *sql.Context, name string) error {
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	err = d.p.cat.DropDataset(ctx, d.ident(name), sess.Author())
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		return sql.ErrTableNotFound.New(name)
	}
	sess.Writes().Forget(d.ident(name))
	return sqlerr.Wrap(err)
}

// RenameTable implements sql.TableRenamer.
func (d *Database) RenameTable(ctx *sql.Context, oldName, newName string) error {
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	return sqlerr.Wrap(d.p.cat.RenameDataset(ctx, d.ident(oldName), d.ident(newName), sess.Author()))
}

// CreateView implements sql.ViewDatabase.
func (d *Database) CreateView(ctx *sql.Context, name string, selectStatement, createViewStmt string) error {
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	_, err = d.p.cat.CreateView(ctx, d.ident(name), selectStatement, sess.Author(),
		catalogstore.CreateViewOptions{CreateStatement: createViewStmt})
	if errors.Is(err, catalogstore.ErrViewExists) {
		return sql.ErrExistingView.New(d.name, name)
	}
	return sqlerr.Wrap(err)
}

// DropView implements sql.ViewDatabase.
func (d *Database) DropView(ctx *sql.Context, name string) error {
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	err = d.p.cat.DropView(ctx, d.ident(name), sess.Author())
	if errors.Is(err, catalogstore.ErrViewNotFound) {
		return sql.ErrViewDoesNotExist.New(d.name, name)
	}
	return sqlerr.Wrap(err)
}

// GetViewDefinition implements sql.ViewDatabase.
func (d *Database) GetViewDefinition(ctx *sql.Context, name string) (sql.ViewDefinition, bool, error) {
	v, err := d.p.cat.View(ctx, d.ident(name))
	if errors.Is(err, catalogstore.ErrViewNotFound) {
		views, lerr := d.p.cat.ListViews(ctx, d.ws, d.coll)
		if lerr != nil {
			return sql.ViewDefinition{}, false, lerr
		}
		for _, cand := range views {
			if strings.EqualFold(cand.Name, name) {
				return viewDefinition(&cand), true, nil
			}
		}
		return sql.ViewDefinition{}, false, nil
	}
	if err != nil {
		return sql.ViewDefinition{}, false, err
	}
	return viewDefinition(v), true, nil
}

// AllViews implements sql.ViewDatabase.
func (d *Database) AllViews(ctx *sql.Context) ([]sql.ViewDefinition, error) {
	views, err := d.p.cat.ListViews(ctx, d.ws, d.coll)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	out := make([]sql.ViewDefinition, len(views))
	for i := range views {
		out[i] = viewDefinition(&views[i])
	}
	return out, nil
}

func viewDefinition(v *catalogstore.View) sql.ViewDefinition {
	create := v.CreateStatement
	if create == "" {
		create = "CREATE VIEW `" + v.Name + "` AS " + v.SQL
	}
	return sql.ViewDefinition{Name: v.Name, TextDefinition: v.SQL, CreateViewStatement: create}
}

// GetCollation implements sql.CollatedDatabase: collections use the
// server's default collation (utf8mb4_0900_bin).
func (d *Database) GetCollation(*sql.Context) sql.CollationID { return sql.Collation_Default }

// SetCollation implements sql.CollatedDatabase. CREATE DATABASE sets the
// default; any other collation is refused, since bounds-based pruning
// orders strings byte-wise.
func (d *Database) SetCollation(_ *sql.Context, c sql.CollationID) error {
	if c == sql.Collation_Default || c == sql.Collation_Unspecified {
		return nil
	}
	return sqlerr.Wrap(fmt.Errorf("%w: collation %s (lakesql collections use %s)", catalogstore.ErrNotSupported, c, sql.Collation_Default))
}
