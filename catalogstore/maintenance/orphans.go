package maintenance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// MinOrphanWindow is the shortest safety window RemoveOrphans accepts: a
// file younger than the window may belong to a commit in flight.
const MinOrphanWindow = time.Hour

// OrphanConfirmAfter is how long a file must stay an orphan, between the
// cleanup that first saw it and the one that deletes it.
const OrphanConfirmAfter = 24 * time.Hour

// OrphanResult is what RemoveOrphans did (or, in a dry run, would do).
type OrphanResult struct {
	DryRun  bool
	Scanned int // objects listed under the dataset's location
	Live    int // files (data files and manifests) retained snapshots reference
	// Removed are the orphans deleted (in a dry run: that would be).
	Removed []string
	// Quarantined are orphans older than the window waiting for their
	// second sighting, OrphanConfirmAfter after the first.
	Quarantined []string
	// Young counts unreferenced objects newer than the window, left alone.
	Young int
	// Foreign counts objects under the location but outside data/ and
	// metadata/, or registered in place by add_files: lakesql did not
	// write them and cleanup never touches them.
	Foreign int
	// Missing are referenced files under the location that do not exist: a
	// platform inconsistency, also reported as an alert.
	Missing []string
	// Revived are orphans that became referenced before their deletion and
	// were kept.
	Revived []string
	// StillReferenced are removed files a snapshot references after all.
	// Always empty unless something is badly wrong (then RemoveOrphans also
	// returns an alertable ErrStillReferenced).
	StillReferenced []string
}

type quarantineDoc struct {
	Files     []quarantineEntry `json:"files"`
	UpdatedAt time.Time         `json:"updated-at"`
}

type quarantineEntry struct {
	Path      string    `json:"path"`
	FirstSeen time.Time `json:"first-seen"`
}

// liveSet is the set of files the retained snapshots of a dataset
// reference, as of a sequence number.
type liveSet struct {
	files map[string]bool
	seq   int64 // the dataset's last-sequence-number when it was read
}

// readLive reads every retained snapshot (every snapshot document,
// tombstoned ones included) and its manifest, straight from the stores so
// that damage is seen now. Any unreadable snapshot or manifest refuses the
// whole cleanup with an alertable ErrCleanupRefused.
func readLive(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset) (*liveSet, error) {
	cur, err := cat.Dataset(ctx, ds.Ident())
	if err != nil {
		return nil, err
	}
	if cur.UUID != ds.UUID {
		return nil, fmt.Errorf("%w: %s was recreated", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
	}
	refuse := func(what string, err error) error {
		return catalogstore.MarkAlertable(fmt.Errorf("%w: %s: %s: %w", ErrCleanupRefused, ds.Ident().Short(), what, err),
			catalogstore.SeverityCritical, "orphan-cleanup-refused:"+ds.UUID, map[string]string{"dataset": ds.Ident().String()})
	}
	docs, err := cat.Meta().List(ctx, snapshotsColl(ds))
	if err != nil {
		return nil, fmt.Errorf("list snapshots of %s: %w", ds.Ident().Short(), err)
	}
	live := &liveSet{files: map[string]bool{}, seq: cur.LastSequenceNumber}
	if cur.CurrentSnapshotID != 0 && len(docs) == 0 {
		return nil, refuse("head snapshot", fmt.Errorf("no snapshot documents but head %d", cur.CurrentSnapshotID))
	}
	// Every base and delta of every chain is live, and every data file
	// a base lists or a delta adds: the union of the snapshots' lists
	// (a file a delta removes was listed by an earlier link). Each object
	// is read once, however many chains share it.
	rd := manifest.NewChainReader(cat.Blob())
	for _, d := range docs {
		var s snapDoc
		if err := d.Decode(&s); err != nil {
			return nil, refuse("snapshot document "+d.ID(), err)
		}
		if s.ManifestPath == "" {
			return nil, refuse(fmt.Sprintf("snapshot %d", s.ID), errors.New("no manifest path"))
		}
		if err := s.CheckManifestChain(); err != nil {
			return nil, refuse(fmt.Sprintf("snapshot %d", s.ID), err)
		}
		ch := s.ManifestChain()
		for _, key := range ch.Keys() {
			live.files[key] = true
		}
		unreadable := func(key string, err error) error {
			return refuse(fmt.Sprintf("manifest %s of snapshot %d", key, s.ID),
				fmt.Errorf("%w: %w", catalogstore.ErrManifestUnreadable, err))
		}
		files, err := rd.Base(ctx, ch.Base)
		if err != nil {
			return nil, unreadable(ch.Base, err)
		}
		for _, f := range files {
			live.files[f.Path] = true
		}
		for _, key := range ch.Deltas {
			dl, err := rd.Delta(ctx, key)
			if err != nil {
				return nil, unreadable(key, err)
			}
			for _, f := range dl.Added {
				live.files[f.Path] = true
			}
		}
	}
	return live, nil
}

// RemoveOrphans deletes files under the dataset's data/ and metadata/
// folders that no retained snapshot references (data files of refused
// commits, manifests of purged snapshots, leftovers of killed writers). It
// is safe by construction:
//
//   - it reads every retained snapshot's manifest first, and deletes
//     nothing if one cannot be read (an alertable ErrCleanupRefused);
//   - it deletes only files older than olderThan (at least
//     MinOrphanWindow, else ErrWindowTooShort) that an earlier cleanup
//     already saw as orphans at least OrphanConfirmAfter before (first
//     sightings are recorded in {dataset}/maintenance/orphan-quarantine);
//   - it re-checks liveness right before each delete, re-reading the
//     snapshots whenever the dataset moved.
//
// A dry run changes nothing, the quarantine included, and reports what
// would be removed now. A real run holds the dataset's maintenance lease
// (ErrLeaseHeld). The clock is the catalog's (catalogstore.Options.Now);
// object ages come from the object store's modification times.
func RemoveOrphans(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, olderThan time.Duration, dryRun bool, opts ...Option) (*OrphanResult, error) {
	if olderThan < MinOrphanWindow {
		return nil, fmt.Errorf("%w: %s is below the minimum of %s", ErrWindowTooShort, olderThan, MinOrphanWindow)
	}
	o := buildOptions(opts)
	var lease *Lease
	if !dryRun {
		l, err := Acquire(ctx, cat, ds, "remove_orphan_files", o.leaseTTL)
		if err != nil {
			return nil, err
		}
		lease = l
		defer releaseQuietly(ctx, lease)
	}
	res := &OrphanResult{DryRun: dryRun}
	live, err := readLive(ctx, cat, ds)
	if err != nil {
		return nil, err
	}
	res.Live = len(live.files)
	prefix := ds.Location + "/"
	objects, err := cat.Blob().List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list files of %s: %w", ds.Ident().Short(), err)
	}
	res.Scanned = len(objects)
	present := make(map[string]bool, len(objects))
	for _, obj := range objects {
		present[obj.Key] = true
	}
	for p := range live.files {
		if strings.HasPrefix(p, prefix) && !present[p] {
			res.Missing = append(res.Missing, p)
		}
	}
	slices.Sort(res.Missing)
	if len(res.Missing) > 0 {
		cat.ReportAlert(ctx, catalogstore.MarkAlertable(
			fmt.Errorf("%s: %d referenced files are missing, e.g. %s", ds.Ident().Short(), len(res.Missing), res.Missing[0]),
			catalogstore.SeverityCritical, "referenced-file-missing:"+ds.UUID, map[string]string{"dataset": ds.Ident().String()}))
	}

	q, err := readQuarantine(ctx, cat, ds)
	if err != nil {
		return nil, err
	}
	now := cat.Now()
	var eligible []blob.Info
	waiting := map[string]time.Time{}
	// Files add_files registered in place are never lakesql's to delete,
	// referenced or not.
	external, err := cat.ExternalFiles(ctx, ds)
	if err != nil {
		return nil, err
	}
	for _, obj := range objects {
		if live.files[obj.Key] {
			continue
		}
		if external[obj.Key] || !strings.HasPrefix(obj.Key, prefix+"data/") && !strings.HasPrefix(obj.Key, prefix+"metadata/") {
			res.Foreign++
			continue
		}
		if obj.ModTime.After(now.Add(-olderThan)) {
			res.Young++
			continue
		}
		first, seen := q[obj.Key]
		if seen && !first.After(now.Add(-OrphanConfirmAfter)) {
			eligible = append(eligible, obj)
			continue
		}
		if !seen {
			first = now
		}
		waiting[obj.Key] = first
		res.Quarantined = append(res.Quarantined, obj.Key)
	}
	if dryRun {
		for _, obj := range eligible {
			res.Removed = append(res.Removed, obj.Key)
		}
		return res, nil
	}

	for _, obj := range eligible {
		if err := lease.Check(ctx); err != nil {
			return res, err
		}
		live, err = refreshLive(ctx, cat, ds, live)
		if err != nil {
			return res, err
		}
		if live.files[obj.Key] {
			res.Revived = append(res.Revived, obj.Key)
			continue
		}
		if err := cat.Blob().Delete(ctx, obj.Key); err != nil {
			return res, fmt.Errorf("remove orphan %s: %w", obj.Key, err)
		}
		res.Removed = append(res.Removed, obj.Key)
	}
	if err := writeQuarantine(ctx, cat, ds, lease, waiting); err != nil {
		return res, err
	}
	if len(res.Removed) > 0 {
		final, err := readLive(ctx, cat, ds)
		if err != nil {
			return res, err
		}
		for _, p := range res.Removed {
			if final.files[p] {
				res.StillReferenced = append(res.StillReferenced, p)
			}
		}
		if len(res.StillReferenced) > 0 {
			return res, catalogstore.MarkAlertable(
				fmt.Errorf("%w: %s: %d files, e.g. %s", ErrStillReferenced, ds.Ident().Short(), len(res.StillReferenced), res.StillReferenced[0]),
				catalogstore.SeverityCritical, "orphan-still-referenced:"+ds.UUID, map[string]string{"dataset": ds.Ident().String()})
		}
	}
	return res, nil
}

// refreshLive re-reads the live set if the dataset moved since it was read
// (one document read when it did not).
func refreshLive(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, live *liveSet) (*liveSet, error) {
	cur, err := cat.Dataset(ctx, ds.Ident())
	if err != nil {
		return nil, err
	}
	if cur.UUID != ds.UUID {
		return nil, fmt.Errorf("%w: %s was recreated", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
	}
	if cur.LastSequenceNumber == live.seq {
		return live, nil
	}
	return readLive(ctx, cat, ds)
}

func readQuarantine(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	d, err := cat.Meta().Get(ctx, quarantinePath(ds))
	if errors.Is(err, meta.ErrNotFound) {
		return out, nil
	} else if err != nil {
		return nil, fmt.Errorf("read orphan quarantine of %s: %w", ds.Ident().Short(), err)
	}
	var q quarantineDoc
	if err := d.Decode(&q); err != nil {
		return nil, err
	}
	for _, f := range q.Files {
		out[f.Path] = f.FirstSeen
	}
	return out, nil
}

// writeQuarantine replaces the quarantine with the orphans still waiting:
// entries of deleted, revived or vanished files drop out.
func writeQuarantine(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, lease *Lease, waiting map[string]time.Time) error {
	q := quarantineDoc{UpdatedAt: cat.Now()}
	for p, t := range waiting {
		q.Files = append(q.Files, quarantineEntry{Path: p, FirstSeen: t})
	}
	slices.SortFunc(q.Files, func(a, b quarantineEntry) int { return strings.Compare(a.Path, b.Path) })
	data, err := meta.Encode(q)
	if err != nil {
		return err
	}
	err = cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if err := lease.checkTx(tx); err != nil {
			return err
		}
		if len(q.Files) == 0 {
			return tx.Delete(quarantinePath(ds))
		}
		return tx.Set(quarantinePath(ds), data)
	})
	if err != nil {
		return fmt.Errorf("write orphan quarantine of %s: %w", ds.Ident().Short(), err)
	}
	return nil
}
