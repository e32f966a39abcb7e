package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/gcs"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/provider"
	"github.com/lakesql/lakesql/sqlerr"
)

// exportProcedures writes a table or a query's result to a Parquet file:
//
//	CALL export_parquet('c.t' | 'SELECT …', 'path' [, overwrite])
//
// path is a server path (FILE privilege, inside secure_file_priv, not on
// a read-only server, like INTO OUTFILE) or a gs:// URI (FILE). An
// existing file is refused (1086) unless overwrite is true. The file
// appears whole or not at all: it is written beside its target and moved
// into place.
func exportProcedures() []sql.ExternalStoredProcedureDetails {
	s := sql.Schema{{Name: "rows", Type: types.Int64}, {Name: "path", Type: types.LongText}}
	return []sql.ExternalStoredProcedureDetails{
		{Name: "export_parquet", Schema: s, Function: procExportParquet},
		{Name: "export_parquet", Schema: s, Function: procExportParquetOverwrite},
	}
}

// exportBatchRows is how many rows become one Arrow record.
const exportBatchRows = 64 * 1024

func procExportParquet(ctx *sql.Context, source, path string) (sql.RowIter, error) {
	return procExportParquetOverwrite(ctx, source, path, false)
}

func procExportParquetOverwrite(ctx *sql.Context, source, path string, overwrite bool) (sql.RowIter, error) {
	env, err := envOf(ctx)
	if err != nil {
		return nil, err
	}
	n, err := exportParquet(ctx, env.sess, source, strings.TrimSpace(path), overwrite)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return sql.RowsToRowIter(sql.Row{n, path}), nil
}

// exportQuery is the SELECT of an export source: a query as given, or
// every column of a table named 'c.t'.
func exportQuery(source string) (string, error) {
	s := strings.TrimSpace(source)
	low := strings.ToLower(s)
	for _, kw := range []string{"select", "with", "(", "values", "table"} {
		if strings.HasPrefix(low, kw) && (kw == "(" || len(low) > len(kw) && (low[len(kw)] == ' ' || low[len(kw)] == '\n' || low[len(kw)] == '\t')) {
			return s, nil
		}
	}
	if s == "" || strings.ContainsAny(s, " \t\n;") {
		return "", fmt.Errorf("%w: export_parquet: the source is a table ('collection.table') or a query (SELECT …), not %q", catalogstore.ErrBadValue, source)
	}
	parts := strings.Split(strings.ReplaceAll(s, "`", ""), ".")
	if len(parts) == 3 { // ws.coll.t: another workspace's collection is `ws.coll`
		parts = []string{parts[0] + "." + parts[1], parts[2]}
	}
	for i, p := range parts {
		parts[i] = "`" + p + "`"
	}
	return "SELECT * FROM " + strings.Join(parts, "."), nil
}

// exportParquet runs the source as the session's user and writes its rows.
func exportParquet(ctx *sql.Context, s *Session, source, path string, overwrite bool) (int64, error) {
	q, err := exportQuery(source)
	if err != nil {
		return 0, err
	}
	target, err := openExportTarget(ctx, s.e, path, overwrite)
	if err != nil {
		return 0, err
	}
	defer target.abort()
	e := s.e
	sub := e.subSession(s.Client(), s.CurrentWorkspace(), ctx.GetCurrentDatabase())
	defer e.gms.CloseSession(sub.ID())
	sctx := e.queryContext(ctx, sub, q)
	defer endQuery(sctx)
	sch, iter, _, err := e.gms.Query(sctx, q)
	if err != nil {
		return 0, err
	}
	n, err := writeParquet(sctx, struct{ io.Writer }{target.w}, sch, iter)
	if cerr := iter.Close(sctx); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	return n, target.commit(ctx)
}

// exportSchema is the Parquet schema of a result: each column's catalog
// type, nullable, with field ids 1, 2, ….
func exportSchema(sch sql.Schema) (*schema.Schema, error) {
	out := &schema.Schema{}
	for i, c := range sch {
		t, _, err := provider.CatalogType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("export_parquet: column %q: %w", c.Name, err)
		}
		out.Columns = append(out.Columns, schema.Column{ID: i + 1, Name: c.Name, Type: t, Nullable: true})
	}
	return out, nil
}

// writeParquet writes every row of iter to w as one Parquet file.
func writeParquet(ctx *sql.Context, w io.Writer, sch sql.Schema, iter sql.RowIter) (int64, error) {
	s, err := exportSchema(sch)
	if err != nil {
		return 0, err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithStats(true),
		parquet.WithDictionaryDefault(true), parquet.WithMaxRowGroupLength(128*1024))
	fw, err := pqarrow.NewFileWriter(datafile.ArrowSchema(s), w, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return 0, err
	}
	rb := arrowrow.NewBuilder(s)
	defer rb.Release()
	flush := func() error {
		rec := rb.Record()
		defer rec.Release()
		return fw.Write(rec)
	}
	var n int64
	for {
		row, err := iter.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			fw.Close()
			return n, err
		}
		if err := rb.Append(row); err != nil {
			fw.Close()
			return n, fmt.Errorf("export_parquet: row %d: %w", n+1, err)
		}
		n++
		if rb.Len() >= exportBatchRows {
			if err := flush(); err != nil {
				fw.Close()
				return n, err
			}
		}
	}
	if rb.Len() > 0 || n == 0 {
		if err := flush(); err != nil {
			fw.Close()
			return n, err
		}
	}
	return n, fw.Close()
}

// exportTarget is a file being written: a temporary file beside a local
// target, moved into place by commit; for gs://, a local temporary file
// uploaded by commit.
type exportTarget struct {
	w      *os.File
	final  string     // local path, or the key in bucket
	bucket blob.Store // nil for a local target
	over   bool
	done   bool
}

// openExportTarget checks where path may be written and opens the
// temporary file.
func openExportTarget(ctx *sql.Context, e *Engine, path string, overwrite bool) (*exportTarget, error) {
	g := e.prov.FileGuard()
	if strings.HasPrefix(path, "gs://") {
		if err := g.Allowed(ctx); err != nil {
			return nil, err
		}
		if g.ReadOnly {
			return nil, mysqlfix.ErrReadOnlyFile
		}
		name, key, _ := strings.Cut(strings.TrimPrefix(path, "gs://"), "/")
		b, err := gcs.Open(ctx, "gs://"+name)
		if err != nil {
			return nil, fmt.Errorf("%w: export_parquet %s: %w", catalogstore.ErrBadValue, path, err)
		}
		if _, err := b.Stat(ctx, key); err == nil && !overwrite {
			b.Close()
			return nil, sql.ErrFileExists.New(path)
		} else if err != nil && !errors.Is(err, blob.ErrNotFound) {
			b.Close()
			return nil, fmt.Errorf("%w: export_parquet %s: %w", catalogstore.ErrBadValue, path, err)
		}
		f, err := os.CreateTemp("", "lakesql-export-*.parquet")
		if err != nil {
			b.Close()
			return nil, err
		}
		return &exportTarget{w: f, final: key, bucket: b, over: overwrite}, nil
	}
	p, err := g.WritePath(ctx, path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(p); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("%w: export_parquet: %s is a folder", catalogstore.ErrBadValue, path)
		}
		if !overwrite {
			return nil, sql.ErrFileExists.New(path)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("export_parquet %s: %w", path, err)
	}
	return &exportTarget{w: f, final: p, over: overwrite}, nil
}

// commit publishes the file: rename (overwrite) or hard link (create
// only, so a file that appeared meanwhile is not replaced).
func (t *exportTarget) commit(ctx context.Context) error {
	if err := t.w.Sync(); err != nil {
		return err
	}
	if t.bucket != nil {
		if _, err := t.w.Seek(0, io.SeekStart); err != nil {
			return err
		}
		err := t.bucket.Put(ctx, t.final, t.w, blob.PutOptions{IfNotExists: !t.over})
		if errors.Is(err, blob.ErrExists) {
			return sql.ErrFileExists.New("gs://…/" + t.final)
		}
		t.done = err == nil
		return err
	}
	if t.over {
		if err := os.Rename(t.w.Name(), t.final); err != nil {
			return err
		}
	} else if err := os.Link(t.w.Name(), t.final); err != nil {
		if errors.Is(err, os.ErrExist) {
			return sql.ErrFileExists.New(t.final)
		}
		return err
	}
	t.done = true
	return nil
}

// abort removes the temporary file (after commit too: a hard link keeps
// the published name).
func (t *exportTarget) abort() {
	t.w.Close()
	if !(t.done && t.over && t.bucket == nil) {
		os.Remove(t.w.Name())
	}
	if t.bucket != nil {
		t.bucket.Close()
	}
}
