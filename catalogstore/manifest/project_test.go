package manifest

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// project is the reference projection: a full decode, then fields of
// unselected parts set to nil and per-column arrays filtered by field id.
func project(files []DataFile, opts DecodeOptions) []DataFile {
	p := opts.parts()
	out := make([]DataFile, len(files))
	for i, f := range files {
		if p&PartPartitionValues == 0 {
			f.PartitionValues = nil
		}
		if p&PartValueCounts == 0 {
			f.ValueCounts = nil
		}
		if p&PartNullCounts == 0 {
			f.NullCounts = nil
		}
		if p&PartNaNCounts == 0 {
			f.NaNCounts = nil
		}
		if p&PartBounds == 0 {
			f.LowerBounds, f.UpperBounds, f.BoundsExact = nil, nil, nil
		}
		if p&PartColumnSizes == 0 {
			f.ColumnSizes = nil
		}
		if p&PartColumnNames == 0 {
			f.ColumnNames = nil
		}
		if opts.FieldIDs != nil && f.FieldIDs != nil {
			var keep []int
			for k, id := range f.FieldIDs {
				if slices.Contains(opts.FieldIDs, id) {
					keep = append(keep, k)
				}
			}
			f.FieldIDs = pick(f.FieldIDs, keep)
			f.ValueCounts = pick(f.ValueCounts, keep)
			f.NullCounts = pick(f.NullCounts, keep)
			f.NaNCounts = pick(f.NaNCounts, keep)
			f.LowerBounds = pick(f.LowerBounds, keep)
			f.UpperBounds = pick(f.UpperBounds, keep)
			f.BoundsExact = pick(f.BoundsExact, keep)
			f.ColumnSizes = pick(f.ColumnSizes, keep)
			f.ColumnNames = pick(f.ColumnNames, keep)
		}
		out[i] = f
	}
	return out
}

func pick[E any](s []E, keep []int) []E {
	if s == nil {
		return nil
	}
	out := make([]E, 0, len(keep))
	for _, k := range keep {
		out = append(out, s[k])
	}
	return out
}

func TestDecodeWith_ProjectionMatchesFullDecode(t *testing.T) {
	files := append(sampleFiles(), benchFiles(40)...)
	data, err := Encode(files)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := readSeed(filepath.Join("testdata", "fuzz", "FuzzRead", "valid_small_manifest"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts DecodeOptions
	}{
		{"all", DecodeOptions{}},
		{"plan parts", DecodeOptions{Parts: PlanParts}},
		{"bounds only", DecodeOptions{Parts: PartBounds}},
		{"names and sizes", DecodeOptions{Parts: PartColumnNames | PartColumnSizes}},
		{"field 2 and 11", DecodeOptions{FieldIDs: []int{11, 2}}},
		{"field 5 bounds", DecodeOptions{Parts: PartBounds | PartNullCounts, FieldIDs: []int{5}}},
		{"no field", DecodeOptions{Parts: PlanParts, FieldIDs: []int{}}},
		{"unknown field", DecodeOptions{FieldIDs: []int{99}}},
	} {
		for _, src := range []struct {
			name string
			data []byte
		}{{"v2", data}, {"v1 seed", v1}} {
			t.Run(tc.name+"/"+src.name, func(t *testing.T) {
				full, err := Decode(src.data)
				if err != nil {
					t.Fatal(err)
				}
				got, err := DecodeWith(src.data, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				if want := project(full, tc.opts); !reflect.DeepEqual(got, want) {
					t.Fatalf("DecodeWith(%+v):\n got %#v\nwant %#v", tc.opts, got[:min(2, len(got))], want[:min(2, len(want))])
				}
			})
		}
	}
	if got, err := Decode(data); err != nil || !reflect.DeepEqual(got, files) {
		t.Fatalf("full decode differs from what was encoded (%v)", err)
	}
}

// TestDecode_EntriesDoNotAlias checks the arena-backed slices are capped:
// appending to one entry's array must not change the next entry's.
func TestDecode_EntriesDoNotAlias(t *testing.T) {
	data, err := Encode(benchFiles(3))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(got[1].NullCounts)
	_ = append(got[0].NullCounts, 12345)
	_ = append(got[0].LowerBounds, []byte("x"))
	_ = append(got[0].LowerBounds[0], 0xee)
	if !reflect.DeepEqual(got[1].NullCounts, want) || !reflect.DeepEqual(got[1].LowerBounds, benchFiles(3)[1].LowerBounds) {
		t.Fatal("appending to one entry's slices changed another's")
	}
}
