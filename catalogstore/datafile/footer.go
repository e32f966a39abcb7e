package datafile

import (
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// chunkStats is what a column chunk's footer statistics actually hold,
// read from the Thrift struct: arrow-go's TypedStatistics report HasMinMax
// when either end is set and return a zero value for the missing one (a
// writer drops a min or max larger than its size limit on its own), so the
// ends must be checked one by one.
type chunkStats struct {
	minOK, maxOK bool  // set, and exact when the writer says
	nanCount     int64 // -1 unknown (most writers do not record it)
}

func chunkStatsOf(md *metadata.FileMetaData, rg, leaf int) chunkStats {
	cs := chunkStats{nanCount: -1}
	if md.FileMetaData == nil || rg >= len(md.FileMetaData.RowGroups) {
		return cs
	}
	cols := md.FileMetaData.RowGroups[rg].Columns
	if leaf >= len(cols) || cols[leaf] == nil || cols[leaf].MetaData == nil || cols[leaf].MetaData.Statistics == nil {
		return cs
	}
	st := cols[leaf].MetaData.Statistics
	if md.Schema.Column(leaf).ColumnOrder() == parquet.ColumnOrders.TypeDefinedOrder {
		cs.minOK, cs.maxOK = st.IsSetMinValue(), st.IsSetMaxValue()
	} else {
		cs.minOK, cs.maxOK = st.IsSetMin(), st.IsSetMax()
	}
	// A truncated (inexact) end is still a bound, but lakesql only records
	// exact ones: MIN/MAX are answered from bounds.
	if st.IsSetIsMinValueExact() && !st.GetIsMinValueExact() {
		cs.minOK = false
	}
	if st.IsSetIsMaxValueExact() && !st.GetIsMaxValueExact() {
		cs.maxOK = false
	}
	if st.IsSetNanCount() {
		cs.nanCount = st.GetNanCount()
	}
	return cs
}
