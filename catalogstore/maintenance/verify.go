package maintenance

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/catalogstore/manifest"
)

// The checks Verify runs, as they name their findings.
const (
	CheckHead             = "head"              // the head snapshot document exists
	CheckSnapshotDocument = "snapshot-document" // a snapshot document decodes
	CheckManifestReadable = "manifest-readable" // a snapshot's manifest reads and checks out
	CheckSummary          = "summary"           // a snapshot's summary matches its manifest
	CheckDatasetTotals    = "dataset-totals"    // the dataset's totals match the head's summary
	CheckFileExists       = "file-exists"       // every referenced file exists
	CheckFileSize         = "file-size"         // ... with the size the manifest records
	CheckFileChecksum     = "file-checksum"     // ... and (deep) the checksum it records
	CheckDuplicateFile    = "duplicate-file"    // a manifest lists each data file once
)

const (
	verifyStatLimit = 16  // parallel Stat calls
	verifyReadLimit = 4   // parallel whole-file reads (deep)
	verifyMaxListed = 100 // findings beyond this are counted, not listed
)

// Finding is one inconsistency Verify found. Err is the same, marked
// alertable (catalogstore.IsAlertable).
type Finding struct {
	Check      string
	Severity   catalogstore.Severity
	SnapshotID int64  // 0 when not about one snapshot
	Path       string // the manifest or data file concerned, if any
	Detail     string
	Err        error
}

// VerifyResult is what Verify checked and found.
type VerifyResult struct {
	Snapshots int // snapshot documents checked
	Manifests int // distinct manifests read
	Files     int // distinct data files checked
	// Checksummed counts the files whose whole-file checksum a deep
	// verification compared; Unrecorded those it could not, their
	// manifest entries recording none (written before checksums were).
	Checksummed, Unrecorded int
	Findings                []Finding
	// Omitted counts findings left out of Findings beyond the first 100.
	Omitted int
}

// Verify checks a dataset's metadata against its files: the head snapshot
// exists; every snapshot document decodes and its manifest reads (from the
// object store, not a cache) and matches its summary; the dataset's totals
// match the head; and every data file any snapshot references exists with
// the size its manifest records. It also checks the dataset's place in the
// refresh graph: no cycle through it along refresh triggers or
// source-tables, every trigger it carries names an existing materialized
// view that reads it (and trigger-count agrees), and, for a materialized
// view, the registration is whole: its SQL and statement, and sources that
// exist, are plain datasets and carry its trigger. It changes nothing and
// takes no lease.
//
// Each inconsistency is a Finding, reported through the catalog's alert
// hook (catalogstore.Catalog.ReportAlert) as it is returned. The error is
// only for failures to run the checks (a dataset that does not exist, a
// metastore that cannot be read).
//
// With Deep, every data file that exists with its recorded size is also
// read whole and its CRC-32C compared with the one its manifest entry
// records: each file that differs is a file-checksum finding.
func Verify(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, opts ...Option) (*VerifyResult, error) {
	o := buildOptions(opts)
	cur, err := cat.Dataset(ctx, ds.Ident())
	if err != nil {
		return nil, err
	}
	id := cur.Ident()
	res := &VerifyResult{}
	add := func(check string, sev catalogstore.Severity, snap int64, path, detail string) {
		err := catalogstore.MarkAlertable(fmt.Errorf("verify %s: %s: %s", id.Short(), check, detail), sev,
			"verify-"+check+":"+cur.UUID, map[string]string{"dataset": id.String(), "check": check, "path": path})
		cat.ReportAlert(ctx, err)
		if len(res.Findings) >= verifyMaxListed {
			res.Omitted++
			return
		}
		res.Findings = append(res.Findings, Finding{Check: check, Severity: sev, SnapshotID: snap, Path: path, Detail: detail, Err: err})
	}
	docs, err := cat.Meta().List(ctx, snapshotsColl(cur))
	if err != nil {
		return nil, fmt.Errorf("verify %s: list snapshots: %w", id.Short(), err)
	}
	res.Snapshots = len(docs)
	headSeen := cur.CurrentSnapshotID == 0
	// Chains are read straight from the store, each object once; a
	// snapshot's list is checked once per distinct chain (rollbacks share
	// their target's).
	rd := manifest.NewChainReader(cat.Blob())
	checked := map[string]bool{}
	unreadable := map[string]bool{}
	refs := map[string]manifest.DataFile{} // distinct data files
	refBy := map[string]int64{}
	for _, d := range docs {
		var s snapDoc
		if err := d.Decode(&s); err != nil {
			add(CheckSnapshotDocument, catalogstore.SeverityCritical, 0, d.Path, fmt.Sprintf("snapshot document %s does not decode: %v", d.ID(), err))
			continue
		}
		if s.ID == cur.CurrentSnapshotID {
			headSeen = true
		}
		if err := s.CheckManifestChain(); err != nil {
			add(CheckManifestReadable, catalogstore.SeverityCritical, s.ID, s.ManifestPath, err.Error())
			continue
		}
		ch := s.ManifestChain()
		if unreadable[ch.Key()] {
			continue
		}
		files, err := rd.Live(ctx, ch)
		if err != nil {
			unreadable[ch.Key()] = true
			at := s.ManifestPath
			if le, ok := manifest.IsLinkError(err); ok {
				at = le.Key
			}
			add(CheckManifestReadable, catalogstore.SeverityCritical, s.ID, at, fmt.Sprintf("the manifest of snapshot %d cannot be read: %v", s.ID, err))
			continue
		}
		if !checked[ch.Key()] {
			checked[ch.Key()] = true
			for _, p := range duplicatePaths(files) {
				add(CheckDuplicateFile, catalogstore.SeverityCritical, s.ID, p, fmt.Sprintf(
					"the manifest of snapshot %d lists data file %s more than once (its rows read twice); CALL repair_duplicate_files('%s')", s.ID, p, id.Short()))
			}
		}
		nf, nr, nb := manifest.Summary(files)
		if sum := s.Summary; sum.TotalFiles != nf || sum.TotalRecords != nr || sum.TotalBytes != nb {
			add(CheckSummary, catalogstore.SeverityError, s.ID, ch.Key(), fmt.Sprintf(
				"snapshot %d's summary says %d files, %d records, %d bytes; its manifest lists %d files, %d records, %d bytes",
				s.ID, sum.TotalFiles, sum.TotalRecords, sum.TotalBytes, nf, nr, nb))
		}
		if s.ID == cur.CurrentSnapshotID && (cur.CurrentFiles != nf || cur.CurrentRecords != nr || cur.CurrentBytes != nb) {
			add(CheckDatasetTotals, catalogstore.SeverityError, s.ID, "", fmt.Sprintf(
				"the dataset document says %d files, %d records, %d bytes; the head's manifest lists %d files, %d records, %d bytes",
				cur.CurrentFiles, cur.CurrentRecords, cur.CurrentBytes, nf, nr, nb))
		}
		for _, f := range files {
			if _, ok := refs[f.Path]; !ok {
				refs[f.Path], refBy[f.Path] = f, s.ID
			}
		}
	}
	if !headSeen {
		add(CheckHead, catalogstore.SeverityCritical, cur.CurrentSnapshotID, "", fmt.Sprintf("the head snapshot %d has no document", cur.CurrentSnapshotID))
	}
	res.Manifests, res.Files = rd.Objects(), len(refs)

	paths := make([]string, 0, len(refs))
	for p := range refs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	infos := make([]blob.Info, len(paths))
	statErrs := make([]error, len(paths))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(verifyStatLimit)
	for i, p := range paths {
		g.Go(func() error {
			infos[i], statErrs[i] = cat.Blob().Stat(gctx, p)
			if statErrs[i] != nil && !errors.Is(statErrs[i], blob.ErrNotFound) {
				return fmt.Errorf("verify %s: stat %s: %w", id.Short(), p, statErrs[i])
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var sound []string // present with the recorded size
	for i, p := range paths {
		f := refs[p]
		switch {
		case statErrs[i] != nil:
			add(CheckFileExists, catalogstore.SeverityCritical, refBy[p], p, fmt.Sprintf("data file %s (referenced by snapshot %d) does not exist", p, refBy[p]))
		case infos[i].Size != f.FileSize:
			add(CheckFileSize, catalogstore.SeverityCritical, refBy[p], p, fmt.Sprintf("data file %s is %d bytes; its manifest records %d", p, infos[i].Size, f.FileSize))
		default:
			sound = append(sound, p)
		}
	}
	if o.deep {
		if err := verifyChecksums(ctx, cat, sound, refs, res, func(p, detail string) {
			add(CheckFileChecksum, catalogstore.SeverityCritical, refBy[p], p, detail)
		}); err != nil {
			return nil, fmt.Errorf("verify %s: %w", id.Short(), err)
		}
	}
	err = verifyGraph(ctx, cat, cur, func(check string, sev catalogstore.Severity, path, detail string) {
		add(check, sev, 0, path, detail)
	})
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", id.Short(), err)
	}
	return res, nil
}

// verifyChecksums reads each of paths whole and compares its checksum with
// the one refs records, calling bad for each that differs, in path order.
func verifyChecksums(ctx context.Context, cat *catalogstore.Catalog, paths []string, refs map[string]manifest.DataFile, res *VerifyResult, bad func(path, detail string)) error {
	checked := make([]bool, len(paths))
	errs := make([]error, len(paths))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(verifyReadLimit)
	for i, p := range paths {
		g.Go(func() error {
			checked[i], errs[i] = datafile.VerifyFile(gctx, cat.Blob(), refs[p])
			if errs[i] != nil && !errors.Is(errs[i], datafile.ErrChecksum) {
				return errs[i]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, p := range paths {
		switch {
		case errs[i] != nil:
			res.Checksummed++
			bad(p, errs[i].Error())
		case checked[i]:
			res.Checksummed++
		default:
			res.Unrecorded++
		}
	}
	return nil
}
