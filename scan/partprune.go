package scan

import (
	"bytes"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/partition"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

const dayMicros = 86400 * 1e6

// partitionMightMatch prunes by a file's partition values: each predicate
// on a partition source column is projected onto the partition value
// (partition.Field.Project) and compared with the file's value. Files
// without partition values, or of a spec not given, are kept.
func partitionMightMatch(f *manifest.DataFile, specs []partition.Spec, preds []Predicate) bool {
	if len(f.PartitionValues) == 0 {
		return true
	}
	var spec *partition.Spec
	for i := range specs {
		if specs[i].ID == f.SpecID {
			spec = &specs[i]
		}
	}
	if spec == nil || len(spec.Fields) != len(f.PartitionValues) {
		return true
	}
	for _, p := range preds {
		for i, fld := range spec.Fields {
			if fld.SourceID != p.FieldID {
				continue
			}
			if !fieldMightMatch(fld, p, f.PartitionValues[i]) {
				return false
			}
		}
	}
	return true
}

func fieldMightMatch(fld partition.Field, p Predicate, pv *string) bool {
	void := fld.Transform.Kind() == partition.KindVoid
	switch p.Op {
	case OpIsNull:
		// Every transform but void maps only null to null.
		return void || pv == nil
	case OpNotNull:
		return void || pv != nil
	}
	if pv == nil {
		return void // a null source value satisfies no comparison
	}
	got, err := fld.Transform.FromString(p.Type, pv)
	if err != nil {
		return true
	}
	op := map[Op]string{OpEq: "=", OpIn: "=", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">="}[p.Op]
	for _, v := range p.Values {
		src, ok := partitionLiteral(p.Type, v)
		if !ok {
			return true
		}
		ok, op2, want := fld.Project(p.Type, op, src)
		if !ok {
			return true
		}
		c, ok := cmpPartition(got, want)
		if !ok {
			return true
		}
		match := false
		switch op2 {
		case "=":
			match = c == 0
		case "<=":
			match = c <= 0
		case ">=":
			match = c >= 0
		case "<":
			match = c < 0
		case ">":
			match = c > 0
		}
		if match {
			return true
		}
	}
	return false
}

// partitionLiteral converts a predicate value from the comparison domain
// (see literalValue) to the partition package's representation, when that
// is exact.
func partitionLiteral(t schema.Type, v any) (any, bool) {
	switch t.Kind {
	case schema.Date:
		us, ok := v.(int64)
		if !ok || us%dayMicros != 0 {
			return nil, false // a time of day on a date column: no exact day
		}
		return int32(us / dayMicros), true
	case schema.Timestamp:
		us, ok := v.(int64)
		return us, ok
	case schema.Decimal:
		d, ok := v.(decimal.Decimal)
		if !ok {
			return nil, false
		}
		scaled := d.Shift(int32(t.Scale))
		if !scaled.Equal(scaled.Truncate(0)) {
			return nil, false
		}
		return partition.Decimal{Unscaled: scaled.BigInt(), Scale: t.Scale}, true
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint8, schema.Uint16, schema.Uint32:
		i, ok := v.(int64)
		return i, ok
	case schema.String, schema.JSON:
		s, ok := v.(string)
		return s, ok
	}
	return nil, false
}

// cmpPartition orders two partition-representation values of one type.
func cmpPartition(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmpOrdered(x, y), true
		case int32:
			return cmpOrdered(x, int64(y)), true
		}
	case int32:
		switch y := b.(type) {
		case int32:
			return cmpOrdered(int64(x), int64(y)), true
		case int64:
			return cmpOrdered(int64(x), y), true
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmpOrdered(x, y), true
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), true
		}
	case partition.Decimal:
		if y, ok := b.(partition.Decimal); ok && x.Scale == y.Scale {
			return x.Unscaled.Cmp(y.Unscaled), true
		}
	case *big.Int:
		if y, ok := b.(*big.Int); ok {
			return x.Cmp(y), true
		}
	}
	return 0, false
}
