package manifest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestDelta_RoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Delta
	}{
		{"adds-and-removes", Delta{Prev: "manifest-1-aa.parquet", Seq: 1, Added: sampleFiles(), Removed: []string{"ws/c/t-1/data/old.parquet", "ws/c/t-1/data/older.parquet"}}},
		{"adds-only", Delta{Prev: "delta-2-bb.parquet", Seq: 2, Added: sampleFiles()[:1]}},
		{"removes-only", Delta{Prev: "delta-3-cc.parquet", Seq: 7, Removed: []string{"x"}}},
		{"empty", Delta{Prev: "manifest-1-aa.parquet", Seq: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := EncodeDelta(&tc.d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeDelta(data, DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Prev != tc.d.Prev || got.Seq != tc.d.Seq || len(got.Added) != len(tc.d.Added) || !slices.Equal(got.Removed, tc.d.Removed) {
				t.Fatalf("decoded %+v, want %+v", got, tc.d)
			}
			for i := range tc.d.Added {
				if !reflect.DeepEqual(got.Added[i], tc.d.Added[i]) {
					t.Fatalf("entry %d: got %+v, want %+v", i, got.Added[i], tc.d.Added[i])
				}
			}
		})
	}
}

// TestDelta_KindsNeverMistaken: a delta read as a consolidated manifest,
// or a consolidated manifest read as a delta, is corrupt, never a list.
func TestDelta_KindsNeverMistaken(t *testing.T) {
	delta, err := EncodeDelta(&Delta{Prev: "m", Seq: 1, Added: sampleFiles(), Removed: []string{"gone"}})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Encode(sampleFiles())
	if err != nil {
		t.Fatal(err)
	}
	if files, err := Decode(delta); !IsCorrupt(err) {
		t.Errorf("Decode(delta) = %d entries, %v; want ErrCorrupt", len(files), err)
	}
	if _, err := DecodeDelta(full, DecodeOptions{}); !IsCorrupt(err) {
		t.Errorf("DecodeDelta(manifest) = %v; want ErrCorrupt", err)
	}
}

func TestDelta_DamageIsCorrupt(t *testing.T) {
	data, err := EncodeDelta(&Delta{Prev: "m", Seq: 1, Added: sampleFiles(), Removed: []string{"gone"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{4, len(data) / 3, len(data) / 2, len(data) - 20} {
		bad := slices.Clone(data)
		bad[at] ^= 0x40
		if _, err := DecodeDelta(bad, DecodeOptions{}); !IsCorrupt(err) {
			t.Errorf("byte %d flipped: %v, want ErrCorrupt", at, err)
		}
	}
}

func TestDelta_EncodeRefusesBadInput(t *testing.T) {
	for name, d := range map[string]Delta{
		"no-prev":      {Seq: 1},
		"no-seq":       {Prev: "m"},
		"empty-remove": {Prev: "m", Seq: 1, Removed: []string{""}},
		"bad-entry":    {Prev: "m", Seq: 1, Added: []DataFile{{Path: "p"}}},
	} {
		if _, err := EncodeDelta(&d); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestDelta_AddedBy(t *testing.T) {
	files := sampleFiles()
	files[0].AddedSnapshotID, files[1].AddedSnapshotID, files[2].AddedSnapshotID = 9, 4, 9
	data, err := EncodeDelta(&Delta{Prev: "m", Seq: 3, Added: files, Removed: []string{"r1", "r2"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeDelta(data, DecodeOptions{AddedBy: 9})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Added) != 2 || d.Added[0].Path != files[0].Path || d.Added[1].Path != files[2].Path {
		t.Fatalf("AddedBy 9 = %v", paths(d.Added))
	}
}

func paths(files []DataFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

func entry(p string, snap int64) DataFile {
	return DataFile{Path: p, Format: FormatParquet, RecordCount: 1, StatsState: StatsProvided, AddedSnapshotID: snap}
}

// TestApplyMerge_Random: over random histories, applying deltas one by
// one, applying their merges, and recomputing the list directly agree
// exactly (entries and order).
func TestApplyMerge_Random(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var live []DataFile
		var base []DataFile
		var deltas []*Delta
		next := 0
		for step := range 1 + rng.IntN(12) {
			d := &Delta{Prev: "p", Seq: step + 1}
			for _, f := range live {
				if rng.IntN(4) == 0 {
					d.Removed = append(d.Removed, f.Path)
				}
			}
			for range rng.IntN(4) {
				next++
				d.Added = append(d.Added, entry(fmt.Sprintf("f%d", next), int64(step+1)))
			}
			want := slices.DeleteFunc(slices.Clone(live), func(f DataFile) bool { return slices.Contains(d.Removed, f.Path) })
			want = append(want, d.Added...)
			got, err := Apply(live, d)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(paths(got), paths(want)) {
				t.Fatalf("round %d step %d: Apply = %v, want %v", round, step, paths(got), paths(want))
			}
			if step == 0 && rng.IntN(2) == 0 {
				base = got // a consolidated base; the chain starts after it
				deltas = nil
			} else {
				deltas = append(deltas, d)
			}
			live = got
		}
		// Merge every suffix of the chain into one delta: same list.
		for from := range deltas {
			merged := deltas[from]
			for _, d := range deltas[from+1:] {
				merged = Merge(merged, d)
			}
			l := base
			for _, d := range deltas[:from] {
				var err error
				if l, err = Apply(l, d); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Apply(l, merged)
			if err != nil {
				t.Fatalf("round %d: merged from %d: %v", round, from, err)
			}
			if !reflect.DeepEqual(paths(got), paths(live)) {
				t.Fatalf("round %d: merged from %d = %v, want %v", round, from, paths(got), paths(live))
			}
		}
	}
}

func TestApply_RefusesChainThatDoesNotFit(t *testing.T) {
	live := []DataFile{entry("a", 1), entry("b", 1)}
	if _, err := Apply(live, &Delta{Seq: 2, Removed: []string{"zz"}}); !IsCorrupt(err) {
		t.Errorf("removing a file that is not live: %v, want ErrCorrupt", err)
	}
	if _, err := Apply(live, &Delta{Seq: 2, Added: []DataFile{entry("a", 2)}}); !IsCorrupt(err) {
		t.Errorf("adding a live file: %v, want ErrCorrupt", err)
	}
	if len(live) != 2 || live[0].Path != "a" {
		t.Fatalf("Apply modified its input: %v", paths(live))
	}
}

// writeChain writes base and deltas (each over the previous link) to
// store and returns the chain.
func writeChain(t *testing.T, store *memStore, base []DataFile, deltas ...*Delta) Chain {
	t.Helper()
	ctx := context.Background()
	ch := Chain{Base: "t/metadata/manifest-1-aa.parquet"}
	if _, err := Write(ctx, store, ch.Base, base); err != nil {
		t.Fatal(err)
	}
	for i, d := range deltas {
		d.Seq, d.Prev = i+1, ch.prevName(i)
		key := fmt.Sprintf("t/metadata/delta-%d-bb.parquet", i+2)
		if _, err := WriteDelta(ctx, store, key, d); err != nil {
			t.Fatal(err)
		}
		ch.Deltas = append(ch.Deltas, key)
	}
	return ch
}

func TestCache_GetChain(t *testing.T) {
	ctx := context.Background()
	store := newMemStore()
	ch := writeChain(t, store, []DataFile{entry("a", 1), entry("b", 1)},
		&Delta{Added: []DataFile{entry("c", 2)}},
		&Delta{Removed: []string{"a"}, Added: []DataFile{entry("d", 3)}})
	want := []string{"b", "c", "d"}
	c := NewCache(0, 0)
	got, err := c.GetChain(ctx, store, ch)
	if err != nil || !slices.Equal(paths(got), want) {
		t.Fatalf("GetChain = %v, %v; want %v", paths(got), err, want)
	}
	// A longer chain starts from the cached prefix: one read for the new
	// delta.
	d3 := &Delta{Seq: 3, Prev: "delta-3-bb.parquet", Added: []DataFile{entry("e", 4)}}
	if _, err := WriteDelta(ctx, store, "t/metadata/delta-4-bb.parquet", d3); err != nil {
		t.Fatal(err)
	}
	longer := Chain{Base: ch.Base, Deltas: append(slices.Clone(ch.Deltas), "t/metadata/delta-4-bb.parquet")}
	before := store.gets.Load()
	got, err = c.GetChain(ctx, store, longer)
	if err != nil || !slices.Equal(paths(got), []string{"b", "c", "d", "e"}) {
		t.Fatalf("GetChain(longer) = %v, %v", paths(got), err)
	}
	if n := store.gets.Load() - before; n != 1 {
		t.Fatalf("the longer chain read %d objects, want 1 (its new delta)", n)
	}
	// A delta that absorbed the chain's deltas starts from the base, which
	// is cached: again one read.
	m := Merge(Merge(&Delta{Prev: "manifest-1-aa.parquet", Seq: 1, Added: []DataFile{entry("c", 2)}},
		&Delta{Removed: []string{"a"}, Added: []DataFile{entry("d", 3)}}), &Delta{Added: []DataFile{entry("f", 5)}})
	if _, err := WriteDelta(ctx, store, "t/metadata/delta-5-cc.parquet", m); err != nil {
		t.Fatal(err)
	}
	merged := Chain{Base: ch.Base, Deltas: []string{"t/metadata/delta-5-cc.parquet"}}
	before = store.gets.Load()
	got, err = c.GetChain(ctx, store, merged)
	if err != nil || !slices.Equal(paths(got), []string{"b", "c", "d", "f"}) {
		t.Fatalf("GetChain(merged) = %v, %v", paths(got), err)
	}
	if n := store.gets.Load() - before; n != 1 {
		t.Fatalf("the merged chain read %d objects, want 1 (its new delta)", n)
	}
	// The reader that bypasses caches agrees.
	rd := NewChainReader(store)
	for _, c := range []Chain{ch, longer, merged, {Base: ch.Base}} {
		a, err := rd.Live(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewCache(0, 0).GetChain(ctx, store, c)
		if err != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("ChainReader %v != Cache %v (%v)", paths(a), paths(b), err)
		}
	}
}

// TestChain_MiswiredIsCorrupt: deltas listed out of order, or a delta of
// another chain, are refused by name.
func TestChain_MiswiredIsCorrupt(t *testing.T) {
	ctx := context.Background()
	store := newMemStore()
	ch := writeChain(t, store, []DataFile{entry("a", 1)},
		&Delta{Added: []DataFile{entry("b", 2)}},
		&Delta{Added: []DataFile{entry("c", 3)}})
	for name, bad := range map[string]Chain{
		"swapped":   {Base: ch.Base, Deltas: []string{ch.Deltas[1], ch.Deltas[0]}},
		"skipped":   {Base: ch.Base, Deltas: []string{ch.Deltas[1]}},
		"wrongbase": {Base: "t/metadata/manifest-9-zz.parquet", Deltas: ch.Deltas},
	} {
		if name == "wrongbase" {
			if _, err := Write(ctx, store, bad.Base, []DataFile{entry("a", 1)}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := NewCache(0, 0).GetChain(ctx, store, bad)
		le, ok := IsLinkError(err)
		if !IsCorrupt(err) || !ok || le.Key == "" {
			t.Errorf("%s: %v, want a corrupt *LinkError", name, err)
		}
		if _, err := NewChainReader(store).Live(ctx, bad); !IsCorrupt(err) {
			t.Errorf("%s: ChainReader: %v, want ErrCorrupt", name, err)
		}
	}
}
