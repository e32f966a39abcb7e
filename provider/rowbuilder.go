package provider

import (
	"github.com/lakesql/lakesql/arrowrow"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// RowBuilder appends GMS rows to an Arrow record of a catalog schema,
// converting values as INSERT does: the row codec's builder
// (arrowrow.Builder), kept under this name for plan nodes that hold rows
// in Arrow (a vectorised join's build side).
type RowBuilder = arrowrow.Builder

// NewRowBuilder returns a builder for rows of s, in column order.
func NewRowBuilder(s *schema.Schema) *RowBuilder { return arrowrow.NewBuilder(s) }
