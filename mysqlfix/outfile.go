package mysqlfix

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// GMS's SELECT … INTO OUTFILE collects every row in memory, prints values
// with Go's %v (a DATETIME as "2024-01-02 00:00:00 +0000 UTC"), escapes
// neither the escape nor the enclosing character nor the field
// terminator, and ignores write errors. CSVOutfiles writes it the way
// MySQL does, streaming: values in their MySQL text form, NULL as \N (NULL
// without an escape character), OPTIONALLY ENCLOSED BY only around
// strings, and the escape character before itself, the enclosing
// character, NUL (\0) and — when fields are not enclosed — the first
// character of either terminator. The file is created exclusively (an
// existing file is sql.ErrFileExists, MySQL's 1086) and removed again if
// the statement fails.

// CSVOutfiles is an exec builder that executes INTO OUTFILE itself.
type CSVOutfiles struct{ Inner sql.NodeExecBuilder }

func (b CSVOutfiles) Build(ctx *sql.Context, n sql.Node, r sql.Row) (sql.RowIter, error) {
	out, _, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if in, ok := n.(*plan.Into); ok && in.Outfile != "" {
			return &outfile{Into: in, b: b.Inner}, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
	if err != nil {
		return nil, err
	}
	return b.Inner.Build(ctx, out, r)
}

// outfile is INTO OUTFILE executed by CSVOutfiles.
type outfile struct {
	*plan.Into
	b sql.NodeExecBuilder
}

var _ sql.ExecSourceRel = (*outfile)(nil)

func (o *outfile) WithChildren(ch ...sql.Node) (sql.Node, error) {
	n, err := o.Into.WithChildren(ch...)
	if err != nil {
		return nil, err
	}
	return &outfile{Into: n.(*plan.Into), b: o.b}, nil
}

func (o *outfile) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	f, err := os.OpenFile(o.Outfile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if errors.Is(err, os.ErrExist) {
		return nil, sql.ErrFileExists.New(o.Outfile)
	} else if err != nil {
		return nil, err
	}
	n, err := o.write(ctx, f, row)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(o.Outfile)
		return nil, err
	}
	return sql.RowsToRowIter(sql.Row{types.NewOkResult(n)}), nil
}

func (o *outfile) write(ctx *sql.Context, f io.Writer, row sql.Row) (int, error) {
	it, err := o.b.Build(ctx, o.Child, row)
	if err != nil {
		return 0, err
	}
	defer it.Close(ctx)
	w := bufio.NewWriterSize(f, 1<<16)
	sch := o.Child.Schema()
	enc := csvEncoder{o.Into}
	n := 0
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		} else if err != nil {
			return n, err
		}
		if err := enc.record(ctx, w, sch, r); err != nil {
			return n, err
		}
		n++
	}
	return n, w.Flush()
}

// csvEncoder writes records in an Into's FIELDS and LINES format.
type csvEncoder struct{ *plan.Into }

func (e csvEncoder) record(ctx *sql.Context, w *bufio.Writer, sch sql.Schema, r sql.Row) error {
	w.WriteString(e.LinesStartingBy)
	for i, v := range r {
		if i > 0 {
			w.WriteString(e.FieldsTerminatedBy)
		}
		if v == nil {
			if e.FieldsEscapedBy == "" {
				w.WriteString("NULL")
			} else {
				w.WriteString(e.FieldsEscapedBy + "N")
			}
			continue
		}
		sv, err := sch[i].Type.SQL(ctx, nil, v)
		if err != nil {
			return err
		}
		enclose := e.FieldsEnclosedBy != "" && (!e.FieldsEnclosedByOpt || types.IsText(sch[i].Type))
		if enclose {
			w.WriteString(e.FieldsEnclosedBy)
		}
		w.WriteString(e.escape(sv.ToString(), enclose))
		if enclose {
			w.WriteString(e.FieldsEnclosedBy)
		}
	}
	_, err := w.WriteString(e.LinesTerminatedBy)
	return err
}

// escape prefixes the characters MySQL escapes on output.
func (e csvEncoder) escape(s string, enclosed bool) string {
	esc := e.FieldsEscapedBy
	if esc == "" {
		return s
	}
	special := esc + e.FieldsEnclosedBy
	if !enclosed {
		special += first(e.FieldsTerminatedBy) + first(e.LinesTerminatedBy)
	}
	if !strings.ContainsAny(s, special+"\x00") {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == 0:
			b.WriteString(esc + "0")
			continue
		case strings.ContainsRune(special, c):
			b.WriteString(esc)
		}
		b.WriteRune(c)
	}
	return b.String()
}

func first(s string) string {
	if s == "" {
		return ""
	}
	return s[:1]
}
