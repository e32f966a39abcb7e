package provider

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// RowBuilder appends GMS rows to an Arrow record of a catalog schema,
// converting values as INSERT does: plan nodes that hold rows in Arrow
// (a vectorised join's build side) share the conversions of the write
// path.
type RowBuilder struct{ rb *rowBuilder }

// NewRowBuilder returns a builder for rows of s, in column order.
func NewRowBuilder(s *schema.Schema) *RowBuilder {
	return &RowBuilder{rb: newRowBuilder(s)}
}

// Append adds one row; a value that does not fit its column is an error.
func (b *RowBuilder) Append(row sql.Row) error { return b.rb.Append(row) }

// Len is the number of rows appended since the last Record.
func (b *RowBuilder) Len() int { return b.rb.Len() }

// Record returns the rows appended so far and resets the builder.
func (b *RowBuilder) Record() arrow.Record { return b.rb.Record() }

// Release frees the builder.
func (b *RowBuilder) Release() { b.rb.Release() }
