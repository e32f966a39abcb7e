package maintenance

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/catalogstore"
)

func TestVerify_HealthyDatasetHasNoFindings(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	est := smallFiles(t, e, ds, 4, 20)
	if _, err := Compact(ctx, e.cat, ds, sizes(est, 20)); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(ctx, e.cat, ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || res.Snapshots != 5 || res.Manifests != 5 || res.Files != 5 {
		t.Fatalf("%+v", res)
	}
	if len(e.alertsSeen()) != 0 {
		t.Fatalf("alerts %v", e.alertsSeen())
	}
}

func TestVerify_ReportsEachInconsistencyAsAlertable(t *testing.T) {
	e := newEnv(t, consolidated) // damages one snapshot's manifest only
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	first := e.appendIDs(t, ds, 1, 2)
	second := e.appendIDs(t, ds, 3, 4)
	e.appendIDs(t, ds, 5, 6)
	files := e.liveFiles(t, ds)
	id := ds.Ident()
	// 1. A missing data file, 2. one of another size.
	if err := e.b.Delete(ctx, files[0].Path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.b.LocalPath(files[1].Path), []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 3. An unreadable manifest.
	if err := os.WriteFile(e.b.LocalPath(first.ManifestPath), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 4. A summary that disagrees with its manifest.
	sum := second.Summary
	sum.TotalRecords = 99
	if err := e.m.Merge(ctx, catalogstore.SnapshotDocPath(ds, second.ID), map[string]any{"summary": map[string]any{
		"total-files": sum.TotalFiles, "total-records": sum.TotalRecords, "total-bytes": sum.TotalBytes}}); err != nil {
		t.Fatal(err)
	}
	// 5. Dataset totals that disagree with the head.
	if err := e.m.Merge(ctx, catalogstore.DatasetDocPath(id), map[string]any{"current-records": int64(1)}); err != nil {
		t.Fatal(err)
	}
	res, err := Verify(ctx, e.cat, ds)
	if err != nil {
		t.Fatal(err)
	}
	var checks []string
	for _, f := range res.Findings {
		checks = append(checks, f.Check)
		if !catalogstore.IsAlertable(f.Err) || f.Detail == "" {
			t.Fatalf("finding %+v is not an alertable, explained error", f)
		}
	}
	sort.Strings(checks)
	want := []string{CheckDatasetTotals, CheckFileExists, CheckFileSize, CheckManifestReadable, CheckSummary}
	if len(checks) != len(want) {
		t.Fatalf("findings %v, want %v", checks, want)
	}
	for i := range want {
		if checks[i] != want[i] {
			t.Fatalf("findings %v, want %v", checks, want)
		}
	}
	if n := len(e.alertsSeen()); n != len(want) {
		t.Fatalf("%d alerts, want %d", n, len(want))
	}
}

// flipByte flips one byte in the middle of a local object, keeping its
// size (the damage issue 18 found fsck blind to).
func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x5a
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerify_DeepListsEachDamagedFile: files damaged in place (same size)
// pass the shallow checks; the deep one reads them and lists each.
func TestVerify_DeepListsEachDamagedFile(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	e.appendIDs(t, ds, 1, 2)
	e.appendIDs(t, ds, 3, 4)
	e.appendIDs(t, ds, 5, 6)
	files := e.liveFiles(t, ds)
	for _, f := range files {
		if f.Checksum == "" {
			t.Fatalf("%s was committed without a checksum", f.Path)
		}
	}
	flipByte(t, e.b.LocalPath(files[0].Path))
	flipByte(t, e.b.LocalPath(files[2].Path))
	res, err := Verify(ctx, e.cat, ds)
	if err != nil || len(res.Findings) != 0 || res.Checksummed != 0 {
		t.Fatalf("shallow verify: %+v, %v", res, err)
	}
	res, err = Verify(ctx, e.cat, ds, Deep())
	if err != nil {
		t.Fatal(err)
	}
	if res.Checksummed != 3 || res.Unrecorded != 0 || len(res.Findings) != 2 {
		t.Fatalf("deep verify: %+v", res)
	}
	got := map[string]bool{}
	for _, f := range res.Findings {
		if f.Check != CheckFileChecksum || !strings.Contains(f.Detail, "checksum mismatch") || !catalogstore.IsAlertable(f.Err) {
			t.Fatalf("finding %+v", f)
		}
		got[f.Path] = true
	}
	if !got[files[0].Path] || !got[files[2].Path] {
		t.Fatalf("findings name %v, want %s and %s", got, files[0].Path, files[2].Path)
	}
}
