package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"

	"github.com/lakesql/lakesql/engine"
)

// printer writes results in one output format.
type printer struct {
	format string
	w      io.Writer
}

func newPrinter(format string, w io.Writer) (printer, error) {
	switch format {
	case "table", "tsv", "csv", "json":
		return printer{format: format, w: w}, nil
	}
	return printer{}, fmt.Errorf("--format %q: use table, tsv, csv or json", format)
}

func (p printer) print(r engine.Result) error {
	if n, is := r.IsOK(); is {
		if p.format == "table" {
			_, err := fmt.Fprintf(p.w, "Query OK, %d %s affected\n", n, plural(int(n), "row", "rows"))
			return err
		}
		return nil
	}
	if len(r.Columns) == 0 {
		return nil
	}
	// NULL is "NULL" in the table and TSV (as the mysql client prints
	// it) and \N in CSV (MySQL's SELECT ... INTO OUTFILE and LOAD DATA
	// spelling), where an empty field is the empty string.
	null := "NULL"
	if p.format == "csv" {
		null = `\N`
	}
	cells := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		cells[i] = make([]string, len(row))
		for j := range row {
			if txt, ok := r.Text(i, j); ok {
				cells[i][j] = txt
			} else {
				cells[i][j] = null
			}
		}
	}
	switch p.format {
	case "tsv":
		fmt.Fprintln(p.w, strings.Join(r.Columns, "\t"))
		for _, row := range cells {
			if _, err := fmt.Fprintln(p.w, strings.Join(row, "\t")); err != nil {
				return err
			}
		}
		return nil
	case "csv":
		cw := csv.NewWriter(p.w)
		cw.Write(r.Columns)
		cw.WriteAll(cells)
		return cw.Error()
	case "json":
		enc := json.NewEncoder(p.w)
		for i, row := range r.Rows {
			m := make(map[string]any, len(row))
			for j := range row {
				m[r.Columns[j]] = jsonValue(r, i, j)
			}
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	t := table.NewWriter()
	t.SetOutputMirror(p.w)
	style := table.StyleDefault
	style.Format.Header = text.FormatDefault // keep column names as they are
	t.SetStyle(style)
	hdr := make(table.Row, len(r.Columns))
	for i, c := range r.Columns {
		hdr[i] = c
	}
	t.AppendHeader(hdr)
	for _, row := range cells {
		tr := make(table.Row, len(row))
		for i, c := range row {
			tr[i] = c
		}
		t.AppendRow(tr)
	}
	t.Render()
	_, err := fmt.Fprintf(p.w, "%d %s in set\n", len(r.Rows), plural(len(r.Rows), "row", "rows"))
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// jsonValue is cell (row, col) as a JSON value, rendered by its column's
// type as a MySQL client shows it: integers, DECIMALs and floats are
// numbers with MySQL's digits (a DECIMAL(4,2) 10 is 10.00, exact at any
// width), temporal values are their MySQL text (a midnight DATETIME keeps
// its time), binary strings (BINARY, VARBINARY, BLOB) are base64 like
// encoding/json's []byte, JSON documents are embedded as they are, and
// everything else is its MySQL text.
func jsonValue(r engine.Result, row, col int) any {
	v := r.Rows[row][col]
	txt, ok := r.Text(row, col)
	if v == nil || !ok {
		return nil
	}
	var t sql.Type
	if col < len(r.Schema) {
		t = r.Schema[col].Type
	}
	switch {
	case t == nil:
		return fmt.Sprint(v)
	case types.IsJSON(t):
		if json.Valid([]byte(txt)) {
			return json.RawMessage(txt) // the document itself
		}
	case types.IsBinaryType(t):
		if b, isBytes := v.([]byte); isBytes {
			return b
		}
		return []byte(txt)
	case types.IsInteger(t) || types.IsDecimal(t) || types.IsFloat(t):
		if json.Valid([]byte(txt)) {
			return json.Number(txt)
		}
		return txt // NaN or Inf: not a JSON number
	}
	return txt
}
