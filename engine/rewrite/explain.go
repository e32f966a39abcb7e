package rewrite

import (
	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/provider"
)

// VectorScan is a plan node that replaced a subtree with a vectorised
// pipeline over one table's column vectors. EXPLAIN shows the table's
// scan under it; the replaced subtree runs only when the pipeline falls
// back to the row path (and a vectorised join runs its build side
// through it).
type VectorScan interface {
	sql.Node
	// ScanTable is the table the pipeline reads vectorised.
	ScanTable() *provider.Table
	// Replaced is the row-path subtree the node stands for.
	Replaced() sql.Node
}

var (
	_ VectorScan = (*vectorAgg)(nil)
	_ VectorScan = (*vectorJoin)(nil)
	_ VectorScan = (*topNScan)(nil)
)

func (v *vectorAgg) ScanTable() *provider.Table  { return v.table }
func (v *vectorAgg) Replaced() sql.Node          { return v.rowPath }
func (v *vectorJoin) ScanTable() *provider.Table { return v.table }
func (v *vectorJoin) Replaced() sql.Node         { return v.orig }
func (v *topNScan) ScanTable() *provider.Table   { return v.table }
func (v *topNScan) Replaced() sql.Node           { return v.orig }
