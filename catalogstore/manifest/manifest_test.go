package manifest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

var update = flag.Bool("update", false, "rewrite testdata fixtures")

func sp(s string) *string { return &s }

// sampleFiles covers every field, nil vs empty slices, nil vs empty
// bounds and partition values.
func sampleFiles() []DataFile {
	return []DataFile{
		{
			Path: "ws/c/t-1/data/a.parquet", Format: FormatParquet,
			RecordCount: 3, FileSize: 1234, UncompressedSize: 2345,
			SpecID: 1, PartitionValues: []*string{sp("2024-01-01"), nil, sp("")},
			RowIDStart: 100, StatsState: StatsProvided,
			AddedSnapshotID: 7, SequenceNumber: 3,
			FieldIDs:    []int{1, 2, 5},
			ValueCounts: []int64{3, 3, 3},
			NullCounts:  []int64{0, 1, 3},
			NaNCounts:   []int64{0, 0, -1},
			LowerBounds: [][]byte{{0x01, 0, 0, 0}, {}, nil},
			UpperBounds: [][]byte{{0x09, 0, 0, 0}, []byte("zz"), nil},
			BoundsExact: []bool{true, false, true},
			ColumnSizes: []int64{40, 50, 0},
		},
		{
			Path: "ws/c/t-1/data/b.parquet", Format: FormatParquet,
			RecordCount: 0, StatsState: StatsPending,
			PartitionValues: []*string{},
			FieldIDs:        []int{},
			ValueCounts:     []int64{},
			LowerBounds:     [][]byte{},
		},
		{
			Path: "ws/c/t-1/data/c.parquet", Format: FormatParquet,
			RecordCount: 10, FileSize: 99, StatsState: StatsFailed, StatsError: "footer unreadable",
			FieldIDs:    []int{3, 4},
			ColumnNames: []string{"x", ""},
			NullCounts:  []int64{-1, 10},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	for _, tc := range []struct {
		name  string
		files []DataFile
	}{
		{"sample", sampleFiles()},
		{"empty", []DataFile{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "m/" + tc.name + ".parquet"
			size, err := Write(ctx, st, key, tc.files)
			if err != nil {
				t.Fatal(err)
			}
			info, err := st.Stat(ctx, key)
			if err != nil || info.Size != size {
				t.Fatalf("Write size %d, stored %d (%v)", size, info.Size, err)
			}
			got, err := Read(ctx, st, key)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 && len(tc.files) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.files) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, tc.files)
			}
		})
	}
}

func TestRoundTrip_NilVersusEmptyBound(t *testing.T) {
	files := sampleFiles()[:1]
	data, err := Encode(files)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if b := got[0].LowerBounds[1]; b == nil || len(b) != 0 {
		t.Errorf("empty lower bound came back as %#v, want non-nil empty", b)
	}
	if got[0].LowerBounds[2] != nil || got[0].UpperBounds[2] != nil {
		t.Errorf("absent bounds came back as %#v, %#v", got[0].LowerBounds[2], got[0].UpperBounds[2])
	}
	if got[0].PartitionValues[1] != nil || got[0].PartitionValues[2] == nil || *got[0].PartitionValues[2] != "" {
		t.Errorf("partition values %#v", got[0].PartitionValues)
	}
}

func TestWrite_IfNotExists(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	if _, err := Write(ctx, st, "m.parquet", sampleFiles()); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(ctx, st, "m.parquet", nil); !errors.Is(err, blob.ErrExists) {
		t.Fatalf("second Write: %v, want ErrExists", err)
	}
}

func TestWrite_ErrInvalid(t *testing.T) {
	bad := map[string]func(*DataFile){
		"empty path":       func(f *DataFile) { f.Path = "" },
		"stats state":      func(f *DataFile) { f.StatsState = "" },
		"misaligned nulls": func(f *DataFile) { f.NullCounts = f.NullCounts[:2] },
		"misaligned bound": func(f *DataFile) { f.UpperBounds = append(f.UpperBounds, nil) },
		"duplicate id":     func(f *DataFile) { f.FieldIDs = []int{1, 1, 2} },
		"zero id":          func(f *DataFile) { f.FieldIDs = []int{0, 1, 2} },
		"duplicate among many": func(f *DataFile) {
			*f = DataFile{Path: f.Path, Format: f.Format, StatsState: f.StatsState}
			for id := 1; id <= 80; id++ {
				f.FieldIDs = append(f.FieldIDs, id)
			}
			f.FieldIDs[79] = 3
		},
	}
	for name, mutate := range bad {
		t.Run(name, func(t *testing.T) {
			st := newMemStore()
			files := sampleFiles()
			mutate(&files[0])
			if _, err := Write(context.Background(), st, "m.parquet", files); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Write: %v, want ErrInvalid", err)
			}
			if len(st.objs) != 0 {
				t.Fatal("refused Write stored an object")
			}
		})
	}
}

func TestRead_NotFoundIsNotCorrupt(t *testing.T) {
	_, err := Read(context.Background(), newMemStore(), "missing.parquet")
	if !errors.Is(err, blob.ErrNotFound) || IsCorrupt(err) {
		t.Fatalf("Read missing: %v", err)
	}
}

// TestRead_ErrCorrupt damages a valid manifest every way a byte can be
// damaged: each truncation and a flip of each byte. Every result must be
// ErrCorrupt or exactly the original entries (a flip in bytes nothing
// reads, such as the created_by string).
func TestRead_ErrCorrupt(t *testing.T) {
	want := sampleFiles()
	data, err := Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	// check reports whether b was refused as corrupt.
	check := func(t *testing.T, name string, b []byte) bool {
		got, err := Decode(b)
		if err != nil {
			if !IsCorrupt(err) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: error %v not marked corrupt", name, err)
			}
			return true
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoded a wrong answer: %#v", name, got)
		}
		return false
	}
	t.Run("truncated", func(t *testing.T) {
		for n := 0; n < len(data); n++ {
			b := data[:n]
			if _, err := Decode(b); !IsCorrupt(err) {
				t.Fatalf("truncated to %d bytes: %v, want ErrCorrupt", n, err)
			}
		}
	})
	t.Run("flipped", func(t *testing.T) {
		corrupt, tried, stride := 0, 0, 1
		if testing.Short() {
			stride = 7
		}
		for i := 0; i < len(data); i += stride {
			tried++
			b := bytes.Clone(data)
			b[i] ^= 0x5a
			if check(t, fmt.Sprintf("byte %d flipped", i), b) {
				corrupt++
			}
		}
		if corrupt < tried/2 {
			t.Fatalf("only %d of %d flips detected", corrupt, tried)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		for _, b := range [][]byte{nil, []byte("PAR1"), []byte("PAR1PAR1"), []byte("PAR1\x00\x00\x00\x00PAR1"), bytes.Repeat([]byte{0xff}, 100)} {
			if _, err := Decode(b); !IsCorrupt(err) {
				t.Fatalf("garbage %q: %v, want ErrCorrupt", b, err)
			}
		}
	})
	t.Run("via store", func(t *testing.T) {
		st := newMemStore()
		st.objs["m.parquet"] = data[:len(data)-3]
		if _, err := Read(context.Background(), st, "m.parquet"); !IsCorrupt(err) {
			t.Fatalf("Read truncated: %v, want ErrCorrupt", err)
		}
	})
}

func TestMarkCorrupt(t *testing.T) {
	cause := errors.New("boom")
	err := fmt.Errorf("read manifest x: %w", MarkCorrupt(cause))
	if !IsCorrupt(err) || !errors.Is(err, cause) {
		t.Fatalf("marked error %v: IsCorrupt %v, Is(cause) %v", err, IsCorrupt(err), errors.Is(err, cause))
	}
	if IsCorrupt(cause) || MarkCorrupt(nil) != nil {
		t.Fatal("unmarked error reports corrupt")
	}
}

func TestSummary(t *testing.T) {
	n, recs, size := Summary(sampleFiles())
	if n != 3 || recs != 13 || size != 1234+99 {
		t.Fatalf("Summary = %d, %d, %d", n, recs, size)
	}
	if n, recs, size := Summary(nil); n != 0 || recs != 0 || size != 0 {
		t.Fatalf("Summary(nil) = %d, %d, %d", n, recs, size)
	}
}

func TestCache_HitAndDedup(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	if _, err := Write(ctx, st, "m.parquet", sampleFiles()); err != nil {
		t.Fatal(err)
	}
	c := NewCache(10, 0)

	// Hold the first load inside Get until every caller has asked.
	const callers = 16
	release := make(chan struct{})
	st.getHook = func() { <-release }
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files, err := c.Get(ctx, st, "m.parquet")
			if err == nil && len(files) != 3 {
				err = fmt.Errorf("got %d files", len(files))
			}
			errs <- err
		}()
	}
	for st.gets.Load() == 0 {
		runtime.Gosched() // wait for the first load to start
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st.getHook = nil
	first := st.gets.Load()
	if first != 1 {
		t.Fatalf("%d concurrent callers caused %d reads, want 1", callers, first)
	}
	files, err := c.Get(ctx, st, "m.parquet")
	if err != nil || len(files) != 3 {
		t.Fatal(err)
	}
	if st.gets.Load() != first {
		t.Fatal("cache hit read the store")
	}
}

func TestCache_Eviction(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	for i := range 4 {
		if _, err := Write(ctx, st, fmt.Sprintf("m%d", i), sampleFiles()); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("entries", func(t *testing.T) {
		c := NewCache(2, 0)
		for i := range 4 {
			if _, err := c.Get(ctx, st, fmt.Sprintf("m%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		if c.Len() != 2 {
			t.Fatalf("Len %d, want 2", c.Len())
		}
		before := st.gets.Load()
		c.Get(ctx, st, "m3") // most recent: cached
		if st.gets.Load() != before {
			t.Fatal("m3 was evicted")
		}
		c.Get(ctx, st, "m0") // oldest: evicted
		if st.gets.Load() != before+1 {
			t.Fatal("m0 was not evicted")
		}
	})
	t.Run("bytes", func(t *testing.T) {
		one := EstimateSize(sampleFiles())
		c := NewCache(0, one*2+one/2)
		for i := range 4 {
			c.Get(ctx, st, fmt.Sprintf("m%d", i))
		}
		if c.Len() != 2 {
			t.Fatalf("Len %d, want 2", c.Len())
		}
		small := NewCache(0, one-1)
		if _, err := small.Get(ctx, st, "m0"); err != nil {
			t.Fatal(err)
		}
		if small.Len() != 0 {
			t.Fatal("an entry larger than the bound was cached")
		}
	})
}

func TestCache_ErrorsNotCached(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	c := NewCache(10, 0)
	if _, err := c.Get(ctx, st, "m"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	if _, err := Write(ctx, st, "m", sampleFiles()); err != nil {
		t.Fatal(err)
	}
	files, err := c.Get(ctx, st, "m")
	if err != nil || len(files) != 3 {
		t.Fatalf("Get after write: %d files, %v", len(files), err)
	}
}

func TestCache_ContextCancelled(t *testing.T) {
	st := newMemStore()
	if _, err := Write(context.Background(), st, "m", sampleFiles()); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	st.getHook = func() { <-release }
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewCache(1, 0).Get(ctx, st, "m"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with cancelled ctx: %v", err)
	}
}

// TestFuzzSeeds keeps testdata/fuzz/FuzzRead honest: the valid seeds must
// still decode (they are manifests written by earlier builds, so this also
// pins the formats: valid_small_manifest is version 1, valid_v2_manifest
// version 2), the truncated one must be corrupt. -update rewrites them (all
// as the current version).
func TestFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	valid, err := Encode(sampleFiles())
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string][]byte{
		"valid_small_manifest": valid,
		"valid_v2_manifest":    valid,
		"truncated_manifest":   valid[:len(valid)*2/3],
		"footer_only":          valid[len(valid)-64:],
	}
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range seeds {
			if err := os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range seeds {
		b, err := readSeed(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("seed %s: %v (run with -update)", name, err)
		}
		got, err := Decode(b)
		if strings.HasPrefix(name, "valid_") {
			if err != nil || !reflect.DeepEqual(got, sampleFiles()) {
				t.Fatalf("valid seed: %v", err)
			}
		} else if !IsCorrupt(err) {
			t.Fatalf("seed %s: %v, want ErrCorrupt", name, err)
		}
	}
}

func readSeed(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s string
	if _, err := fmt.Sscanf(string(bytes.TrimPrefix(raw, []byte("go test fuzz v1\n[]byte("))), "%q", &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

func FuzzRead(f *testing.F) {
	// Seeds live in testdata/fuzz/FuzzRead (see TestFuzzSeeds).
	st := newMemStore()
	f.Fuzz(func(t *testing.T, data []byte) {
		st.mu.Lock()
		st.objs["m"] = data
		st.mu.Unlock()
		files, err := Read(context.Background(), st, "m")
		if err != nil {
			if !IsCorrupt(err) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		for i := range files {
			if err := files[i].Validate(); err != nil {
				t.Fatalf("Read returned an invalid entry: %v", err)
			}
		}
	})
}
