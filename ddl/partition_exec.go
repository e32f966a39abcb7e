package ddl

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/maintenance"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/sqlerr"
)

// optimizeSchema is MySQL's OPTIMIZE TABLE result.
var optimizeSchema = sql.Schema{
	{Name: "Table", Type: types.LongText},
	{Name: "Op", Type: types.LongText},
	{Name: "Msg_type", Type: types.LongText},
	{Name: "Msg_text", Type: types.LongText},
}

func (s *CreatePartitionedTable) schema() sql.Schema { return types.OkResultSchema }
func (s *CreatePartitionedTable) readOnly() bool     { return false }

// exec runs the CREATE TABLE part through the engine, then sets the spec
// on the new dataset. A spec that does not fit the table (unknown column,
// a transform the column's type does not accept) drops the table again:
// nothing half-done stays.
func (s *CreatePartitionedTable) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	qs, err := querySessionOf(sess)
	if err != nil {
		return nil, err
	}
	id, err := resolveTable(ctx, sess, s.Name)
	if err != nil {
		return nil, err
	}
	cat := sess.Catalog()
	switch _, err := cat.Dataset(ctx, id); {
	case err == nil && s.IfNotExists:
		note(ctx, mysql.ERTableExists, "Table '%s' already exists", id.Short())
		return okResult(0)
	case err == nil:
		return nil, fmt.Errorf("%w: %s", catalogstore.ErrDatasetExists, id.Short())
	case !errors.Is(err, catalogstore.ErrDatasetNotFound):
		return nil, err
	}
	if err := qs.RunSQL(ctx, s.Create); err != nil {
		return nil, err
	}
	_, err = cat.UpdateDataset(ctx, id, sess.Author(), func(ds *catalogstore.Dataset) error {
		if ds.CurrentSnapshotID != 0 {
			return fmt.Errorf("%w: %s already has data; use ALTER TABLE ... SET PARTITIONED BY", catalogstore.ErrNotSupported, id.Short())
		}
		spec, err := buildSpec(ds, s.Fields)
		if err != nil {
			return err
		}
		spec.ID = 0
		ds.Spec = spec
		ds.Specs = []partition.Spec{spec}
		return nil
	})
	if err != nil {
		if derr := cat.DropDataset(ctx, id, sess.Author()); derr != nil && !errors.Is(derr, catalogstore.ErrDatasetNotFound) {
			ctx.GetLogger().Warnf("lakesql: drop %s left by a failed CREATE TABLE ... PARTITIONED BY: %v", id, derr)
		}
		return nil, err
	}
	return okResult(0)
}

// buildSpec turns PARTITIONED BY fields into a spec for ds's current
// schema (spec id left 0). A field equivalent to one of an earlier spec
// (same column, same transform) keeps its field id; new fields count up
// from the highest id any spec used (from partition.FirstFieldID). Names
// are partition.DefaultName's; the spec is validated against the schema.
func buildSpec(ds *catalogstore.Dataset, fields []PartitionField) (partition.Spec, error) {
	type key struct {
		src int
		t   partition.Transform
	}
	known := map[key]int{}
	next := partition.FirstFieldID
	for _, sp := range append(slices.Clone(ds.Specs), ds.Spec) {
		for _, f := range sp.Fields {
			known[key{f.SourceID, f.Transform}] = f.FieldID
			next = max(next, f.FieldID+1)
		}
	}
	spec := partition.Spec{Fields: []partition.Field{}}
	for _, f := range fields {
		col, ok := ds.Schema.Column(f.Column)
		if !ok {
			return partition.Spec{}, fmt.Errorf("%w: PARTITIONED BY column %q is not a column of %s", partition.ErrUnknownColumn, f.Column, ds.Ident().Short())
		}
		fid, ok := known[key{col.ID, f.Transform}]
		if !ok {
			fid = next
			next++
			known[key{col.ID, f.Transform}] = fid
		}
		spec.Fields = append(spec.Fields, partition.Field{
			SourceID: col.ID, FieldID: fid, Name: partition.DefaultName(col.Name, f.Transform), Transform: f.Transform,
		})
	}
	if err := spec.Validate(&ds.Schema); err != nil {
		return partition.Spec{}, err
	}
	return spec, nil
}

func sameFields(a, b []partition.Field) bool {
	return slices.Equal(a, b) || len(a) == 0 && len(b) == 0
}

func (s *AlterPartitioning) schema() sql.Schema { return types.OkResultSchema }
func (s *AlterPartitioning) readOnly() bool     { return false }

// exec evolves the spec: the new fields become the current spec, under the
// id of an earlier spec with the same fields or else a new id appended to
// Specs. Files already written keep their spec.
func (s *AlterPartitioning) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	id, err := resolveTable(ctx, sess, s.Name)
	if err != nil {
		return nil, err
	}
	_, err = sess.Catalog().UpdateDataset(ctx, id, sess.Author(), func(ds *catalogstore.Dataset) error {
		spec, err := buildSpec(ds, s.Fields)
		if err != nil {
			return err
		}
		if sameFields(spec.Fields, ds.Spec.Fields) {
			return nil // already the current spec
		}
		nextID := 0
		for _, old := range ds.Specs {
			if sameFields(spec.Fields, old.Fields) {
				ds.Spec = old
				return nil
			}
			nextID = max(nextID, old.ID+1)
		}
		nextID = max(nextID, ds.Spec.ID+1)
		spec.ID = nextID
		if len(ds.Specs) == 0 {
			ds.Specs = []partition.Spec{ds.Spec}
		}
		ds.Specs = append(ds.Specs, spec)
		ds.Spec = spec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return okResult(0)
}

func (s *OptimizeTable) schema() sql.Schema { return optimizeSchema }
func (s *OptimizeTable) readOnly() bool     { return false }

// exec runs one compaction pass per table with the default configuration
// (automatic strategy). Like MySQL, a missing table is an error row, not a
// failed statement.
func (s *OptimizeTable) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	cat := sess.Catalog()
	var rows []sql.Row
	for _, n := range s.Tables {
		id, err := resolveTable(ctx, sess, n)
		if err != nil {
			return nil, err
		}
		name := id.Collection + "." + id.Name
		ds, err := cat.Dataset(ctx, id)
		if errors.Is(err, catalogstore.ErrDatasetNotFound) {
			rows = append(rows,
				sql.Row{name, "optimize", "Error", fmt.Sprintf("Table '%s' doesn't exist", name)},
				sql.Row{name, "optimize", "status", "Operation failed"})
			continue
		}
		if err != nil {
			return nil, err
		}
		cfg := maintenance.Config{Author: sess.Author()}
		// The budget is an optional session extra: the engine's configured
		// compaction memory.
		if b, ok := sess.(interface{ CompactionMemory() int64 }); ok {
			cfg.MemoryBudget = b.CompactionMemory()
		}
		res, err := maintenance.Compact(ctx, cat, ds, cfg)
		if err != nil {
			if catalogstore.IsAlertable(err) {
				cat.ReportAlert(ctx, err)
			}
			return nil, sqlerr.Wrap(err)
		}
		if res == nil || res.Snapshot == nil {
			rows = append(rows, sql.Row{name, "optimize", "status", "Table is already up to date"})
			continue
		}
		rows = append(rows, sql.Row{name, "optimize", "status", fmt.Sprintf("OK: compacted %d files into %d (snapshot %d)",
			len(res.Plan.Files), len(res.Outputs), res.Snapshot.ID)})
	}
	return sql.RowsToRowIter(rows...), nil
}
