package manifest

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// selectAddedBy returns the decoded columns (nil stays nil) cut down to
// the rows whose added_snapshot_id is snap, copied into compact arrays so
// that turning them into entries costs only those rows (a sliced list
// would still carry its whole child array). The rows are found as runs of
// consecutive matches: an append's files are usually one run.
func selectAddedBy(cols []arrow.Array, mem memory.Allocator, snap int64) ([]arrow.Array, func(), error) {
	ids, ok := cols[colAddedSnapshotID].(*array.Int64)
	if !ok {
		return nil, nil, errors.New("added_snapshot_id: unexpected column type")
	}
	type run struct{ start, end int64 }
	var runs []run
	for i, v := range ids.Int64Values() {
		if v != snap {
			continue
		}
		if k := len(runs) - 1; k >= 0 && runs[k].end == int64(i) {
			runs[k].end++
		} else {
			runs = append(runs, run{int64(i), int64(i) + 1})
		}
	}
	out := make([]arrow.Array, len(cols))
	release := func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}
	for c, a := range cols {
		if a == nil {
			continue
		}
		if len(runs) == 0 {
			out[c] = array.MakeArrayOfNull(mem, a.DataType(), 0)
			continue
		}
		parts := make([]arrow.Array, len(runs))
		for k, r := range runs {
			parts[k] = array.NewSlice(a, r.start, r.end)
		}
		sel, err := array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			release()
			return nil, nil, err
		}
		out[c] = sel
	}
	return out, release, nil
}
