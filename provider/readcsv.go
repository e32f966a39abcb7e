package provider

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/sqlerr"
)

// SELECT … FROM read_csv('path' [, 'option=value', …]) reads one CSV file
// (a warehouse key, an absolute path, a file:// or gs:// URI, as
// read_parquet) with MySQL's CSV reader. Options:
//
//	header=true|false   the first line names the columns (default true;
//	                    without, columns are column0, column1, …)
//	delim=,             the field separator (also sep, delimiter; \t for tab)
//	quote="             the enclosing character ('' for none)
//	escape=             the escape character (default none: quotes are doubled)
//	skip=N              lines skipped before the header
//	nullstr=            the unquoted text read as NULL (default: empty)
//	sample=N            rows read to infer the column types (default 1000)
//
// Column types are inferred from the sample: BIGINT, DOUBLE, DATE,
// DATETIME(6) or LONGTEXT. A later value that does not fit its column's
// type is an error naming the line and column.

// ReadCSVName is read_csv's name.
const ReadCSVName = "read_csv"

// csvOptions are read_csv's options.
type csvOptions struct {
	format  mysqlfix.CSVFormat
	header  bool
	skip    int64
	nullStr string
	sample  int
}

func parseCSVOptions(args []string) (csvOptions, error) {
	o := csvOptions{format: mysqlfix.CSVFormat{FieldsTerminatedBy: ",", EnclosedBy: `"`, LinesTerminatedBy: "\n"}, header: true, sample: 1000}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return o, fmt.Errorf("%w: read_csv option %q: write it as 'name=value'", catalogstore.ErrBadValue, a)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		var err error
		switch k {
		case "header":
			o.header, err = strconv.ParseBool(strings.TrimSpace(v))
		case "delim", "delimiter", "sep":
			if v == `\t` {
				v = "\t"
			}
			if v == "" {
				err = errors.New("empty")
			}
			o.format.FieldsTerminatedBy = v
		case "quote":
			o.format.EnclosedBy = v
		case "escape":
			o.format.EscapedBy = v
		case "skip":
			o.skip, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		case "nullstr":
			o.nullStr = v
		case "sample":
			o.sample, err = strconv.Atoi(strings.TrimSpace(v))
		default:
			return o, fmt.Errorf("%w: read_csv has no option %q (header, delim, quote, escape, skip, nullstr, sample)", catalogstore.ErrBadValue, k)
		}
		if err == nil && (len(o.format.EnclosedBy) > 1 || len(o.format.EscapedBy) > 1) {
			err = errors.New("quote and escape are one character")
		}
		if err != nil || o.skip < 0 || o.sample < 0 {
			return o, fmt.Errorf("%w: read_csv option %q: %v", catalogstore.ErrBadValue, a, err)
		}
	}
	if o.sample == 0 {
		o.sample = 1000
	}
	return o, nil
}

// csvKind is an inferred column type.
type csvKind int

const (
	csvNone csvKind = iota // no value seen yet
	csvInt
	csvFloat
	csvDate
	csvDatetime
	csvText
)

var csvDatetimeLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999Z07:00"}

// kindOf is the narrowest kind that reads v.
func kindOf(v string) csvKind {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return csvInt
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return csvFloat
	}
	if _, err := time.Parse("2006-01-02", v); err == nil {
		return csvDate
	}
	for _, l := range csvDatetimeLayouts {
		if _, err := time.Parse(l, v); err == nil {
			return csvDatetime
		}
	}
	return csvText
}

// widen is the kind that reads values of both a and b.
func widen(a, b csvKind) csvKind {
	switch {
	case a == csvNone:
		return b
	case b == csvNone || a == b:
		return a
	case (a == csvInt && b == csvFloat) || (a == csvFloat && b == csvInt):
		return csvFloat
	case (a == csvDate && b == csvDatetime) || (a == csvDatetime && b == csvDate):
		return csvDatetime
	}
	return csvText
}

func (k csvKind) sqlType() sql.Type {
	switch k {
	case csvInt:
		return types.Int64
	case csvFloat:
		return types.Float64
	case csvDate:
		return types.Date
	case csvDatetime:
		return types.DatetimeMaxPrecision
	}
	return types.LongText
}

// value converts one field of kind k.
func (k csvKind) value(v string) (any, error) {
	switch k {
	case csvInt:
		return strconv.ParseInt(v, 10, 64)
	case csvFloat:
		return strconv.ParseFloat(v, 64)
	case csvDate:
		return time.Parse("2006-01-02", v)
	case csvDatetime:
		var err error
		for _, l := range csvDatetimeLayouts {
			var t time.Time
			if t, err = time.Parse(l, v); err == nil {
				return t.UTC(), nil
			}
		}
		return nil, err
	}
	return v, nil
}

// readCSV plans read_csv(ref, options…).
func (p *Provider) readCSV(ctx *sql.Context, db sql.Database, args []string) (sql.Node, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("%w: read_csv('path', 'option=value', …) needs the path", catalogstore.ErrBadValue)
	}
	opts, err := parseCSVOptions(args[1:])
	if err != nil {
		return nil, err
	}
	srcs, err := p.readRefs().Resolve(ctx, args[0])
	if err != nil {
		return nil, err
	}
	if len(srcs) != 1 {
		return nil, fmt.Errorf("%w: read_csv reads one file; %s names %d", catalogstore.ErrBadValue, args[0], len(srcs))
	}
	n := &csvScan{src: srcs[0], store: srcs[0].Store, opts: opts}
	if n.store == nil {
		n.store = p.cat.Blob()
	}
	if db != nil {
		n.db = db.Name()
	}
	if err := n.infer(ctx); err != nil {
		return nil, err
	}
	return n, nil
}

// csvScan reads one CSV file as rows.
type csvScan struct {
	src   catalogstore.FileSource
	store blob.Store
	opts  csvOptions
	db    string
	names []string
	kinds []csvKind
	out   sql.Schema
	// id and cols are the alias's table and column ids (mysqlfix's
	// tableFuncIds rule sets them): GMS finds a join input's columns by
	// the ids of the node under its TableAlias.
	id   sql.TableId
	cols sql.ColSet
}

var (
	_ sql.ExecSourceRel      = (*csvScan)(nil)
	_ sql.CollationCoercible = (*csvScan)(nil)
	_ plan.TableIdNode       = (*csvScan)(nil)
)

// open returns a reader positioned after the skipped lines and the
// header (returned when opts.header).
func (n *csvScan) open(ctx *sql.Context) (*mysqlfix.CSVReader, []mysqlfix.CSVField, error) {
	info, err := n.store.Stat(ctx, n.src.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: read_csv %s: %w", catalogstore.ErrBadValue, n.src.Name, err)
	}
	r := io.NewSectionReader(blob.NewReaderAt(ctx, n.store, n.src.Key, info.Size), 0, info.Size)
	cr := mysqlfix.NewCSVReader(r, n.opts.format)
	if err := cr.SkipLines(n.opts.skip); err != nil {
		return nil, nil, err
	}
	if !n.opts.header {
		return cr, nil, nil
	}
	h, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%w: read_csv %s is empty (no header line)", catalogstore.ErrBadValue, n.src.Name)
	} else if err != nil {
		return nil, nil, fmt.Errorf("%w: read_csv %s: %w", catalogstore.ErrBadValue, n.src.Name, err)
	}
	return cr, h, nil
}

// isNull reports whether a field reads as NULL.
func (n *csvScan) isNull(f mysqlfix.CSVField) bool {
	return f.Null || (!f.Quoted && f.Value == n.opts.nullStr)
}

// infer names the columns and infers their types from the sample.
func (n *csvScan) infer(ctx *sql.Context) error {
	cr, header, err := n.open(ctx)
	if err != nil {
		return err
	}
	for i, h := range header {
		name := strings.TrimSpace(h.Value)
		if name == "" {
			name = fmt.Sprintf("column%d", i)
		}
		for taken(n.names, name) {
			name += "_"
		}
		n.names = append(n.names, name)
	}
	n.kinds = make([]csvKind, len(n.names))
	for rows := 0; rows < n.opts.sample; rows++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("%w: read_csv %s: %w", catalogstore.ErrBadValue, n.src.Name, err)
		}
		for len(n.kinds) < len(rec) {
			n.names = append(n.names, fmt.Sprintf("column%d", len(n.kinds)))
			n.kinds = append(n.kinds, csvNone)
		}
		for i, f := range rec {
			if !n.isNull(f) {
				n.kinds[i] = widen(n.kinds[i], kindOf(f.Value))
			}
		}
	}
	if len(n.names) == 0 {
		return fmt.Errorf("%w: read_csv %s has no columns", catalogstore.ErrBadValue, n.src.Name)
	}
	for i, name := range n.names {
		n.out = append(n.out, &sql.Column{Name: name, Type: n.kinds[i].sqlType(), Nullable: true, Source: ReadCSVName, DatabaseSource: n.db})
	}
	return nil
}

func taken(names []string, n string) bool {
	for _, x := range names {
		if strings.EqualFold(x, n) {
			return true
		}
	}
	return false
}

// RowIter implements sql.ExecSourceRel.
func (n *csvScan) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	cr, _, err := n.open(ctx)
	if err != nil {
		return nil, sqlerr.Wrap(err)
	}
	return &csvIter{n: n, cr: cr, line: 0}, nil
}

type csvIter struct {
	n    *csvScan
	cr   *mysqlfix.CSVReader
	line int
}

func (it *csvIter) Next(ctx *sql.Context) (sql.Row, error) {
	rec, err := it.cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, sqlerr.Wrap(fmt.Errorf("%w: read_csv %s: %w", catalogstore.ErrBadValue, it.n.src.Name, err))
	}
	it.line++
	row := make(sql.Row, len(it.n.out))
	for i := range row {
		if i >= len(rec) || it.n.isNull(rec[i]) {
			continue
		}
		v, err := it.n.kinds[i].value(rec[i].Value)
		if err != nil {
			return nil, sqlerr.Wrap(fmt.Errorf("%w: read_csv %s: record %d, column %s: %q is not a %s (inferred from the first %d rows; raise sample=)",
				catalogstore.ErrBadValue, it.n.src.Name, it.line, it.n.names[i], rec[i].Value, it.n.out[i].Type, it.n.opts.sample))
		}
		row[i] = v
	}
	return row, nil
}

func (it *csvIter) Close(*sql.Context) error { return nil }

func (n *csvScan) Resolved() bool       { return true }
func (n *csvScan) IsReadOnly() bool     { return true }
func (n *csvScan) String() string       { return "read_csv(" + n.src.Name + ")" }
func (n *csvScan) Schema() sql.Schema   { return n.out }
func (n *csvScan) Children() []sql.Node { return nil }
func (n *csvScan) Name() string         { return ReadCSVName }
func (n *csvScan) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 7
}

// Id implements plan.TableIdNode.
func (n *csvScan) Id() sql.TableId { return n.id }

// Columns implements plan.TableIdNode.
func (n *csvScan) Columns() sql.ColSet { return n.cols }

// WithId implements plan.TableIdNode.
func (n *csvScan) WithId(id sql.TableId) plan.TableIdNode {
	c := *n
	c.id = id
	return &c
}

// WithColumns implements plan.TableIdNode.
func (n *csvScan) WithColumns(cols sql.ColSet) plan.TableIdNode {
	c := *n
	c.cols = cols
	return &c
}

func (n *csvScan) WithChildren(ch ...sql.Node) (sql.Node, error) {
	if len(ch) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(ch), 0)
	}
	return n, nil
}
