package main

import (
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
	"github.com/lakesql/lakesql/scan"
)

// planResult is the planning benchmark's outcome.
type planResult struct {
	files        int
	manifestSize int
	decodeMS     float64 // manifest.Decode of the encoded manifest, median
	decodePlanMS float64 // manifest.DecodeWith(PlanParts): what pruning reads, median
	coldMS       float64 // scan.Predicates + scan.Prune (builds the predicate column's bounds), median
	pruneMS      float64 // scan.Predicates + Pruner.Prune with the manifest's bounds cached, as repeated plans run, median
	kept, want   int     // files kept, files whose bounds overlap the range
}

// planBench builds a manifest of n lineitem files with bounds on every
// column (l_shipdate ranges ascending, as a table sorted by it has) and
// times pruning it by a one-month l_shipdate range.
func planBench(n, reps int) (planResult, error) {
	s := lineitemSchema()
	for i := range s.Columns {
		s.Columns[i].ID = i + 1
	}
	files := lineitemFiles(&s, n)
	data, err := manifest.Encode(files)
	if err != nil {
		return planResult{}, err
	}
	res := planResult{files: n, manifestSize: len(data)}
	var dec, decPlan []float64
	for range max(3, reps/10) {
		t0 := time.Now()
		got, err := manifest.Decode(data)
		if err != nil {
			return res, err
		}
		dec = append(dec, ms(time.Since(t0)))
		if len(got) != n {
			return res, fmt.Errorf("manifest decode: %d files, want %d", len(got), n)
		}
		t0 = time.Now()
		got, err = manifest.DecodeWith(data, manifest.DecodeOptions{Parts: manifest.PlanParts})
		if err != nil {
			return res, err
		}
		decPlan = append(decPlan, ms(time.Since(t0)))
		if len(got) != n {
			return res, fmt.Errorf("manifest projected decode: %d files, want %d", len(got), n)
		}
	}
	res.decodePlanMS = median(decPlan)
	res.decodeMS = median(dec)

	from := time.Date(1995, 3, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(1995, 4, 1, 0, 0, 0, 0, time.UTC)
	gf := expression.NewGetField(10, types.Date, "l_shipdate", true)
	filter := expression.NewAnd(
		expression.NewGreaterThanOrEqual(gf, expression.NewLiteral(from, types.Date)),
		expression.NewLessThan(gf, expression.NewLiteral(to, types.Date)))
	fromD, toD := int32(from.Unix()/86400), int32(to.Unix()/86400)
	for i := range files { // files whose l_shipdate bounds overlap [from, to)
		lo, _ := datafile.DecodeBound(tDate, files[i].LowerBounds[10])
		hi, _ := datafile.DecodeBound(tDate, files[i].UpperBounds[10])
		if lo.(int32) < toD && hi.(int32) >= fromD {
			res.want++
		}
	}
	// Cold: every plan builds the l_shipdate column's bounds (scan.Prune).
	var cold, prune []float64
	for range reps {
		t0 := time.Now()
		preds := scan.Predicates(&s, []sql.Expression{filter})
		kept := scan.Prune(files, []partition.Spec{{}}, preds)
		cold = append(cold, ms(time.Since(t0)))
		if len(kept) < res.want {
			return res, fmt.Errorf("scan.Prune kept %d of %d files, but %d overlap the range: it dropped files that may match", len(kept), n, res.want)
		}
	}
	res.coldMS = median(cold)
	// Warm: the provider's Pruner keeps the bounds by manifest path.
	pr := scan.NewPruner(scan.DefaultPrunerBytes)
	pr.Prune(manifestKey, files, []partition.Spec{{}}, scan.Predicates(&s, []sql.Expression{filter}))
	for range reps {
		t0 := time.Now()
		preds := scan.Predicates(&s, []sql.Expression{filter})
		kept := pr.Prune(manifestKey, files, []partition.Spec{{}}, preds)
		prune = append(prune, ms(time.Since(t0)))
		res.kept = len(kept)
	}
	res.pruneMS = median(prune)
	if res.kept < res.want {
		return res, fmt.Errorf("scan.Prune kept %d of %d files, but %d overlap the range: it dropped files that may match", res.kept, n, res.want)
	}
	return res, nil
}

// manifestKey names the benchmark's manifest in the Pruner.
const manifestKey = "ws/bench/lineitem/metadata/manifest-1-bench.parquet"

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// lineitemFiles describes n lineitem data files of s (field ids set) with
// bounds on every column, l_shipdate ranges ascending as in a table
// sorted by it. Nothing is written: planning and Iceberg export read only
// the manifest.
func lineitemFiles(s *schema.Schema, n int) []manifest.DataFile {
	span := int64(endDate - startDate)
	files := make([]manifest.DataFile, n)
	bound := func(t schema.Type, v any) []byte {
		b, err := datafile.EncodeBound(t, v)
		if err != nil {
			panic(err)
		}
		return b
	}
	for i := range files {
		lo := startDate + int32(int64(i)*span/int64(n))
		hi := startDate + int32(int64(i+1)*span/int64(n))
		f := manifest.DataFile{
			Path: fmt.Sprintf("ws/bench/lineitem/data/%08d.parquet", i), Format: "parquet",
			RecordCount: 60_000, FileSize: 4 << 20, UncompressedSize: 9 << 20,
			StatsState: manifest.StatsProvided, SequenceNumber: 1, AddedSnapshotID: 1,
			RowIDStart: int64(i) * 60_000,
		}
		for j, c := range s.Columns {
			var l, u []byte
			switch c.Type.Kind {
			case schema.Int64:
				l, u = bound(c.Type, int64(i)*1000), bound(c.Type, int64(i)*1000+999_999)
			case schema.Int32:
				l, u = bound(c.Type, int64(1)), bound(c.Type, int64(7))
			case schema.Decimal:
				l, u = bound(c.Type, big.NewInt(0)), bound(c.Type, big.NewInt(int64(10_000_000+i)))
			case schema.Date:
				l, u = bound(c.Type, lo+int32(j-10)), bound(c.Type, hi+int32(j-10)*30)
			case schema.String:
				l, u = bound(c.Type, "A"), bound(c.Type, "zzzz")
			}
			f.FieldIDs = append(f.FieldIDs, c.ID)
			f.ValueCounts = append(f.ValueCounts, 60_000)
			f.NullCounts = append(f.NullCounts, 0)
			f.NaNCounts = append(f.NaNCounts, 0)
			f.LowerBounds = append(f.LowerBounds, l)
			f.UpperBounds = append(f.UpperBounds, u)
			f.BoundsExact = append(f.BoundsExact, true)
			f.ColumnSizes = append(f.ColumnSizes, 200_000)
		}
		files[i] = f
	}
	return files
}
