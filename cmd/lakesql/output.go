package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

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
	cells := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		cells[i] = make([]string, len(row))
		for j := range row {
			if txt, ok := r.Text(i, j); ok {
				cells[i][j] = txt
			} else {
				cells[i][j] = "NULL"
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
		for _, row := range r.Rows {
			m := make(map[string]any, len(row))
			for j, v := range row {
				m[r.Columns[j]] = jsonValue(v)
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

// formatValue renders a value as the mysql client would.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		if x.Nanosecond() == 0 {
			return x.Format("2006-01-02 15:04:05")
		}
		return x.Format("2006-01-02 15:04:05.000000")
	case []byte:
		return string(x)
	case sql.JSONWrapper:
		s, err := types.JsonToMySqlString(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return s
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64:
		return x
	}
	return formatValue(v)
}
