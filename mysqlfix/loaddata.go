package mysqlfix

import (
	"fmt"
	"io"
	"os"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GMS's LOAD DATA splits each line at every field terminator, quotes or
// not, and refuses a field that is not enclosed when ENCLOSED BY is given
// ("field not properly enclosed" for OPTIONALLY ENCLOSED BY '"' on valid
// CSV); it drops escape characters instead of decoding them and reads no
// line terminator inside quotes. CSVLoads swaps its reader for CSVReader,
// which reads MySQL's syntax, keeping GMS's mapping of fields to columns,
// user variables and SET expressions.

// CSVLoads is an exec builder that executes LOAD DATA with CSVReader.
type CSVLoads struct{ Inner sql.NodeExecBuilder }

func (b CSVLoads) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	out, _, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ii, ok := n.(*plan.InsertInto)
		if !ok {
			return n, transform.SameTree, nil
		}
		src, same, err := transform.Node(ii.Source, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
			if ld, ok := n.(*plan.LoadData); ok {
				return &loadData{LoadData: ld}, transform.NewTree, nil
			}
			return n, transform.SameTree, nil
		})
		if err != nil || same {
			return n, transform.SameTree, err
		}
		return ii.WithSource(src), transform.NewTree, nil
	})
	if err != nil {
		return nil, err
	}
	return b.Inner.Build(ctx, out, r)
}

// loadData is a LOAD DATA source read by CSVReader.
type loadData struct{ *plan.LoadData }

var _ sql.ExecSourceRel = (*loadData)(nil)

func (l *loadData) WithChildren(ch ...sql.Node) (sql.Node, error) {
	if len(ch) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(l, len(ch), 0)
	}
	return l, nil
}

// RowIter opens the file (already confined by FileGuard) or the client's
// LOCAL stream.
func (l *loadData) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	var rd io.ReadCloser
	var err error
	if l.Local {
		_, on, ok := sql.SystemVariables.GetGlobal("local_infile")
		if !ok || on.(int8) == 0 {
			return nil, fmt.Errorf("local_infile needs to be set to 1 to use LOCAL")
		}
		if rd, err = ctx.LoadInfile(l.File); err != nil {
			return nil, err
		}
	} else if rd, err = os.Open(l.File); err != nil {
		return nil, sql.ErrLoadDataCannotOpen.New(err.Error())
	}
	cr := NewCSVReader(rd, CSVFormat{FieldsTerminatedBy: l.FieldsTerminatedBy, EnclosedBy: l.FieldsEnclosedBy,
		EscapedBy: l.FieldsEscapedBy, LinesStartingBy: l.LinesStartingBy, LinesTerminatedBy: l.LinesTerminatedBy,
		BareNULL: l.FieldsEnclosedBy != "" || l.FieldsEscapedBy == ""})
	if err := cr.SkipLines(l.IgnoreNum); err != nil {
		rd.Close()
		return nil, err
	}
	it := &loadIter{ld: l.LoadData, rd: rd, cr: cr}
	it.mapFields()
	return it, nil
}

// loadIter turns records into rows of the destination schema.
type loadIter struct {
	ld         *plan.LoadData
	rd         io.ReadCloser
	cr         *CSVReader
	fieldToCol []int // field index → column index; -1 for a user variable
}

// mapFields maps field positions to destination columns (as GMS does).
func (it *loadIter) mapFields() {
	sch := it.ld.Schema()
	source := sch[0].Source
	names := it.ld.ColNames
	if len(names) == 0 {
		for _, c := range sch {
			names = append(names, c.Name)
		}
	}
	it.fieldToCol = make([]int, len(it.ld.UserVars))
	for f, col := 0, 0; f < len(it.ld.UserVars) && col < len(names); f++ {
		if it.ld.UserVars[f] != nil {
			it.fieldToCol[f] = -1
			continue
		}
		it.fieldToCol[f] = sch.IndexOf(names[col], source)
		col++
	}
}

func (it *loadIter) Close(*sql.Context) error { return it.rd.Close() }

func (it *loadIter) Next(ctx *sql.Context) (sql.Row, error) {
	rec, err := it.cr.Read()
	if err != nil {
		return nil, err
	}
	exprs, err := it.exprs(ctx, rec)
	if err != nil {
		return nil, err
	}
	row := make(sql.Row, len(exprs))
	var later []int
	for i, e := range exprs {
		if e == nil {
			continue
		}
		// Non-literal defaults may read other columns: a second pass.
		if d, ok := e.(*sql.ColumnDefaultValue); ok && !d.IsLiteral() {
			later = append(later, i)
			continue
		}
		if row[i], err = e.Eval(ctx, row); err != nil {
			return nil, err
		}
	}
	for _, i := range later {
		if row[i], err = exprs[i].Eval(ctx, row); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// exprs builds the value expression of each destination column from one
// record, as GMS's loadDataIter does: user variables are assigned, an
// empty field of a non-string column takes the default (or NULL), SET
// expressions replace their columns, and missing columns take defaults.
func (it *loadIter) exprs(ctx *sql.Context, rec []CSVField) ([]sql.Expression, error) {
	ld := it.ld
	fieldRow := make(sql.Row, len(rec))
	for i, f := range rec {
		if !f.Null {
			fieldRow[i] = f.Value
		}
	}
	exprs := make([]sql.Expression, len(ld.DestSch))
	for f, e := 0, 0; f < len(rec) && f < len(ld.UserVars); f++ {
		if uv := ld.UserVars[f]; uv != nil {
			sf := uv.(*expression.SetField)
			v, err := sf.RightChild.Eval(ctx, fieldRow)
			if err != nil {
				return nil, err
			}
			if err := ctx.SetUserVariable(ctx, sf.LeftChild.(*expression.UserVar).Name, v, types.ApproximateTypeFromValue(v)); err != nil {
				return nil, err
			}
			continue
		}
		if e >= len(exprs) {
			continue
		}
		exprs[e] = it.value(rec[f], f)
		e++
	}
	for f, e := 0, 0; len(ld.SetExprs) > 0 && f < len(it.fieldToCol) && e < len(exprs); f++ {
		ci := it.fieldToCol[f]
		if ci == -1 {
			continue
		}
		if se := ld.SetExprs[ci]; se != nil {
			v, err := se.Eval(ctx, fieldRow)
			if err != nil {
				return nil, err
			}
			exprs[e] = expression.NewLiteral(v, se.Type())
		}
		e++
	}
	if len(ld.ColNames) == 0 {
		for i, e := range exprs {
			if e != nil {
				continue
			}
			col := ld.DestSch[i]
			if !col.Nullable && col.Default == nil && !col.AutoIncrement {
				return nil, sql.ErrInsertIntoNonNullableDefaultNullColumn.New(col.Name)
			}
			exprs[i] = col.Default
		}
	}
	return exprs, nil
}

// value is the expression of field f (index fi) for its column.
func (it *loadIter) value(f CSVField, fi int) sql.Expression {
	if f.Null {
		return expression.NewLiteral(nil, types.Null)
	}
	if f.Value == "" && !f.Quoted && fi < len(it.fieldToCol) && it.fieldToCol[fi] >= 0 {
		col := it.ld.DestSch[it.fieldToCol[fi]]
		if _, ok := col.Type.(sql.StringType); !ok {
			if col.Default != nil {
				return col.Default
			}
			return expression.NewLiteral(nil, types.Null)
		}
	}
	return expression.NewLiteral(f.Value, types.LongText)
}
