package manifest

import (
	"bytes"
	"testing"
)

func TestDataFile_ColumnStats(t *testing.T) {
	f := &DataFile{
		RecordCount: 10, StatsState: StatsProvided, FieldIDs: []int{3, 7},
		ValueCounts: []int64{10, 10}, NullCounts: []int64{2, -1}, NaNCounts: []int64{0, 4},
		LowerBounds: [][]byte{{1}, nil}, UpperBounds: [][]byte{{9}, {8}}, BoundsExact: []bool{true, false},
	}
	st, ok := f.ColumnStats(3)
	if !ok || st.Missing || st.Values != 10 || st.Nulls != 2 || st.NaNs != 0 || !bytes.Equal(st.Lower, []byte{1}) || !bytes.Equal(st.Upper, []byte{9}) || !st.Exact {
		t.Fatalf("field 3: %+v, %v", st, ok)
	}
	if st, ok := f.ColumnStats(7); !ok || st.Nulls != -1 || st.NaNs != 4 || st.Lower != nil || st.Exact {
		t.Fatalf("field 7: %+v, %v", st, ok)
	}
	// A column added after the file was written: all NULL, no bounds.
	if st, ok := f.ColumnStats(9); !ok || !st.Missing || st.Values != 10 || st.Nulls != 10 || st.Lower != nil || st.Upper != nil {
		t.Fatalf("missing field: %+v, %v", st, ok)
	}
	if got := f.FieldIndex(7, 0); got != 1 {
		t.Fatalf("FieldIndex(7, hint 0) = %d", got)
	}
	if got := f.FieldIndex(7, 1); got != 1 {
		t.Fatalf("FieldIndex(7, hint 1) = %d", got)
	}
	// Counts a file does not record are unknown.
	bare := &DataFile{RecordCount: 5, StatsState: StatsProvided, FieldIDs: []int{3}}
	if st, ok := bare.ColumnStats(3); !ok || st.Values != -1 || st.Nulls != -1 || st.NaNs != -1 {
		t.Fatalf("bare: %+v, %v", st, ok)
	}
	// Pending stats say nothing, not even that a column is missing.
	pending := &DataFile{RecordCount: 5, StatsState: StatsPending}
	if _, ok := pending.ColumnStats(3); ok {
		t.Fatal("pending stats answered")
	}
}
