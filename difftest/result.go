package difftest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
)

// Result is what one server answered to a query: the column names and
// wire types, the rows as text (nil for NULL), or the error.
type Result struct {
	Names []string
	Types []string // the driver's DatabaseTypeName: the wire type, "UNSIGNED " for unsigned ints
	Rows  [][]*string
	Err   error
}

// query runs q on c over the text protocol and collects its result.
func query(ctx context.Context, c *sql.Conn, q string) Result {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return Result{Err: err}
	}
	defer rows.Close()
	var res Result
	cts, err := rows.ColumnTypes()
	if err != nil {
		return Result{Err: err}
	}
	for _, ct := range cts {
		res.Names = append(res.Names, ct.Name())
		res.Types = append(res.Types, ct.DatabaseTypeName())
	}
	for rows.Next() {
		raw := make([]sql.RawBytes, len(cts))
		ptrs := make([]any, len(raw))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return Result{Err: err}
		}
		row := make([]*string, len(raw))
		for i, b := range raw {
			if b != nil {
				s := string(b)
				row[i] = &s
			}
		}
		res.Rows = append(res.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return Result{Err: err}
	}
	return res
}

// errorCode is the MySQL error number of err, 0 if it has none.
func errorCode(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// render is a row as one line, "NULL" for null.
func render(row []*string) string {
	cells := make([]string, len(row))
	for i, v := range row {
		if v == nil {
			cells[i] = "NULL"
		} else {
			cells[i] = *v
		}
	}
	return strings.Join(cells, "|")
}

// diff compares lakesql's result with the oracle's, after normalising the
// known differences (see doc.go), and describes the first disagreement;
// "" when they agree.
func diff(lake, oracle Result, ordered bool) string {
	if lake.Err != nil || oracle.Err != nil {
		switch {
		case lake.Err == nil:
			return fmt.Sprintf("only MariaDB failed: %v", oracle.Err)
		case oracle.Err == nil:
			return fmt.Sprintf("only lakesql failed: %v", lake.Err)
		case errorCode(lake.Err) != errorCode(oracle.Err):
			return fmt.Sprintf("error codes differ: lakesql %v; MariaDB %v", lake.Err, oracle.Err)
		}
		return ""
	}
	if d := diffColumns(lake, oracle); d != "" {
		return d
	}
	l, o := normaliseRows(lake), normaliseRows(oracle)
	if !ordered {
		sort.Strings(l)
		sort.Strings(o)
	}
	if len(l) != len(o) {
		return fmt.Sprintf("%d rows, MariaDB %d:\nlakesql: %s\nMariaDB: %s", len(l), len(o), sample(l), sample(o))
	}
	for i := range l {
		if l[i] != o[i] {
			return fmt.Sprintf("row %d differs: lakesql %q, MariaDB %q\nlakesql: %s\nMariaDB: %s", i, l[i], o[i], sample(l), sample(o))
		}
	}
	return ""
}

// diffColumns compares column names and (normalised) wire types.
func diffColumns(lake, oracle Result) string {
	if strings.Join(lake.Names, ",") != strings.Join(oracle.Names, ",") {
		return fmt.Sprintf("columns %v, MariaDB %v", lake.Names, oracle.Names)
	}
	for i := range lake.Types {
		lt, ot := typeClass(lake.Types[i]), typeClass(oracle.Types[i])
		if lt != ot {
			return fmt.Sprintf("column %s is %s, MariaDB %s", lake.Names[i], lake.Types[i], oracle.Types[i])
		}
	}
	return ""
}

// sample is the first rows of a result, for a mismatch report.
func sample(rows []string) string {
	if len(rows) > 8 {
		return strings.Join(rows[:8], " ; ") + fmt.Sprintf(" ; … (%d rows)", len(rows))
	}
	return strings.Join(rows, " ; ")
}
