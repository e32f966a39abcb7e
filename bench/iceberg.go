package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/iceberg"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
)

// icebergResult is the Iceberg export benchmark's outcome (issue 19: a
// dataset of 100,000 files exports in ≤ 10 s cold, and an append's
// incremental export adds ≤ 10 % to the append's own commit time).
type icebergResult struct {
	files             int
	registerMS        float64 // the one commit registering every file
	coldMS            float64 // Export of the table with no Iceberg metadata yet
	appendMS, incrMS  []float64
	metadataBytes     int64 // everything the cold export wrote
	incrBytes         int64 // what the last incremental export wrote
	coldVer, lastVers int
}

// icebergBench registers n lineitem files (the planning benchmark's
// manifest entries; no data file is opened by either side) in a dataset of
// a fresh SQLite + local-folder warehouse, times a cold export, then
// appends: each append commit of one file, then the incremental export
// after it.
func icebergBench(ctx context.Context, n, appends int) (icebergResult, error) {
	res := icebergResult{files: n}
	dir, err := os.MkdirTemp("", "lakesql-iceberg-bench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	m, err := sqlite.Open(ctx, filepath.Join(dir, "lakesql.db"))
	if err != nil {
		return res, err
	}
	defer m.Close()
	b, err := local.Open(filepath.Join(dir, "lake"))
	if err != nil {
		return res, err
	}
	cat := catalogstore.New(m, b, catalogstore.Options{})
	if _, err := cat.CreateWorkspace(ctx, "ws", "bench"); err != nil {
		return res, err
	}
	if _, err := cat.CreateCollection(ctx, "ws", "bench", "bench", catalogstore.CreateCollectionOptions{}); err != nil {
		return res, err
	}
	id := catalogstore.Ident{Workspace: "ws", Collection: "bench", Name: "lineitem"}
	ds, err := cat.CreateDataset(ctx, id, lineitemSchema(), "bench", catalogstore.CreateDatasetOptions{})
	if err != nil {
		return res, err
	}
	files := lineitemFiles(&ds.Schema, n+appends)
	t0 := time.Now()
	if _, err := cat.Commit(ctx, id, catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "bench", Added: files[:n], ExpectedUUID: ds.UUID}); err != nil {
		return res, err
	}
	res.registerMS = ms(time.Since(t0))
	if ds, err = cat.Dataset(ctx, id); err != nil {
		return res, err
	}
	metaDir := filepath.Join(dir, "lake", filepath.FromSlash(ds.Location), filepath.FromSlash(iceberg.Dir))
	t0 = time.Now()
	r, err := iceberg.Export(ctx, cat, ds)
	if err != nil {
		return res, err
	}
	res.coldMS, res.coldVer = ms(time.Since(t0)), r.Version
	res.metadataBytes = dirBytes(metaDir)
	for i := range appends {
		before := dirBytes(metaDir)
		t0 = time.Now()
		if _, err := cat.Commit(ctx, id, catalogstore.Commit{Operation: catalogstore.OpAppend, Author: "bench",
			Added: []manifest.DataFile{files[n+i]}, ExpectedUUID: ds.UUID, BaseSnapshotID: ds.CurrentSnapshotID}); err != nil {
			return res, err
		}
		res.appendMS = append(res.appendMS, ms(time.Since(t0)))
		if ds, err = cat.Dataset(ctx, id); err != nil {
			return res, err
		}
		t0 = time.Now()
		r, err := iceberg.Export(ctx, cat, ds)
		if err != nil {
			return res, err
		}
		res.incrMS = append(res.incrMS, ms(time.Since(t0)))
		if r.ManifestLists != 1 {
			return res, fmt.Errorf("incremental export after append %d wrote %d manifest lists, want 1", i+1, r.ManifestLists)
		}
		res.lastVers = r.Version
		res.incrBytes = dirBytes(metaDir) - before
	}
	return res, nil
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// report renders the result as a markdown section.
func (r icebergResult) report() string {
	var b strings.Builder
	appendMed, incrMed := median(r.appendMS), median(r.incrMS)
	fmt.Fprintf(&b, "## Iceberg export: %d files\n\n", r.files)
	fmt.Fprintf(&b, "| step | ms |\n|---|--:|\n")
	fmt.Fprintf(&b, "| register %d files (one commit) | %.0f |\n", r.files, r.registerMS)
	fmt.Fprintf(&b, "| cold export (v%d, %.1f MB of metadata) | %.0f |\n", r.coldVer, float64(r.metadataBytes)/(1<<20), r.coldMS)
	fmt.Fprintf(&b, "| append of one file, commit (median of %d) | %.1f |\n", len(r.appendMS), appendMed)
	fmt.Fprintf(&b, "| incremental export after it (median; last wrote %.1f KB, v%d) | %.1f |\n", float64(r.incrBytes)/1024, r.lastVers, incrMed)
	fmt.Fprintf(&b, "\nIncremental export adds %.1f %% to an append's commit time (target ≤ 10 %%); cold export %.1f s (target ≤ 10 s).\n",
		100*incrMed/appendMed, r.coldMS/1000)
	return b.String()
}

// runIceberg runs the Iceberg export benchmark and writes its report.
func runIceberg(ctx context.Context, files, appends int, out string) error {
	if files <= 0 || appends <= 0 {
		return fmt.Errorf("-iceberg-files and -iceberg-appends must be positive")
	}
	fmt.Fprintf(os.Stderr, "bench: Iceberg export of %d files, then %d one-file appends\n", files, appends)
	res, err := icebergBench(ctx, files, appends)
	if err != nil {
		return err
	}
	report := fmt.Sprintf("# Iceberg export benchmark\n\n%s · GOMAXPROCS %d · `go run . -suite iceberg -iceberg-files %d -iceberg-appends %d`\n\n%s",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOMAXPROCS(0), files, appends, res.report())
	fmt.Print(report)
	if out == "" {
		return nil
	}
	return os.WriteFile(out, []byte(report), 0o644)
}
