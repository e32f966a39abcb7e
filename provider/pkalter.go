package provider

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/scan"
	"github.com/lakesql/lakesql/sqlerr"
)

// CreatePrimaryKey implements sql.PrimaryKeyAlterableTable: ALTER TABLE …
// ADD PRIMARY KEY (cols). GMS runs it through RewriteInserter (the table
// is a sql.RewritableTable), which ends in the same keyChange.
func (t *Table) CreatePrimaryKey(ctx *sql.Context, columns []sql.IndexColumn) error {
	ins, err := t.keyChange(ctx, columns)
	if err != nil {
		return err
	}
	return ins.Close(ctx)
}

// DropPrimaryKey implements sql.PrimaryKeyAlterableTable.
func (t *Table) DropPrimaryKey(ctx *sql.Context) error {
	ins, err := t.keyChange(ctx, nil)
	if err != nil {
		return err
	}
	return ins.Close(ctx)
}

// keyChange prepares ADD PRIMARY KEY (columns) or, with no columns, DROP
// PRIMARY KEY. Adding reads the key columns of every row (nothing else)
// and refuses a NULL (1138) or a key held twice (1062); the schema
// changes when the returned inserter closes, and only if no commit landed
// since the check. Dropping is metadata only; the columns stay NOT NULL,
// as in MySQL.
func (t *Table) keyChange(ctx *sql.Context, columns []sql.IndexColumn) (sql.RowInserter, error) {
	if len(columns) == 0 {
		if len(t.schema.Key()) == 0 {
			return nil, sql.ErrCantDropFieldOrKey.New("PRIMARY")
		}
		return &keyInserter{t: t, snapshot: -1, change: catalogstore.SchemaChange{Kind: catalogstore.DropPrimaryKey}}, nil
	}
	if t.HasStagedWrites(ctx) {
		return nil, sqlerr.Wrap(fmt.Errorf("%w: ADD PRIMARY KEY on %s with uncommitted writes in the transaction; COMMIT first", catalogstore.ErrNotSupported, t))
	}
	names := make([]string, len(columns))
	for i, c := range columns {
		if c.Length > 0 {
			return nil, sqlerr.Wrap(fmt.Errorf("%w: a key prefix length (%s(%d))", catalogstore.ErrNotSupported, c.Name, c.Length))
		}
		names[i] = c.Name
	}
	if err := t.checkUnique(ctx, names); err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return &keyInserter{t: t, snapshot: t.ds.CurrentSnapshotID,
		change: catalogstore.SchemaChange{Kind: catalogstore.SetPrimaryKey, Key: names}}, nil
}

// keyInserter takes the rows GMS streams through a key change's "rewrite"
// and keeps none (the data does not change); Close commits the schema.
type keyInserter struct {
	t         *Table
	snapshot  int64 // the data checked; -1: nothing checked
	change    catalogstore.SchemaChange
	discarded bool
}

func (k *keyInserter) StatementBegin(*sql.Context)              {}
func (k *keyInserter) StatementComplete(*sql.Context) error     { return nil }
func (k *keyInserter) Insert(*sql.Context, sql.Row) error       { return nil }
func (k *keyInserter) DiscardChanges(*sql.Context, error) error { k.discarded = true; return nil }

// Close commits the key change, unless the statement failed.
func (k *keyInserter) Close(ctx *sql.Context) error {
	if k.discarded {
		return nil
	}
	k.discarded = true
	sess, err := sessionOf(ctx)
	if err != nil {
		return sqlerr.Wrap(err)
	}
	cat := k.t.db.p.cat
	if k.snapshot < 0 {
		_, err = cat.AlterSchema(ctx, k.t.ds.Ident(), sess.Author(), k.change)
	} else {
		_, err = cat.AlterSchemaAt(ctx, k.t.ds.Ident(), sess.Author(), k.snapshot, k.change)
	}
	return sqlerr.Wrap(err)
}

// checkUnique reads the named columns of the table's current rows and
// refuses a NULL (ErrNullKey) or a key held twice (ErrDuplicateKey).
func (t *Table) checkUnique(ctx *sql.Context, names []string) error {
	if t.snapshot == 0 || t.snapshot != t.ds.CurrentSnapshotID {
		return nil
	}
	ids := make([]int, len(names))
	types := make([]sql.Type, len(names))
	for i, n := range names {
		c, ok := t.schema.Column(n)
		if !ok {
			return sql.ErrKeyColumnDoesNotExist.New(n)
		}
		ids[i] = c.ID
		types[i] = t.full[t.full.IndexOfColName(c.Name)].Type
	}
	files, _, err := t.db.p.cat.Files(ctx, t.ds, t.snapshot)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range files {
		rows, err := scan.ReadAll(ctx, scan.Request{Store: t.db.p.cat.Blob(), Files: files[i : i+1], Schema: t.schema, FieldIDs: ids, Footers: t.db.p.footers})
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := checkKeyRow(ctx, r, names, types, seen, t.ds.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkKeyRow checks one row's key values r against the keys seen.
func checkKeyRow(ctx *sql.Context, r sql.Row, names []string, types []sql.Type, seen map[string]bool, table string) error {
	parts := make([]string, len(r))
	for j, v := range r {
		if v == nil {
			return fmt.Errorf("%w: column %q holds NULL; a primary key column cannot", catalogstore.ErrNullKey, names[j])
		}
		cv, _, err := types[j].Convert(ctx, v)
		if err != nil {
			return err
		}
		r[j] = cv
		parts[j] = fmt.Sprint(cv)
	}
	k := rowKey(r)
	if seen[k] {
		return fmt.Errorf("%w: Duplicate entry '%s' for key '%s.PRIMARY'", catalogstore.ErrDuplicateKey, strings.Join(parts, "-"), table)
	}
	seen[k] = true
	return nil
}
