package provider

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
)

// SELECT … FROM read_parquet('path-or-glob') reads Parquet files without
// a table: warehouse keys, absolute paths (FILE and secure_file_priv),
// file:// and gs:// URIs, and globs of them (FileRefs). The columns are
// the first file's; the other files' columns map to them by field id, or
// by name when they carry none, and must read as the same types (a file
// that does not fit is an error naming it and the column). The files are
// planned from their footers like a dataset's snapshot: the scan prunes
// files and row groups by the query's filters and runs vectorised
// wherever a table would (it is a read-only provider.Table over the file
// set).

// ReadParquetName is read_parquet's name.
const ReadParquetName = "read_parquet"

// fileSet is the files a read_parquet table reads.
type fileSet struct {
	key    string // for messages and the pruner
	store  blob.Store
	files  []manifest.DataFile
	pruner *scan.Pruner
}

// withFileFunctions registers read_parquet and read_csv on p.
func (p *Provider) withFileFunctions() *Provider {
	p.fns[ReadParquetName] = &fileFunction{p: p, name: ReadParquetName, build: p.readParquet}
	p.fns[ReadCSVName] = &fileFunction{p: p, name: ReadCSVName, build: p.readCSV}
	return p
}

// readParquet plans read_parquet(ref).
func (p *Provider) readParquet(ctx *sql.Context, db sql.Database, args []string) (sql.Node, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("%w: read_parquet('path or glob') takes one argument, not %d", catalogstore.ErrBadValue, len(args))
	}
	srcs, err := p.readRefs().Resolve(ctx, args[0])
	if err != nil {
		return nil, err
	}
	store := srcs[0].Store
	if store == nil {
		store = p.cat.Blob()
	}
	s, err := parquetSchema(ctx, store, srcs[0])
	if err != nil {
		return nil, err
	}
	fs := &fileSet{key: "read_parquet(" + args[0] + ")", store: store, pruner: scan.NewPruner(scan.DefaultPrunerBytes / 16)}
	var records, bytes int64
	for _, src := range srcs {
		f, err := datafile.ReadFooter(ctx, store, src.Key, 0, &s)
		if err != nil {
			return nil, fmt.Errorf("%w: read_parquet %s: %w", catalogstore.ErrBadValue, src.Name, err)
		}
		fs.files = append(fs.files, f)
		records += f.RecordCount
		bytes += f.FileSize
	}
	d := &Database{p: p}
	if db != nil {
		d.name = db.Name()
	}
	ds := &catalogstore.Dataset{Name: ReadParquetName, Schema: s, CurrentSnapshotID: 1, CurrentRecords: records, CurrentBytes: bytes}
	t := newTableAt(d, ds, &ds.Schema, 1)
	t.asOf, t.ext = true, fs
	return plan.NewResolvedTable(t, d, nil), nil
}

// parquetSchema is the catalog schema of one Parquet file's columns: its
// field ids when every column has one, else 1, 2, ….
func parquetSchema(ctx context.Context, store blob.Store, src catalogstore.FileSource) (schema.Schema, error) {
	bad := func(err error) (schema.Schema, error) {
		return schema.Schema{}, fmt.Errorf("%w: read_parquet %s: %w", catalogstore.ErrBadValue, src.Name, err)
	}
	info, err := store.Stat(ctx, src.Key)
	if err != nil {
		return bad(err)
	}
	ra := blob.NewReaderAt(ctx, store, src.Key, info.Size)
	pf, err := file.NewParquetReader(ra, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		return bad(fmt.Errorf("%w: %v", datafile.ErrBadFile, err))
	}
	defer pf.Close()
	as, err := pqarrow.FromParquet(pf.MetaData().Schema, &pqarrow.ArrowReadProperties{}, pf.MetaData().KeyValueMetadata())
	if err != nil {
		return bad(err)
	}
	s, err := datafile.FromArrowSchema(as)
	if err != nil {
		return bad(err)
	}
	ids := true
	for _, c := range s.Columns {
		ids = ids && c.ID > 0
	}
	for i := range s.Columns {
		if !ids {
			s.Columns[i].ID = i + 1
		}
		s.Columns[i].Nullable = true
	}
	return s, nil
}
