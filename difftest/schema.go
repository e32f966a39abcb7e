package difftest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is the family of a column or expression: what the query generator
// may do with it.
type Kind int

// The kinds of values the generator combines.
const (
	KindInt Kind = iota
	KindDecimal
	KindFloat
	KindString
	KindDate
	KindDatetime
	KindBool
)

// ColType is one column type of the lakesql vocabulary, spelled the same
// on both servers.
type ColType struct {
	SQL      string // the type in CREATE TABLE
	Kind     Kind
	Unsigned bool
	Bits     int // integer width
	Prec     int // DECIMAL precision, DATETIME fraction digits
	Scale    int // DECIMAL scale
	Len      int // VARCHAR length
}

// Column is a column of a generated table.
type Column struct {
	Name string
	Type ColType
}

// Table is a generated table: its columns and rows (SQL literals, "NULL"
// for null), created identically on both servers.
type Table struct {
	Name string
	Cols []Column
	Rows [][]string
}

// intTypes are TINYINT..BIGINT, signed and unsigned.
var intTypes = []ColType{
	{SQL: "TINYINT", Kind: KindInt, Bits: 8},
	{SQL: "SMALLINT", Kind: KindInt, Bits: 16},
	{SQL: "INT", Kind: KindInt, Bits: 32},
	{SQL: "BIGINT", Kind: KindInt, Bits: 64},
	{SQL: "TINYINT UNSIGNED", Kind: KindInt, Bits: 8, Unsigned: true},
	{SQL: "SMALLINT UNSIGNED", Kind: KindInt, Bits: 16, Unsigned: true},
	{SQL: "INT UNSIGNED", Kind: KindInt, Bits: 32, Unsigned: true},
	{SQL: "BIGINT UNSIGNED", Kind: KindInt, Bits: 64, Unsigned: true},
}

// randType draws a column type; every table also gets a key column.
func randType(r *rand.Rand) ColType {
	switch r.IntN(10) {
	case 0, 1, 2:
		return intTypes[r.IntN(len(intTypes))]
	case 3, 4:
		p := 1 + r.IntN(30)
		s := r.IntN(min(p, 8) + 1)
		return ColType{SQL: fmt.Sprintf("DECIMAL(%d,%d)", p, s), Kind: KindDecimal, Prec: p, Scale: s}
	case 5:
		return ColType{SQL: "DOUBLE", Kind: KindFloat}
	case 6:
		n := 1 + r.IntN(20)
		return ColType{SQL: fmt.Sprintf("VARCHAR(%d)", n), Kind: KindString, Len: n}
	case 7:
		return ColType{SQL: "DATE", Kind: KindDate}
	case 8:
		// DATETIME(3)/(6) too: no expression casts their fraction away
		// (MySQL 8, and lakesql, round '….555' to ':01' where MariaDB
		// truncates).
		p := []int{0, 0, 3, 6}[r.IntN(4)]
		if p == 0 {
			return ColType{SQL: "DATETIME", Kind: KindDatetime}
		}
		return ColType{SQL: fmt.Sprintf("DATETIME(%d)", p), Kind: KindDatetime, Prec: p}
	default:
		return ColType{SQL: "BOOLEAN", Kind: KindBool, Bits: 8}
	}
}

// GenTables makes n random tables t0..t(n-1). Each has an INT key column k
// (small values that overlap across tables, so joins match, and NULLs) and
// 3–6 columns of random types, with 0–rows rows drawn from each type's
// edge values and small ordinary values.
func GenTables(r *rand.Rand, n, rows int) []Table {
	tables := make([]Table, n)
	for i := range tables {
		t := Table{Name: fmt.Sprintf("t%d", i)}
		t.Cols = append(t.Cols, Column{Name: "k", Type: intTypes[2]})
		for j, nc := 0, 3+r.IntN(4); j < nc; j++ {
			t.Cols = append(t.Cols, Column{Name: fmt.Sprintf("c%d", j), Type: randType(r)})
		}
		nr := rows/2 + r.IntN(rows/2+1)
		for range nr {
			row := make([]string, len(t.Cols))
			for j, c := range t.Cols {
				row[j] = randValue(r, c.Type)
			}
			t.Rows = append(t.Rows, row)
		}
		tables[i] = t
	}
	return tables
}

// CreateSQL is the CREATE TABLE statement, the same text on both servers.
func (t Table) CreateSQL() string {
	cols := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		cols[i] = c.Name + " " + c.Type.SQL
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", t.Name, strings.Join(cols, ", "))
}

// InsertSQL is one INSERT of every row ("" for an empty table).
func (t Table) InsertSQL() string {
	if len(t.Rows) == 0 {
		return ""
	}
	rows := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = "(" + strings.Join(r, ", ") + ")"
	}
	return fmt.Sprintf("INSERT INTO %s VALUES %s", t.Name, strings.Join(rows, ", "))
}
