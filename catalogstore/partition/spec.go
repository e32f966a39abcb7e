package partition

import (
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// FirstFieldID is the id of a table's first partition field. Partition
// field ids count up from here, apart from the schema's column ids, and an
// equivalent field (same source, same transform) keeps its id across specs.
const FirstFieldID = 1000

// Field is one partition field: Transform applied to the column whose
// schema field id is SourceID.
type Field struct {
	SourceID  int       `json:"source-id"`
	FieldID   int       `json:"field-id"`
	Name      string    `json:"name"`
	Transform Transform `json:"transform"` // catalog spelling, e.g. "bucket[16]"
}

// Spec is a partition spec: the ordered partition fields of a dataset. A
// spec with no fields is unpartitioned. Specs are immutable once committed;
// ALTER TABLE … SET PARTITIONED BY writes a new spec with a new ID.
type Spec struct {
	ID     int     `json:"spec-id"`
	Fields []Field `json:"fields"`
}

// DefaultName is the partition field name Iceberg derives for transform t
// of column col: col for identity, col_bucket_N, col_trunc_W, col_year,
// col_month, col_day, col_hour, col_null for void.
func DefaultName(col string, t Transform) string {
	switch t.kind {
	case KindIdentity:
		return col
	case KindBucket:
		return fmt.Sprintf("%s_bucket_%d", col, t.param)
	case KindTruncate:
		return fmt.Sprintf("%s_trunc_%d", col, t.param)
	case KindVoid:
		return col + "_null"
	}
	return col + "_" + string(t.kind)
}

// Validate checks the spec against the schema s the spec is written for:
// every source column exists (ErrUnknownColumn), each transform is valid
// (ErrBadTransform) and accepts its source column's type (a
// *TransformTypeError, matching ErrTransformType), field ids are >= 1000
// and distinct, names are non-empty and distinct (case-insensitively, as
// column names compare), a name equals a column's only for identity of that
// column, and no column has the same transform twice (ErrBadSpec).
func (p Spec) Validate(s *schema.Schema) error {
	if p.ID < 0 {
		return fmt.Errorf("%w: spec-id %d is negative", ErrBadSpec, p.ID)
	}
	ids := map[int]bool{}
	names := map[string]bool{}
	type srcTransform struct {
		src int
		t   Transform
	}
	seen := map[srcTransform]string{}
	for _, f := range p.Fields {
		if f.FieldID < FirstFieldID {
			return fmt.Errorf("%w: partition field %q: field-id %d is below %d", ErrBadSpec, f.Name, f.FieldID, FirstFieldID)
		}
		if ids[f.FieldID] {
			return fmt.Errorf("%w: partition field %q: field-id %d is used twice", ErrBadSpec, f.Name, f.FieldID)
		}
		ids[f.FieldID] = true
		if strings.TrimSpace(f.Name) == "" {
			return fmt.Errorf("%w: partition field %d has no name", ErrBadSpec, f.FieldID)
		}
		lower := strings.ToLower(f.Name)
		if names[lower] {
			return fmt.Errorf("%w: partition field name %q is used twice", ErrBadSpec, f.Name)
		}
		names[lower] = true
		col, ok := s.ByID(f.SourceID)
		if !ok {
			return fmt.Errorf("%w: partition field %q: source-id %d is not a column of schema %d", ErrUnknownColumn, f.Name, f.SourceID, s.ID)
		}
		if err := f.Transform.check(col.Name, col.Type); err != nil {
			return fmt.Errorf("partition field %q: %w", f.Name, err)
		}
		if other, ok := s.Column(f.Name); ok && (other.ID != f.SourceID || f.Transform != Identity) {
			return fmt.Errorf("%w: partition field name %q hides column %q; only identity(%s) may use that name", ErrBadSpec, f.Name, other.Name, other.Name)
		}
		key := srcTransform{f.SourceID, f.Transform}
		if prev, dup := seen[key]; dup {
			return fmt.Errorf("%w: partition fields %q and %q are both %s(%s)", ErrBadSpec, prev, f.Name, f.Transform, col.Name)
		}
		seen[key] = f.Name
	}
	return nil
}
