package provider

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// SQLType returns the GMS type a catalog column reads as. A column declared
// through SQL keeps its declared MySQL type when that type stores the same
// way; otherwise the type follows from the storage type (DESIGN.md
// "Types": timestamps are DATETIME(6) in UTC, unsigned ints and decimals
// keep their width).
func SQLType(col schema.Column) sql.Type {
	if col.SQLType != "" {
		if t, err := planbuilder.ParseColumnTypeString(col.SQLType); err == nil {
			if ct, _, err := CatalogType(t); err == nil && ct == col.Type {
				return withDefaultCollation(t)
			}
		}
	}
	return defaultSQLType(col.Type)
}

// withDefaultCollation gives a string type parsed from its text (which
// leaves the collation unspecified) the server's default collation: GMS
// compares and LIKE-matches only with a concrete one.
func withDefaultCollation(t sql.Type) sql.Type {
	st, ok := t.(sql.StringType)
	if !ok || st.Collation() != sql.Collation_Unspecified {
		return t
	}
	out, err := types.CreateString(st.Type(), st.MaxCharacterLength(), sql.Collation_Default)
	if err != nil {
		return t
	}
	return out
}

func defaultSQLType(t schema.Type) sql.Type {
	switch t.Kind {
	case schema.Bool:
		return types.Boolean
	case schema.Int8:
		return types.Int8
	case schema.Int16:
		return types.Int16
	case schema.Int32:
		return types.Int32
	case schema.Int64:
		return types.Int64
	case schema.Uint8:
		return types.Uint8
	case schema.Uint16:
		return types.Uint16
	case schema.Uint32:
		return types.Uint32
	case schema.Uint64:
		return types.Uint64
	case schema.Float32:
		return types.Float32
	case schema.Float64:
		return types.Float64
	case schema.Decimal:
		return types.MustCreateDecimalType(uint8(t.Precision), uint8(t.Scale))
	case schema.String:
		return types.LongText
	case schema.Binary:
		return types.LongBlob
	case schema.Date:
		return types.Date
	case schema.Time:
		return types.Time
	case schema.Timestamp:
		return types.DatetimeMaxPrecision
	case schema.JSON:
		return types.JSON
	}
	return types.LongText
}

// CatalogType maps a MySQL column type to the catalog vocabulary and the
// declared type text to keep. Types the vocabulary lacks (ENUM, SET, BIT,
// YEAR, spatial types) are refused by name.
func CatalogType(t sql.Type) (schema.Type, string, error) {
	text := strings.ToLower(t.String())
	refuse := func() (schema.Type, string, error) {
		return schema.Type{}, "", fmt.Errorf("%w: MySQL type %s is not supported (supported: BOOLEAN, TINYINT..BIGINT [UNSIGNED], FLOAT, DOUBLE, DECIMAL(p,s), CHAR/VARCHAR/TEXT, BINARY/VARBINARY/BLOB, DATE, TIME, DATETIME/TIMESTAMP, JSON)",
			schema.ErrUnsupportedType, t.String())
	}
	switch t.Type() {
	case sqltypes.Int8:
		if nt, ok := t.(sql.NumberType); ok && types.IsBoolean(t) || (ok && nt.DisplayWidth() == 1) {
			return schema.Type{Kind: schema.Bool}, text, nil
		}
		return schema.Type{Kind: schema.Int8}, text, nil
	case sqltypes.Int16:
		return schema.Type{Kind: schema.Int16}, text, nil
	case sqltypes.Int24, sqltypes.Int32:
		return schema.Type{Kind: schema.Int32}, text, nil
	case sqltypes.Int64:
		return schema.Type{Kind: schema.Int64}, text, nil
	case sqltypes.Uint8:
		return schema.Type{Kind: schema.Uint8}, text, nil
	case sqltypes.Uint16:
		return schema.Type{Kind: schema.Uint16}, text, nil
	case sqltypes.Uint24, sqltypes.Uint32:
		return schema.Type{Kind: schema.Uint32}, text, nil
	case sqltypes.Uint64:
		return schema.Type{Kind: schema.Uint64}, text, nil
	case sqltypes.Float32:
		return schema.Type{Kind: schema.Float32}, text, nil
	case sqltypes.Float64:
		return schema.Type{Kind: schema.Float64}, text, nil
	case sqltypes.Decimal:
		dt := t.(sql.DecimalType)
		return schema.Type{Kind: schema.Decimal, Precision: int(dt.Precision()), Scale: int(dt.Scale())}, text, nil
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text:
		return schema.Type{Kind: schema.String}, text, nil
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		return schema.Type{Kind: schema.Binary}, text, nil
	case sqltypes.Date:
		return schema.Type{Kind: schema.Date}, text, nil
	case sqltypes.Time:
		return schema.Type{Kind: schema.Time}, text, nil
	case sqltypes.Datetime, sqltypes.Timestamp:
		return schema.Type{Kind: schema.Timestamp}, text, nil
	case sqltypes.TypeJSON:
		return schema.Type{Kind: schema.JSON}, text, nil
	}
	return refuse()
}

// columnsFromSQL converts a CREATE TABLE schema into catalog columns.
func columnsFromSQL(s sql.Schema) ([]schema.Column, error) {
	cols := make([]schema.Column, 0, len(s))
	for _, c := range s {
		if err := catalogstore.CheckColumnName(c.Name); err != nil {
			return nil, err
		}
		col, err := columnFromSQL(c)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return cols, nil
}

func columnFromSQL(c *sql.Column) (schema.Column, error) {
	if c.Generated != nil || c.Virtual {
		return schema.Column{}, fmt.Errorf("%w: column %q: generated columns are not supported", catalogstore.ErrNotSupported, c.Name)
	}
	if c.AutoIncrement {
		return schema.Column{}, fmt.Errorf("%w: column %q: AUTO_INCREMENT is not supported by lakehouse tables", catalogstore.ErrNotSupported, c.Name)
	}
	t, text, err := CatalogType(c.Type)
	if err != nil {
		return schema.Column{}, fmt.Errorf("column %q: %w", c.Name, err)
	}
	col := schema.Column{Name: c.Name, Type: t, Nullable: c.Nullable, Comment: c.Comment, SQLType: text, PrimaryKey: c.PrimaryKey}
	if c.Default != nil {
		col.Default = c.Default.String()
	}
	return col, nil
}

// sqlSchema builds the GMS schema of a catalog schema for table source.
func sqlSchema(ctx *sql.Context, s *schema.Schema, source, db string) sql.Schema {
	out := make(sql.Schema, len(s.Columns))
	for i, c := range s.Columns {
		col := &sql.Column{
			Name: c.Name, Type: SQLType(c), Nullable: c.Nullable, Source: source, DatabaseSource: db,
			Comment: c.Comment, PrimaryKey: c.PrimaryKey,
		}
		if c.Default != "" {
			// Resolved by GMS's planner where it is used (INSERT, SHOW
			// CREATE TABLE), as for any stored default.
			col.Default = sql.NewUnresolvedColumnDefaultValue(c.Default)
		}
		out[i] = col
	}
	return out
}

// queryType is a helper for tests and metadata: the wire type of a column.
func queryType(c schema.Column) query.Type { return SQLType(c).Type() }

// ColumnsOfCreate converts the schema of an analysed CREATE TABLE (a
// CREATE TABLE … AS SELECT's, for a materialized view created with a
// CTAS's columns) into catalog columns, as CreateTable does.
func ColumnsOfCreate(s sql.PrimaryKeySchema) ([]schema.Column, error) {
	cols, err := columnsFromSQL(s.Schema)
	if err != nil {
		return nil, err
	}
	for n, ord := range s.PkOrdinals {
		cols[ord].PrimaryKey, cols[ord].KeySeq = true, n+1
	}
	return cols, nil
}
