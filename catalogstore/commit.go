package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lakesql/lakesql/catalogstore/manifest"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Operation is what a snapshot did.
type Operation string

const (
	OpAppend            Operation = "append"
	OpOverwrite         Operation = "overwrite"
	OpAddFiles          Operation = "add-files"
	OpTruncate          Operation = "truncate"
	OpTruncateAndAdd    Operation = "truncate-and-add-files"
	OpDelete            Operation = "delete"
	OpCompact           Operation = "compact"
	OpStatisticsRefresh Operation = "statistics-refresh"
	OpRollback          Operation = "rollback"
)

// Summary totals a snapshot, derived from the manifest it wrote.
type Summary struct {
	AddedFiles     int64 `json:"added-files"`
	DeletedFiles   int64 `json:"deleted-files"`
	AddedRecords   int64 `json:"added-records"`
	DeletedRecords int64 `json:"deleted-records"`
	TotalFiles     int64 `json:"total-files"`
	TotalRecords   int64 `json:"total-records"`
	TotalBytes     int64 `json:"total-bytes"`
	// AddedPending counts added files registered with deferred stats: a
	// commit hook (the hydrator) acts only on commits that have some.
	AddedPending int64 `json:"added-pending-files,omitempty"`
}

// Snapshot is a snapshot document: one committed state of a dataset.
type Snapshot struct {
	ID             int64     `json:"snapshot-id"`
	ParentID       int64     `json:"parent-id"` // 0 for the first
	SequenceNumber int64     `json:"sequence-number"`
	Timestamp      time.Time `json:"timestamp"`
	Author         string    `json:"author"`
	Message        string    `json:"message,omitempty"`
	Operation      Operation `json:"operation"`
	UserCreated    bool      `json:"user-created"`
	SchemaID       int       `json:"schema-id"`
	SpecID         int       `json:"spec-id"`
	// The snapshot's live list is a consolidated (base) manifest with
	// ManifestDeltas applied over it, oldest first (manifestchain.go).
	// ManifestPath is the last object of that chain: the base itself when
	// there are no deltas (every snapshot written before deltas), else the
	// last delta, with the base in ManifestBase. So a binary that predates
	// deltas reads a delta snapshot's manifest-path as a manifest it cannot
	// decode and refuses, instead of answering from the base alone.
	// ManifestBytes is the base's size, 0 when not recorded.
	ManifestPath   string      `json:"manifest-path"`
	ManifestBase   string      `json:"manifest-base,omitempty"`
	ManifestBytes  int64       `json:"manifest-bytes,omitempty"`
	ManifestDeltas []DeltaLink `json:"manifest-deltas,omitempty"`
	Summary        Summary     `json:"summary"`
}

// Commit describes one commit: the data files it adds and removes.
type Commit struct {
	Operation Operation
	Author    string
	Message   string
	// Added are new data files, already written (step 1 of the protocol).
	Added []manifest.DataFile
	// Removed lists data file paths the commit drops from the live set.
	Removed []string
	// ReplaceAll drops every live file of the base snapshot (truncate,
	// overwrite of the whole table, MV refresh).
	ReplaceAll bool
	// Housekeeping marks snapshots that are not user-created (compaction,
	// statistics refresh): no trigger fires for them.
	Housekeeping bool
	// ExpectedUUID is the incarnation guard: the table uuid the work was
	// prepared against. Required.
	ExpectedUUID string
	// BaseSnapshotID is the snapshot the work was prepared against. An
	// append re-bases on a newer head; every other operation is refused
	// with ErrCommitConflict (re-prepare) when the head moved.
	BaseSnapshotID int64
	// ExpectedSpecID, when set (>= 0 with CheckSpec), refuses the commit
	// if the partition spec changed since the files were split.
	CheckSpec      bool
	ExpectedSpecID int
	// ManifestFiles, if not nil, replaces the manifest computation: the
	// commit writes exactly these live files (rollback).
	ManifestFiles []manifest.DataFile
	// ReuseManifest, if set, points the new snapshot at this snapshot's
	// manifest chain (rollback to a snapshot) instead of writing one.
	ReuseManifest *Snapshot
	// Schema, if set, becomes the dataset's schema in the same metastore
	// transaction (a schema change whose data was rewritten: ALTER … ADD
	// COLUMN … DEFAULT, MODIFY … NOT NULL), with NextFieldID. The commit is
	// refused (ErrCommitConflict) when the schema is no longer
	// ExpectedSchemaID.
	Schema           *schema.Schema
	NextFieldID      int
	ExpectedSchemaID int
	// CheckSchema refuses the commit (ErrSchemaChanged, never re-based)
	// when the schema is no longer ExpectedSchemaID: its rows were
	// written under that schema.
	CheckSchema bool
	// NoRebase refuses a lost race (ErrCommitConflict, re-prepare) even
	// for a pure append: its rows were checked against the base snapshot
	// for primary-key uniqueness, which rows committed since may break.
	// With Recheck, a pure append re-bases after all when Recheck accepts
	// the data files that became live since its base (its error, such as
	// a duplicate key, fails the commit).
	NoRebase bool
	Recheck  func(ctx context.Context, since []manifest.DataFile) error
}

// userCreated reports whether triggers fire for the commit.
func (cm *Commit) userCreated() bool { return !cm.Housekeeping }

// maxRebaseBackoff caps the pause between two re-bases of an append.
const maxRebaseBackoff = 500 * time.Millisecond

// Commit runs the commit protocol (see the package documentation) and
// returns the new snapshot. Errors are *CommitError (ErrCommitConflict,
// ErrIncarnationChanged, ErrManifestUnreadable) or lookup errors. Appends
// from concurrent callers to the same dataset may share one commit (see
// group.go); each call returns only when its files are committed or
// refused.
func (c *Catalog) Commit(ctx context.Context, id Ident, cm Commit) (*Snapshot, error) {
	if cm.ExpectedUUID == "" {
		return nil, fmt.Errorf("%w: commit to %s without an expected table uuid", ErrBadValue, id.Short())
	}
	if cm.Author == "" {
		return nil, fmt.Errorf("%w: commit to %s without an author", ErrBadValue, id.Short())
	}
	if c.groups(cm) {
		return c.commitGrouped(ctx, id, cm)
	}
	return c.commitRebasing(ctx, id, cm)
}

// commitRebasing makes one commit: an append that lost a race re-bases on
// the new head, waiting a jittered, growing pause between attempts so
// writers in other processes spread out instead of re-reading the head in
// lockstep.
func (c *Catalog) commitRebasing(ctx context.Context, id Ident, cm Commit) (*Snapshot, error) {
	base := cm.BaseSnapshotID
	backoff := 2 * time.Millisecond
	for attempt := 0; ; attempt++ {
		snap, ds, err := c.tryCommit(ctx, id, cm, base)
		if err == nil {
			c.afterCommit(ctx, ds, snap)
			return snap, nil
		}
		var ce *CommitError
		if !errors.As(err, &ce) || !errors.Is(ce.Err, ErrCommitConflict) {
			return nil, err
		}
		if base, err = c.rebaseOn(ctx, id, cm, base, ce, err, attempt, "statement"); err != nil {
			return nil, err
		}
		if backoff, err = pause(ctx, backoff); err != nil {
			return nil, err
		}
	}
}

// rebaseOn decides what follows commit cm's lost race (ce, which err
// wraps) on attempt: the error to report when cm does not commute with
// what won (or its table went) or the retries are spent, else the new head
// to prepare cm on again, once cm's Recheck has passed on the files added
// since base. unit names what the caller should retry ("statement").
func (c *Catalog) rebaseOn(ctx context.Context, id Ident, cm Commit, base int64, ce *CommitError, err error, attempt int, unit string) (int64, error) {
	if errors.Is(ce.Err, ErrSpecChanged) || errors.Is(ce.Err, ErrSchemaChanged) || !c.rebases(cm) {
		// A conflict caused by a DROP (another commit moved the head,
		// then the table went) is reported as the drop, not as the
		// head having moved.
		return 0, c.droppedOr(ctx, id, cm.ExpectedUUID, err)
	}
	if attempt >= c.opts.AppendRetries {
		// Appends commute: running the same commit again is safe.
		ce.Retry = Retryable
		ce.Detail = fmt.Sprintf("still losing the race after %d re-bases; retry the %s", attempt, unit)
		return 0, ce
	}
	// Appends commute: re-read the new head and try again on it.
	cur, derr := c.Dataset(ctx, id)
	if derr != nil {
		return 0, c.droppedOr(ctx, id, cm.ExpectedUUID, err)
	}
	if cm.NoRebase {
		if rerr := c.recheck(ctx, cur, base, cm.Recheck); rerr != nil {
			return 0, rerr
		}
	}
	return cur.CurrentSnapshotID, nil
}

// pause waits before the next attempt and returns the next bound. Full
// jitter (a uniform pause up to the growing bound) means two processes
// that collided once rarely collide again.
func pause(ctx context.Context, backoff time.Duration) (time.Duration, error) {
	sleep := time.Duration(rand.Int64N(int64(backoff))) + time.Millisecond
	select {
	case <-ctx.Done():
		return backoff, ctx.Err()
	case <-time.After(sleep):
	}
	return min(backoff*2, maxRebaseBackoff), nil
}

// recheck hands fn the data files live at cur's head that were not live
// at snapshot base.
func (c *Catalog) recheck(ctx context.Context, cur *Dataset, base int64, fn func(context.Context, []manifest.DataFile) error) error {
	before, _, err := c.Files(ctx, cur, base)
	if err != nil {
		return err
	}
	now, _, err := c.Files(ctx, cur, cur.CurrentSnapshotID)
	if err != nil {
		return err
	}
	had := make(map[string]bool, len(before))
	for _, f := range before {
		had[f.Path] = true
	}
	var since []manifest.DataFile
	for _, f := range now {
		if !had[f.Path] {
			since = append(since, f)
		}
	}
	return fn(ctx, since)
}

// dropped returns the commit error for a table that was dropped (or
// dropped and recreated) since the commit was prepared against
// incarnation uuid, or nil when it is still there (or cannot be read).
func (c *Catalog) dropped(ctx context.Context, id Ident, uuid string) error {
	cur, err := c.Dataset(ctx, id)
	switch {
	case errors.Is(err, ErrDatasetNotFound):
		return &CommitError{Dataset: id.Short(), Err: ErrIncarnationChanged, Retry: RePrepare, Detail: "the table was dropped"}
	case err == nil && cur.UUID != uuid:
		return &CommitError{Dataset: id.Short(), Err: ErrIncarnationChanged, Retry: RePrepare, Detail: "the table was dropped and created again"}
	}
	return nil
}

// droppedOr returns dropped's error for a table that went since the
// commit was prepared against incarnation uuid, else err.
func (c *Catalog) droppedOr(ctx context.Context, id Ident, uuid string, err error) error {
	if gone := c.dropped(ctx, id, uuid); gone != nil {
		return gone
	}
	return err
}

// rebases reports whether a lost race may be retried on the new head:
// only pure additions commute.
func (c *Catalog) rebases(cm Commit) bool {
	return (!cm.NoRebase || cm.Recheck != nil) && (cm.Operation == OpAppend || cm.Operation == OpAddFiles) && !cm.ReplaceAll && len(cm.Removed) == 0 && cm.ManifestFiles == nil && cm.ReuseManifest == nil
}

// tryCommit is one attempt on base: read the parent manifest, write the new
// manifest, then one transaction that checks the guards and moves the
// pointer.
func (c *Catalog) tryCommit(ctx context.Context, id Ident, cm Commit, base int64) (*Snapshot, *Dataset, error) {
	p, err := c.prepareCommit(ctx, id, cm, base)
	if err != nil {
		return nil, nil, err
	}
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if err := p.check(tx); err != nil {
			return err
		}
		return p.write(tx)
	})
	if err != nil {
		return nil, nil, c.abandon(ctx, p, err)
	}
	c.finish(ctx, p)
	return p.snap, p.ds, nil
}

// preparedCommit is a commit whose new manifest is written: what its
// metastore transaction checks and writes.
type preparedCommit struct {
	id         Ident
	cm         Commit
	base       int64
	ds         *Dataset // as read before the manifest was written
	snap       *Snapshot
	snapData   map[string]any
	schemaData map[string]any
	nextRowID  int64
	summary    Summary
	written    string // the manifest object this commit wrote ("" when it reuses one)
}

func (p *preparedCommit) cerr(err error, r Retry, detail string) error {
	return &CommitError{Dataset: p.id.Short(), Err: err, Retry: r, Detail: detail}
}

// parentGone explains a parent snapshot that vanished between reading the
// dataset and reading the snapshot: a DROP (with or without a CREATE of
// the same name) deleted it, so the commit meets the table as dropped
// (1146) or replaced (1412, re-prepared), not a missing snapshot (1032).
// A snapshot missing from a table that is still the one loaded is
// reported as it is.
func (p *preparedCommit) parentGone(ctx context.Context, c *Catalog, err error) error {
	if !errors.Is(err, ErrSnapshotNotFound) {
		return err
	}
	now, derr := c.Dataset(ctx, p.id)
	switch {
	case errors.Is(derr, ErrDatasetNotFound):
		return derr
	case derr == nil && now.UUID != p.ds.UUID:
		return p.cerr(ErrIncarnationChanged, RePrepare, fmt.Sprintf("the table was dropped and created again (uuid %s, now %s) while the commit was prepared", p.ds.UUID, now.UUID))
	}
	return err
}

// prepareCommit runs the steps before the metastore transaction: read the
// dataset and the parent manifest, write the new manifest.
func (c *Catalog) prepareCommit(ctx context.Context, id Ident, cm Commit, base int64) (*preparedCommit, error) {
	p := &preparedCommit{id: id, cm: cm, base: base}
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	p.ds = ds
	if ds.UUID != cm.ExpectedUUID {
		return nil, p.cerr(ErrIncarnationChanged, RePrepare, fmt.Sprintf("expected table uuid %s, found %s", cm.ExpectedUUID, ds.UUID))
	}
	if ds.CurrentSnapshotID != base {
		return nil, p.cerr(ErrCommitConflict, RePrepare, fmt.Sprintf("prepared against snapshot %d, head is %d", base, ds.CurrentSnapshotID))
	}
	if cm.CheckSpec && ds.Spec.ID != cm.ExpectedSpecID {
		return nil, p.cerr(ErrSpecChanged, RePrepare, fmt.Sprintf("from %d to %d since the rows were split; run the statement again", cm.ExpectedSpecID, ds.Spec.ID))
	}
	if cm.CheckSchema && ds.Schema.ID != cm.ExpectedSchemaID {
		return nil, p.schemaChanged(ds.Schema.ID)
	}
	var parent *Snapshot
	var parentFiles []manifest.DataFile
	if base != 0 {
		parent, err = c.Snapshot(ctx, ds, base)
		if err != nil {
			return nil, p.parentGone(ctx, c, err)
		}
		parentFiles, err = c.liveFiles(ctx, ds, parent)
		if err != nil {
			return nil, p.cerr(err, RePrepare, "the parent manifest cannot be read, so the commit is refused")
		}
	}
	snapID := ds.LastSequenceNumber + 1
	live, summary, nextRowID, err := c.nextManifest(ds, parentFiles, cm, snapID)
	if err != nil {
		return nil, err
	}
	p.summary, p.nextRowID = summary, nextRowID
	p.snap = &Snapshot{
		ID: snapID, ParentID: base, SequenceNumber: snapID, Timestamp: c.now(),
		Author: cm.Author, Message: cm.Message, Operation: cm.Operation, UserCreated: cm.userCreated(),
		SchemaID: ds.Schema.ID, SpecID: ds.Spec.ID, Summary: summary,
	}
	if r := cm.ReuseManifest; r != nil {
		p.snap.ManifestPath, p.snap.ManifestBase, p.snap.ManifestBytes, p.snap.ManifestDeltas = r.ManifestPath, r.ManifestBase, r.ManifestBytes, r.ManifestDeltas
	} else if p.written, err = c.writeManifest(ctx, ds, p.snap, parent, live, ownChange(cm, live)); err != nil {
		return nil, p.cerr(err, Retryable, "write manifest")
	}
	if cm.Schema != nil {
		p.snap.SchemaID = cm.Schema.ID
		if p.schemaData, err = meta.Encode(cm.Schema); err != nil {
			c.abandon(ctx, p, err)
			return nil, err
		}
	}
	if p.snapData, err = meta.Encode(p.snap); err != nil {
		c.abandon(ctx, p, err)
		return nil, err
	}
	return p, nil
}

// check is the guard part of the metastore transaction (reads only): the
// same incarnation, the head still the base, the spec and schema
// unchanged.
func (p *preparedCommit) check(tx meta.Tx) error {
	cm := p.cm
	cur, err := loadDataset(tx, p.id)
	if errors.Is(err, ErrDatasetNotFound) {
		return p.cerr(ErrIncarnationChanged, RePrepare, "the table was dropped")
	} else if err != nil {
		return err
	}
	if cur.UUID != cm.ExpectedUUID {
		return p.cerr(ErrIncarnationChanged, RePrepare, fmt.Sprintf("expected table uuid %s, found %s", cm.ExpectedUUID, cur.UUID))
	}
	if cur.CurrentSnapshotID != p.base || cur.LastSequenceNumber != p.ds.LastSequenceNumber {
		return p.cerr(ErrCommitConflict, RePrepare, fmt.Sprintf("prepared against snapshot %d, head is %d", p.base, cur.CurrentSnapshotID))
	}
	if cm.CheckSpec && cur.Spec.ID != cm.ExpectedSpecID {
		return p.cerr(ErrSpecChanged, RePrepare, fmt.Sprintf("from %d to %d since the rows were split; run the statement again", cm.ExpectedSpecID, cur.Spec.ID))
	}
	if cm.CheckSchema && cur.Schema.ID != cm.ExpectedSchemaID {
		return p.schemaChanged(cur.Schema.ID)
	}
	if cm.Schema != nil && cur.Schema.ID != cm.ExpectedSchemaID {
		return p.cerr(ErrCommitConflict, RePrepare, fmt.Sprintf("the schema changed (version %d, prepared against %d)", cur.Schema.ID, cm.ExpectedSchemaID))
	}
	return nil
}

func (p *preparedCommit) schemaChanged(now int) error {
	return p.cerr(ErrSchemaChanged, RePrepare, fmt.Sprintf("version %d, the rows were written under %d; run the statement again", now, p.cm.ExpectedSchemaID))
}

// write stages the snapshot document and moves the pointer.
func (p *preparedCommit) write(tx meta.Tx) error {
	snapID := p.snap.ID
	if err := tx.Create(snapshotPath(p.ds, snapID), p.snapData); err != nil {
		return err
	}
	fields := map[string]any{
		"current-snapshot-id":  snapID,
		"last-sequence-number": snapID,
		"next-row-id":          p.nextRowID,
		"current-records":      p.summary.TotalRecords,
		"current-files":        p.summary.TotalFiles,
		"current-bytes":        p.summary.TotalBytes,
		"updated-at":           p.snap.Timestamp.Format(time.RFC3339Nano),
	}
	if p.ds.Creating != nil {
		// The first rows of a CREATE TABLE … AS SELECT publish the table
		// with them (creating.go).
		fields["creating-process"] = nil
	}
	if p.cm.Schema != nil {
		if err := tx.Set(schemaPath(p.ds, p.cm.Schema.ID), p.schemaData); err != nil {
			return err
		}
		fields["schema"], fields["next-field-id"] = p.schemaData, p.cm.NextFieldID
	}
	return tx.Merge(datasetPath(p.id), fields)
}

// abandon deletes the manifest of a commit that certainly did not land
// and returns err as a *CommitError.
func (c *Catalog) abandon(ctx context.Context, p *preparedCommit, err error) error {
	if notLanded(err) {
		c.dropManifest(ctx, p)
	}
	return p.txErr(err)
}

// txErr is the *CommitError of a failed metastore transaction.
func (p *preparedCommit) txErr(err error) error {
	var ce *CommitError
	switch {
	case errors.As(err, &ce):
		return err
	case notLanded(err):
		return p.cerr(err, Retryable, "metastore transaction")
	}
	return p.cerr(err, OutcomeUnknown, "the metastore transaction may have applied; look at the table before running it again")
}

// dropManifest deletes the manifest of a refused commit: nothing
// references it.
func (c *Catalog) dropManifest(ctx context.Context, p *preparedCommit) {
	if p.written != "" {
		_ = c.blob.Delete(context.WithoutCancel(ctx), p.written)
	}
}

// notLanded reports whether a commit that failed with err certainly did
// not land: a guard refused it (a *CommitError), or the metastore refused
// the transaction (ErrExists, ErrContention). Any other failure of the
// metastore transaction — a cancelled context (KILL QUERY), a lost
// connection — may come after the metastore applied it, so its manifest
// stays (orphan cleanup removes it if nothing references it): deleting it
// would leave the head snapshot without its manifest.
func notLanded(err error) bool {
	var ce *CommitError
	return errors.As(err, &ce) || errors.Is(err, meta.ErrExists) || errors.Is(err, meta.ErrContention)
}

// finish brings the prepared dataset to the committed state and audits
// the commit.
func (c *Catalog) finish(ctx context.Context, p *preparedCommit) {
	ds, snap, cm := p.ds, p.snap, p.cm
	ds.CurrentSnapshotID, ds.LastSequenceNumber, ds.NextRowID = snap.ID, snap.ID, p.nextRowID
	ds.CurrentRecords, ds.CurrentFiles, ds.CurrentBytes = p.summary.TotalRecords, p.summary.TotalFiles, p.summary.TotalBytes
	if cm.Schema != nil {
		ds.Schema, ds.NextFieldID = *cm.Schema, cm.NextFieldID
	}
	c.audit(ctx, string(cm.Operation), "snapshot", p.id.Workspace, p.id.Collection, p.id.Name, cm.Author)
}

// ownChange is the commit's change as a delta over its parent, given the
// new live list (whose tail is the added entries, stamped): nil when the
// commit rebuilds or replaces the list, which a base records better.
func ownChange(cm Commit, live []manifest.DataFile) *manifest.Delta {
	if cm.ManifestFiles != nil || cm.ReplaceAll {
		return nil
	}
	seen := make(map[string]bool, len(cm.Removed))
	d := &manifest.Delta{Added: live[len(live)-len(cm.Added):]}
	for _, p := range cm.Removed {
		if !seen[p] {
			seen[p] = true
			d.Removed = append(d.Removed, p)
		}
	}
	return d
}

// nextManifest computes the new live file list and its summary.
func (c *Catalog) nextManifest(ds *Dataset, parent []manifest.DataFile, cm Commit, snapID int64) ([]manifest.DataFile, Summary, int64, error) {
	var sum Summary
	nextRowID := ds.NextRowID
	if cm.ManifestFiles != nil {
		live := cm.ManifestFiles
		sum.TotalFiles, sum.TotalRecords, sum.TotalBytes = manifest.Summary(live)
		pf, pr, _ := manifest.Summary(parent)
		sum.AddedFiles, sum.AddedRecords = max(0, sum.TotalFiles-pf), max(0, sum.TotalRecords-pr)
		sum.DeletedFiles, sum.DeletedRecords = max(0, pf-sum.TotalFiles), max(0, pr-sum.TotalRecords)
		return live, sum, nextRowID, nil
	}
	removed := map[string]bool{}
	for _, p := range cm.Removed {
		removed[p] = true
	}
	live := make([]manifest.DataFile, 0, len(parent)+len(cm.Added))
	found := 0
	for _, f := range parent {
		if cm.ReplaceAll || removed[f.Path] {
			if removed[f.Path] {
				found++
			}
			sum.DeletedFiles++
			sum.DeletedRecords += f.RecordCount
			continue
		}
		live = append(live, f)
	}
	if found != len(removed) {
		return nil, sum, 0, &CommitError{Dataset: ds.Ident().Short(), Err: ErrCommitConflict, Retry: RePrepare,
			Detail: fmt.Sprintf("%d of the files to remove are no longer live", len(removed)-found)}
	}
	livePaths := make(map[string]bool, len(live)+len(cm.Added))
	for _, f := range live {
		livePaths[f.Path] = true
	}
	for _, f := range cm.Added {
		// A file listed twice would be read twice and wedge every later
		// removal (issue 17): refuse it, also when a concurrent commit
		// added it first.
		if livePaths[f.Path] {
			return nil, sum, 0, fmt.Errorf("%w: %s is already live in %s", ErrDuplicateFile, f.Path, ds.Ident().Short())
		}
		livePaths[f.Path] = true
	}
	for _, f := range cm.Added {
		f.AddedSnapshotID = snapID
		f.SequenceNumber = snapID
		if f.Format == "" {
			f.Format = "parquet"
		}
		// Row ids: new rows get the next ones. A compaction output keeps
		// the ids its rows already had when they form one run
		// (RowIDStart >= 0); one that mixes runs asks for new ids (-1).
		if cm.Operation != OpCompact || f.RowIDStart < 0 {
			f.RowIDStart = nextRowID
			nextRowID += f.RecordCount
		}
		live = append(live, f)
		sum.AddedFiles++
		sum.AddedRecords += f.RecordCount
		if f.StatsState == manifest.StatsPending {
			sum.AddedPending++
		}
	}
	sum.TotalFiles, sum.TotalRecords, sum.TotalBytes = manifest.Summary(live)
	return live, sum, nextRowID, nil
}

// afterCommit runs the commit hooks; nothing here can fail the commit.
func (c *Catalog) afterCommit(ctx context.Context, ds *Dataset, snap *Snapshot) {
	h := c.opts.Hooks.AfterCommit
	if h == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("after-commit hook panicked", "dataset", ds.Ident().String(), "snapshot", snap.ID, "panic", r)
		}
	}()
	h(context.WithoutCancel(ctx), ds, snap)
}

// Snapshot loads one snapshot of a dataset. ErrSnapshotNotFound.
func (c *Catalog) Snapshot(ctx context.Context, ds *Dataset, id int64) (*Snapshot, error) {
	d, err := c.meta.Get(ctx, snapshotPath(ds, id))
	if errors.Is(err, meta.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s has no snapshot %d", ErrSnapshotNotFound, ds.Ident().Short(), id)
	}
	if err != nil {
		return nil, fmt.Errorf("load snapshot %d of %s: %w", id, ds.Ident().Short(), err)
	}
	var s Snapshot
	if err := d.Decode(&s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Snapshots lists every snapshot of a dataset in id order.
func (c *Catalog) Snapshots(ctx context.Context, ds *Dataset) ([]Snapshot, error) {
	docs, err := c.meta.List(ctx, meta.Join(ds.DocRoot(), "snapshots"))
	if err != nil {
		return nil, fmt.Errorf("list snapshots of %s: %w", ds.Ident().Short(), err)
	}
	out := make([]Snapshot, 0, len(docs))
	for _, d := range docs {
		var s Snapshot
		if err := d.Decode(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Files returns the live data files of a snapshot (0: the empty table) from
// its manifest, through the manifest cache.
func (c *Catalog) Files(ctx context.Context, ds *Dataset, snapID int64) ([]manifest.DataFile, *Snapshot, error) {
	if snapID == 0 {
		return nil, nil, nil
	}
	snap, err := c.Snapshot(ctx, ds, snapID)
	if err != nil {
		return nil, nil, err
	}
	files, err := c.liveFiles(ctx, ds, snap)
	if err != nil {
		return nil, snap, err
	}
	return files, snap, nil
}

// AddedFiles returns the live files snapshot snapID itself added (their
// AddedSnapshotID is snapID), in manifest order, decoding only the
// manifest row groups that hold them: for an append to a large table that
// is a small fraction of Files' cost. Errors as Files'.
func (c *Catalog) AddedFiles(ctx context.Context, ds *Dataset, snapID int64) ([]manifest.DataFile, *Snapshot, error) {
	snap, err := c.Snapshot(ctx, ds, snapID)
	if err != nil {
		return nil, nil, err
	}
	// The entries a snapshot added are all in the last object of its
	// chain: the base it wrote, or its own delta (merged or not). A
	// rollback's chain ends in an older snapshot's: it added none.
	opts := manifest.DecodeOptions{AddedBy: snap.ID}
	ch := snap.ManifestChain()
	var files []manifest.DataFile
	if len(ch.Deltas) == 0 {
		files, err = manifest.ReadWith(ctx, c.blob, ch.Base, opts)
	} else {
		var d *manifest.Delta
		if d, err = manifest.ReadDelta(ctx, c.blob, ch.Key(), opts); err == nil {
			files = d.Added
		}
	}
	if err != nil && ctx.Err() != nil {
		return nil, snap, ctx.Err() // killed while it read: no damage
	}
	if err != nil {
		return nil, snap, MarkAlertable(fmt.Errorf("%w: %s of %s: %v", ErrManifestUnreadable, ch.Key(), ds.Ident().Short(), err),
			SeverityCritical, "manifest-unreadable:"+ds.UUID, map[string]string{"dataset": ds.Ident().String()})
	}
	return files, snap, nil
}
