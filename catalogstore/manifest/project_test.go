package manifest

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// project is the reference projection: a full decode, then the entries
// AddedBy selects, fields of unselected parts set to nil and per-column
// arrays filtered by field id.
func project(files []DataFile, opts DecodeOptions) []DataFile {
	p := opts.parts()
	out := make([]DataFile, 0, len(files))
	for _, f := range files {
		if opts.AddedBy != 0 && f.AddedSnapshotID != opts.AddedBy {
			continue
		}
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
		out = append(out, f)
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
	for i := range files {
		switch {
		case i%7 == 3 || i%7 == 4 || i == len(files)-1:
			files[i].AddedSnapshotID = 7 // runs of two, and the last entry
		case i >= 20 && i < 30:
			files[i].AddedSnapshotID = 8 // one run in the middle
		}
	}
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
		{"added by 7", DecodeOptions{AddedBy: 7}},
		{"added by 8, plan parts of field 3", DecodeOptions{AddedBy: 8, Parts: PlanParts, FieldIDs: []int{3}}},
		{"added by none", DecodeOptions{AddedBy: 424242}},
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

// TestDecodeWith_AddedByAcrossRowGroups checks a manifest of several row
// groups: AddedBy reads only the groups holding the snapshot's entries and
// still returns exactly those entries, in order, like a filtered full
// decode.
func TestDecodeWith_AddedByAcrossRowGroups(t *testing.T) {
	files := benchFiles(3*rowGroupRows + 5)
	for _, i := range []int{0, 1, rowGroupRows - 1, rowGroupRows, 3*rowGroupRows + 4} {
		files[i].AddedSnapshotID = 9
	}
	data, err := Encode(files)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(full, files) {
		t.Fatal("full decode of a multi row group manifest differs from what was encoded")
	}
	for _, opts := range []DecodeOptions{{AddedBy: 9}, {AddedBy: 9, Parts: PartBounds, FieldIDs: []int{4}}, {AddedBy: 1}, {AddedBy: 10}} {
		got, err := DecodeWith(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := project(full, opts); !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeWith(%+v): %d entries, want %d (or different content)", opts, len(got), len(want))
		}
	}
}
