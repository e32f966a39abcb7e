package maintenance

import (
	"context"
	"os"
	"sort"
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
	e := newEnv(t)
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
	if err := e.m.Merge(ctx, catalogstore.SnapshotDocPath(id, second.ID), map[string]any{"summary": map[string]any{
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
