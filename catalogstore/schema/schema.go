// Package schema holds the catalog's table schema model: columns with
// stable field ids, a closed vocabulary of column types, and their mapping
// to Arrow (and so to Parquet, through arrow-go's pqarrow).
//
// Field ids are assigned once and never reused: a dataset keeps
// next-field-id, so a dropped column's id is never handed out again. Data
// files carry the id of every column as PARQUET:field_id, and readers
// project by id, which makes add, drop and rename metadata-only.
package schema

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Kind names a type family of the vocabulary.
type Kind string

// The closed vocabulary. Anything else is refused by name.
const (
	Bool      Kind = "boolean"
	Int8      Kind = "int8"
	Int16     Kind = "int16"
	Int32     Kind = "int32"
	Int64     Kind = "int64"
	Uint8     Kind = "uint8"
	Uint16    Kind = "uint16"
	Uint32    Kind = "uint32"
	Uint64    Kind = "uint64"
	Float32   Kind = "float32"
	Float64   Kind = "float64"
	Decimal   Kind = "decimal" // Precision 1..38, Scale 0..Precision
	String    Kind = "string"
	Binary    Kind = "binary"
	Date      Kind = "date"      // days since 1970-01-01 (Arrow date32)
	Time      Kind = "time"      // µs since midnight (Arrow time64[us])
	Timestamp Kind = "timestamp" // µs since epoch, UTC (Arrow timestamp[us, UTC])
	JSON      Kind = "json"      // JSON text (Arrow string with extension metadata)
)

// IntRange is the range of values of an integer kind held as int64
// (int8 … int32, uint8 … uint32); int64's range for any other kind.
func (k Kind) IntRange() (lo, hi int64) {
	switch k {
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Uint8:
		return 0, math.MaxUint8
	case Uint16:
		return 0, math.MaxUint16
	case Uint32:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// Type is one column type.
type Type struct {
	Kind      Kind `json:"kind"`
	Precision int  `json:"precision,omitempty"` // Decimal only
	Scale     int  `json:"scale,omitempty"`     // Decimal only
}

// String renders the type as the catalog writes it: "int64",
// "decimal(12,2)".
func (t Type) String() string {
	if t.Kind == Decimal {
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	}
	return string(t.Kind)
}

var decimalRe = regexp.MustCompile(`^decimal\((\d+),\s*(\d+)\)$`)

// ParseType parses a type as String renders it. Unknown types give
// ErrUnsupportedType naming the type and the vocabulary.
func ParseType(s string) (Type, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if m := decimalRe.FindStringSubmatch(s); m != nil {
		p, _ := strconv.Atoi(m[1])
		sc, _ := strconv.Atoi(m[2])
		t := Type{Kind: Decimal, Precision: p, Scale: sc}
		return t, t.Validate()
	}
	t := Type{Kind: Kind(s)}
	return t, t.Validate()
}

// Vocabulary lists the supported type names, for error messages.
func Vocabulary() string {
	return "boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, decimal(P,S), string, binary, date, time, timestamp, json"
}

// Validate reports whether t is in the vocabulary.
func (t Type) Validate() error {
	switch t.Kind {
	case Bool, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64,
		Float32, Float64, String, Binary, Date, Time, Timestamp, JSON:
		return nil
	case Decimal:
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("%w: decimal(%d,%d): precision must be 1..38 and scale 0..precision", ErrUnsupportedType, t.Precision, t.Scale)
		}
		return nil
	default:
		return fmt.Errorf("%w: %q (supported: %s)", ErrUnsupportedType, string(t.Kind), Vocabulary())
	}
}

// Column is one column of a schema.
type Column struct {
	ID       int    `json:"id"` // stable field id, >= 1
	Name     string `json:"name"`
	Type     Type   `json:"type"`
	Nullable bool   `json:"nullable"`
	Comment  string `json:"comment,omitempty"`
	// SQLType is the MySQL type the column was declared with (for
	// example "varchar(30)"), kept so SQL clients see what they declared;
	// Type is how it is stored. Empty for columns defined from Arrow.
	SQLType string `json:"sql-type,omitempty"`
	// Default is the SQL text of the column's default, if any.
	Default string `json:"default,omitempty"`
	// PrimaryKey marks the columns of the declared primary key, and
	// KeySeq is the column's 1-based position in it (0 in documents
	// written before keys had an order: column order then). Writes keep
	// the key unique (see Schema.Key); key columns are NOT NULL.
	PrimaryKey bool `json:"primary-key,omitempty"`
	KeySeq     int  `json:"key-seq,omitempty"`
}

// Schema is an ordered list of columns with an id. Schemas are immutable
// once committed; evolution writes a new schema with a new id.
type Schema struct {
	ID      int      `json:"schema-id"`
	Columns []Column `json:"columns"`
}

// Column returns the column with the given name (case-insensitive, as MySQL
// compares column names) and whether it exists.
func (s *Schema) Column(name string) (Column, bool) {
	for _, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Column{}, false
}

// ByID returns the column with field id id.
func (s *Schema) ByID(id int) (Column, bool) {
	for _, c := range s.Columns {
		if c.ID == id {
			return c, true
		}
	}
	return Column{}, false
}

// Key returns the indexes of the primary-key columns in key order, or nil
// when the schema declares no key.
func (s *Schema) Key() []int {
	var key []int
	for i, c := range s.Columns {
		if c.PrimaryKey {
			key = append(key, i)
		}
	}
	// Stable: columns without a sequence keep column order.
	sort.SliceStable(key, func(a, b int) bool { return s.Columns[key[a]].KeySeq < s.Columns[key[b]].KeySeq })
	return key
}

// SetKey makes the named columns (in key order) the primary key, NOT
// NULL; no names drops the key. A name not in the schema, or named twice,
// is ErrBadColumn.
func (s *Schema) SetKey(names []string) error {
	seq := make([]int, len(s.Columns))
	for n, name := range names {
		found := false
		for i, c := range s.Columns {
			if strings.EqualFold(c.Name, name) {
				if seq[i] != 0 {
					return fmt.Errorf("%w: column %q named twice in the primary key", ErrBadColumn, name)
				}
				seq[i], found = n+1, true
			}
		}
		if !found {
			return fmt.Errorf("%w: primary key column %q does not exist", ErrBadColumn, name)
		}
	}
	for i := range s.Columns {
		c := &s.Columns[i]
		c.PrimaryKey, c.KeySeq = seq[i] > 0, seq[i]
		if c.PrimaryKey {
			c.Nullable = false
		}
	}
	return nil
}

// FieldIDs returns the columns' field ids, in column order.
func (s *Schema) FieldIDs() []int {
	ids := make([]int, len(s.Columns))
	for i, c := range s.Columns {
		ids[i] = c.ID
	}
	return ids
}

// MaxID returns the largest field id in the schema (0 when empty).
func (s *Schema) MaxID() int {
	m := 0
	for _, c := range s.Columns {
		m = max(m, c.ID)
	}
	return m
}
