package catalogstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// SchemaChange is one schema evolution step. Every change is metadata-only:
// data files are read by field id, so old files need no rewrite.
type SchemaChange struct {
	Kind    ChangeKind
	Column  string      // the column changed (Add: the new column's name)
	NewName string      // Rename
	Type    schema.Type // Add, Modify
	Comment string      // Add
	After   string      // Add: place after this column ("" = last)
	First   bool        // Add: place first
	// SQLType and Default (Add, Modify) are the column's declared MySQL
	// type and default (schema.Column); NotNull (Add, Modify) makes it NOT
	// NULL. A NOT NULL or narrowed column needs its data checked first:
	// the caller rewrites the data (Commit.Schema) rather than calling
	// AlterSchema for it.
	SQLType string
	Default string
	NotNull bool
	// Key (SetPrimaryKey) names the new primary key's columns in key
	// order. The caller checks the data first: no NULL and no duplicate
	// key (see txn.CheckKey).
	Key []string
}

// ChangeKind names a schema change.
type ChangeKind int

const (
	AddColumn ChangeKind = iota
	DropColumn
	RenameColumn
	ModifyColumn
	SetPrimaryKey  // ALTER TABLE … ADD PRIMARY KEY (Key)
	DropPrimaryKey // ALTER TABLE … DROP PRIMARY KEY
)

// AlterSchema applies changes in order as one new schema version. A column
// added later is NULL in files written before. Errors: ErrSchema
// (duplicate, missing or last column, narrowing, a column a materialized
// view reads), ErrMaterializedViewReadOnly, ErrBadIdentifier,
// schema.ErrUnsupportedType.
func (c *Catalog) AlterSchema(ctx context.Context, id Ident, author string, changes ...SchemaChange) (*Dataset, error) {
	return c.alterSchema(ctx, id, author, -1, changes)
}

// AlterSchemaAt is AlterSchema for changes the caller checked against the
// data of snapshot (ADD PRIMARY KEY: no NULL, no duplicate): a commit
// since then refuses it with a *CommitError (ErrCommitConflict,
// re-prepare).
func (c *Catalog) AlterSchemaAt(ctx context.Context, id Ident, author string, snapshot int64, changes ...SchemaChange) (*Dataset, error) {
	return c.alterSchema(ctx, id, author, snapshot, changes)
}

func (c *Catalog) alterSchema(ctx context.Context, id Ident, author string, snapshot int64, changes []SchemaChange) (*Dataset, error) {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := c.CheckColumnReaders(ctx, ds, changes); err != nil {
		return nil, err
	}
	return c.UpdateDataset(ctx, id, author, func(ds *Dataset) error {
		if snapshot >= 0 && ds.CurrentSnapshotID != snapshot {
			return &CommitError{Dataset: id.Short(), Err: ErrCommitConflict, Retry: RePrepare,
				Detail: fmt.Sprintf("the data was checked at snapshot %d and snapshot %d committed since", snapshot, ds.CurrentSnapshotID)}
		}
		s, next, err := EvolveSchema(ds, changes...)
		if err != nil {
			return err
		}
		ds.Schema, ds.NextFieldID = s, next
		return nil
	})
}

// EvolveSchema returns the schema ds would have after changes (with the
// next schema id) and its next free field id, changing nothing. Errors are
// AlterSchema's.
func EvolveSchema(ds *Dataset, changes ...SchemaChange) (schema.Schema, int, error) {
	if ds.IsMaterializedView() {
		return schema.Schema{}, 0, fmt.Errorf("%w: %s is a materialized view; its columns come from its SQL (CREATE OR REPLACE MATERIALIZED VIEW to change them)", ErrMaterializedViewReadOnly, ds.Ident().Short())
	}
	s := schema.Schema{ID: ds.Schema.ID + 1, Columns: append([]schema.Column(nil), ds.Schema.Columns...)}
	next := ds.NextFieldID
	for _, ch := range changes {
		var err error
		s, next, err = applyChange(s, next, ds, ch)
		if err != nil {
			return schema.Schema{}, 0, err
		}
	}
	return s, next, nil
}

func applyChange(s schema.Schema, next int, ds *Dataset, ch SchemaChange) (schema.Schema, int, error) {
	idx := -1
	for i, col := range s.Columns {
		if strings.EqualFold(col.Name, ch.Column) {
			idx = i
		}
	}
	switch ch.Kind {
	case AddColumn:
		if err := CheckColumnName(ch.Column); err != nil {
			return s, next, err
		}
		if idx >= 0 {
			return s, next, fmt.Errorf("%w: %q", ErrColumnExists, ch.Column)
		}
		if err := ch.Type.Validate(); err != nil {
			return s, next, err
		}
		col := schema.Column{ID: next, Name: ch.Column, Type: ch.Type, Nullable: !ch.NotNull, Comment: ch.Comment,
			SQLType: ch.SQLType, Default: ch.Default}
		pos := len(s.Columns)
		if ch.First {
			pos = 0
		} else if ch.After != "" {
			pos = -1
			for i, c := range s.Columns {
				if strings.EqualFold(c.Name, ch.After) {
					pos = i + 1
				}
			}
			if pos < 0 {
				return s, next, fmt.Errorf("%w: %q (AFTER)", ErrColumnNotFound, ch.After)
			}
		}
		s.Columns = append(s.Columns[:pos], append([]schema.Column{col}, s.Columns[pos:]...)...)
		return s, next + 1, nil
	case DropColumn:
		if idx < 0 {
			return s, next, fmt.Errorf("%w: %q", ErrDropNoColumn, ch.Column)
		}
		if len(s.Columns) == 1 {
			return s, next, fmt.Errorf("%w: %q is the only column", ErrLastColumn, ch.Column)
		}
		for _, f := range ds.Spec.Fields {
			if f.SourceID == s.Columns[idx].ID {
				return s, next, fmt.Errorf("%w: column %q is a partition source; change the partitioning first", ErrSchema, ch.Column)
			}
		}
		if s.Columns[idx].PrimaryKey {
			// MySQL would shrink the key, which may make it non-unique.
			return s, next, fmt.Errorf("%w: column %q is part of the primary key; DROP PRIMARY KEY first", ErrSchema, ch.Column)
		}
		s.Columns = append(s.Columns[:idx], s.Columns[idx+1:]...)
		return s, next, nil
	case RenameColumn:
		if idx < 0 {
			return s, next, fmt.Errorf("%w: %q", ErrColumnNotFound, ch.Column)
		}
		if err := CheckColumnName(ch.NewName); err != nil {
			return s, next, err
		}
		if _, ok := s.Column(ch.NewName); ok && !strings.EqualFold(ch.NewName, ch.Column) {
			return s, next, fmt.Errorf("%w: cannot rename %q to %q: a column of that name exists", ErrSchema, ch.Column, ch.NewName)
		}
		s.Columns[idx].Name = ch.NewName
		return s, next, nil
	case ModifyColumn:
		if idx < 0 {
			return s, next, fmt.Errorf("%w: %q", ErrColumnNotFound, ch.Column)
		}
		from := s.Columns[idx].Type
		if !CanWiden(from, ch.Type) {
			return s, next, fmt.Errorf("%w: column %q cannot change from %s to %s; only widening is allowed (int→bigint, float→double, decimal precision up at the same scale)", ErrSchema, ch.Column, from, ch.Type)
		}
		s.Columns[idx].Type = ch.Type
		s.Columns[idx].SQLType, s.Columns[idx].Default = ch.SQLType, ch.Default
		s.Columns[idx].Nullable = !ch.NotNull && !s.Columns[idx].PrimaryKey
		return s, next, nil
	case SetPrimaryKey:
		if len(s.Key()) > 0 {
			return s, next, fmt.Errorf("%w: %s already has a primary key; DROP PRIMARY KEY first", ErrSchema, ds.Ident().Short())
		}
		if len(ch.Key) == 0 {
			return s, next, fmt.Errorf("%w: a primary key needs a column", ErrSchema)
		}
		if err := s.SetKey(ch.Key); err != nil {
			return s, next, fmt.Errorf("%w: %w", ErrSchema, err)
		}
		return s, next, checkKeyTypes(&s)
	case DropPrimaryKey:
		if len(s.Key()) == 0 {
			return s, next, fmt.Errorf("%w: %s has no primary key", ErrSchema, ds.Ident().Short())
		}
		return s, next, s.SetKey(nil)
	}
	return s, next, fmt.Errorf("%w: unknown schema change", ErrSchema)
}

// CanWiden reports whether a column of type from may become type to
// without rewriting data: the same type, a wider signed or unsigned
// integer, float32→float64, or a decimal with more precision and the same
// scale.
func CanWiden(from, to schema.Type) bool {
	if from == to {
		return true
	}
	rank := func(k schema.Kind) (family, width int) {
		switch k {
		case schema.Int8:
			return 1, 1
		case schema.Int16:
			return 1, 2
		case schema.Int32:
			return 1, 3
		case schema.Int64:
			return 1, 4
		case schema.Uint8:
			return 2, 1
		case schema.Uint16:
			return 2, 2
		case schema.Uint32:
			return 2, 3
		case schema.Uint64:
			return 2, 4
		case schema.Float32:
			return 3, 1
		case schema.Float64:
			return 3, 2
		}
		return 0, 0
	}
	if from.Kind == schema.Decimal && to.Kind == schema.Decimal {
		return to.Scale == from.Scale && to.Precision >= from.Precision
	}
	ff, fw := rank(from.Kind)
	tf, tw := rank(to.Kind)
	return ff != 0 && ff == tf && tw >= fw
}
