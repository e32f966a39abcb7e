package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/schema"
)

// Errors of materialized views. They are caller errors: never alertable.
var (
	// ErrNotMaterializedView: a materialized-view statement named a
	// dataset that is a plain table.
	ErrNotMaterializedView = errors.New("not a materialized view")
	// ErrRefreshDenied: the invoker of a refresh lacks SELECT on a source
	// or INSERT on the view.
	ErrRefreshDenied = errors.New("refresh denied")
)

// Refresh statuses, as last-refresh-status and `mv$refreshes` show them.
const (
	RefreshOK            = "ok"
	RefreshFailed        = "failed"
	RefreshDenied        = "denied"
	RefreshEgressBlocked = "egress-blocked"
	// RefreshPending: the view was created and registered but its first
	// fill has not completed (the creating statement died mid-way); a
	// refresh fills it.
	RefreshPending = "pending"
)

// RefreshStatusOf classifies a refresh error: denied, egress-blocked or
// failed (nil is ok).
func RefreshStatusOf(err error) string {
	switch {
	case err == nil:
		return RefreshOK
	case errors.Is(err, ErrEgressRestricted):
		return RefreshEgressBlocked
	case errors.Is(err, ErrRefreshDenied):
		return RefreshDenied
	default:
		return RefreshFailed
	}
}

// MVState is the trigger and materialized-view bookkeeping of a dataset
// document, embedded in Dataset (its fields are top-level document
// fields).
type MVState struct {
	// TriggerCount is the number of refresh triggers on this dataset (a
	// source), kept by registration so a commit on a dataset without
	// triggers reads nothing more.
	TriggerCount int `json:"trigger-count,omitempty"`
	// SQLWorkspace and SQLDatabase are the session's workspace and
	// current database the view's SQL was written in; refreshes run it
	// there.
	SQLWorkspace string `json:"sql-workspace,omitempty"`
	SQLDatabase  string `json:"sql-database,omitempty"`
	// The last refresh (materialized views only).
	LastRefreshStatus      string     `json:"last-refresh-status,omitempty"`
	LastRefreshAt          *time.Time `json:"last-refresh-at,omitempty"`
	LastRefreshExecutionID string     `json:"last-refresh-execution-id,omitempty"`
	LastRefreshMessage     string     `json:"last-refresh-message,omitempty"`
}

// Sources returns the identifiers of a materialized view's source-tables
// (relative names are in the view's workspace).
func (d *Dataset) Sources() ([]Ident, error) {
	out := make([]Ident, 0, len(d.SourceTables))
	for _, s := range d.SourceTables {
		id, err := ParseIdent(d.Workspace, s)
		if err != nil {
			return nil, fmt.Errorf("materialized view %s: source %q: %w", d.Ident().Short(), s, err)
		}
		out = append(out, id)
	}
	return out, nil
}

// sourceName is how a view's source-tables lists src: collection.name in
// the view's workspace, workspace.collection.name outside it.
func sourceName(mv, src Ident) string {
	if src.Workspace == mv.Workspace {
		return src.Short()
	}
	return src.String()
}

// MaterializedViewSpec is what registering a materialized view records.
type MaterializedViewSpec struct {
	// SQL is the defining SELECT, as written.
	SQL string
	// Sources are the datasets the planned SELECT reads.
	Sources []Ident
	Comment string
	// SQLWorkspace and SQLDatabase: where SQL's relative names resolve.
	SQLWorkspace string
	SQLDatabase  string
	// History are earlier versions of the SQL to keep (CREATE OR REPLACE
	// carries the replaced view's statements over).
	History []Statement
	// Replaces is the view CREATE OR REPLACE replaces (nil: the name must
	// be free). CreateMaterializedView swaps it for the new view in the
	// one transaction that registers the new view, so a replacement cut
	// short leaves the old view or the new one, never neither.
	Replaces *Dataset
	// SourceSnapshots are the sources' snapshots when a dataset filled
	// before its registration was filled (RegisterMaterializedView records
	// that fill as the view's first refresh, trigger "create").
	// CreateMaterializedView ignores them: its fill is a refresh, which
	// records what it read.
	SourceSnapshots map[Ident]int64
}

// CheckMaterializedView validates a registration before anything is
// written: the view reads at least one dataset, every source exists and is
// a plain dataset (no stacking), the view is not itself read by another
// view, the transitive walk over source-tables finds no cycle, and egress
// protection allows every source.
func (c *Catalog) CheckMaterializedView(ctx context.Context, id Ident, sources []Ident) error {
	if err := id.Check("materialized view"); err != nil {
		return err
	}
	if len(sources) == 0 {
		return fmt.Errorf("%w: materialized view %s must read at least one dataset", ErrNotSupported, id.Short())
	}
	if err := c.checkNoCycle(ctx, id, sources); err != nil {
		return err
	}
	for _, s := range sources {
		ds, err := c.Dataset(ctx, s)
		if err != nil {
			return fmt.Errorf("materialized view %s: source %s: %w", id.Short(), s.String(), err)
		}
		if ds.IsMaterializedView() {
			return fmt.Errorf("%w: source %s of %s is itself a materialized view; materialized views do not stack (read its sources instead)",
				ErrNotSupported, sourceName(id, s), id.Short())
		}
	}
	readers, err := c.readersOf(ctx, id)
	if err != nil {
		return err
	}
	for _, r := range readers {
		if r != id {
			return fmt.Errorf("%w: %s is read by materialized view %s, so it cannot become a materialized view (they do not stack)",
				ErrNotSupported, id.Short(), sourceName(id, r))
		}
	}
	return EnforceEgress(ctx, c, sources, id.Workspace, "create materialized view "+id.String())
}

// maxMVDepth bounds the cycle walk.
const maxMVDepth = 64

// checkNoCycle walks source-tables transitively from sources and refuses
// reaching id. The no-stacking rule makes a cycle impossible between
// registrations made here; the walk is the backstop for documents written
// before it or edited out of band.
func (c *Catalog) checkNoCycle(ctx context.Context, id Ident, sources []Ident) error {
	seen := map[Ident]bool{}
	var walk func(cur Ident, path []string) error
	walk = func(cur Ident, path []string) error {
		path = append(path, cur.String())
		if cur == id {
			return fmt.Errorf("%w: materialized view %s would form a cycle: %s", ErrNotSupported, id.Short(), strings.Join(path, " -> "))
		}
		if seen[cur] || len(path) > maxMVDepth {
			return nil
		}
		seen[cur] = true
		ds, err := c.Dataset(ctx, cur)
		if errors.Is(err, ErrDatasetNotFound) {
			return nil // existence is checked by the caller
		}
		if err != nil {
			return err
		}
		next, err := ds.Sources()
		if err != nil {
			return err
		}
		for _, n := range next {
			if err := walk(n, path); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range sources {
		if err := walk(s, []string{id.String()}); err != nil {
			return err
		}
	}
	return nil
}

// readersOf returns the materialized views reading id: those that
// registered a trigger on it (any workspace), and those of its workspace
// listing it in source-tables (the backstop for a missing trigger).
func (c *Catalog) readersOf(ctx context.Context, id Ident) ([]Ident, error) {
	out, err := c.triggerReaders(ctx, id)
	if err != nil {
		return nil, err
	}
	scan, err := c.mvReaders(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, r := range scan {
		if !containsIdent(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// RegisterMaterializedView turns the dataset id, already created and
// filled, into a materialized view: dataset-type, source-tables and a new
// statement version on the view, and one trigger document per source, all
// in one metastore transaction, so there is never a trigger without its
// view nor a view without its triggers. The fill is recorded as the view's
// first refresh (trigger "create").
func (c *Catalog) RegisterMaterializedView(ctx context.Context, id Ident, author string, spec MaterializedViewSpec) (*Dataset, error) {
	sources := dedupe(spec.Sources)
	if err := c.CheckMaterializedView(ctx, id, sources); err != nil {
		return nil, err
	}
	now := c.now()
	stmt := Statement{ID: uuid.NewString(), SQL: spec.SQL, Author: author, CreatedAt: now}
	var out *Dataset
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		if ds.IsMaterializedView() {
			return fmt.Errorf("%w: %s is already a materialized view", ErrDatasetExists, id.Short())
		}
		r, err := readRegistration(tx, id, sources, spec)
		if err != nil {
			return err
		}
		out = ds
		return writeRegistration(tx, ds, r, spec, stmt, author, true)
	})
	if err != nil {
		return nil, fmt.Errorf("register materialized view %s: %w", id.Short(), err)
	}
	c.audit(ctx, "create", "materialized_view", id.Workspace, id.Collection, id.Name, author,
		slog.String("statement_id", stmt.ID), slog.String("sources", strings.Join(out.SourceTables, ",")))
	return out, nil
}

// CreateMaterializedView creates the materialized view id with schema s,
// empty and registered whole, in one metastore transaction: its document
// with its definition (SQL, source-tables), its statement versions and one
// trigger per source. Its last-refresh-status is RefreshPending until a
// refresh fills it (CREATE MATERIALIZED VIEW runs that refresh next and
// drops the view when it fails; a process that dies in between leaves a
// whole, pending view, never a plain table). ErrDatasetExists, and the
// errors of CheckMaterializedView and CreateDataset.
func (c *Catalog) CreateMaterializedView(ctx context.Context, id Ident, s schema.Schema, author string, spec MaterializedViewSpec) (*Dataset, error) {
	sources := dedupe(spec.Sources)
	if err := c.CheckMaterializedView(ctx, id, sources); err != nil {
		return nil, err
	}
	nd, err := c.newDataset(id, s, author, CreateDatasetOptions{Comment: spec.Comment})
	if err != nil {
		return nil, err
	}
	stmt := Statement{ID: uuid.NewString(), SQL: spec.SQL, Author: author, CreatedAt: nd.ds.CreatedAt}
	var out *Dataset
	var keep map[string]bool
	if old := spec.Replaces; old != nil {
		if keep, err = c.ExternalFiles(ctx, old); err != nil {
			return nil, err
		}
	}
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		var unreg *unregistration
		if old := spec.Replaces; old == nil {
			if _, err := c.checkFree(tx, id, false); err != nil {
				return err
			}
		} else if unreg, err = readReplaced(tx, old, sources); err != nil {
			return err
		}
		r, err := readRegistration(tx, id, sources, spec)
		if err != nil {
			return err
		}
		// The dataset document is written once, registered: the name
		// was checked free (or the replaced view current) in this
		// transaction.
		if err := unreg.write(tx); err != nil {
			return err
		}
		if err := nd.writeSubDocs(tx); err != nil {
			return err
		}
		ds := *nd.ds // the function may run again
		out = &ds
		return writeRegistration(tx, out, r, spec, stmt, author, false)
	})
	if err != nil {
		return nil, fmt.Errorf("create materialized view %s: %w", id.Short(), err)
	}
	if old := spec.Replaces; old != nil {
		c.purgeIncarnation(ctx, old, "replace materialized view", keep)
	}
	c.audit(ctx, "create", "materialized_view", id.Workspace, id.Collection, id.Name, author,
		slog.String("statement_id", stmt.ID), slog.String("sources", strings.Join(out.SourceTables, ",")))
	return out, nil
}

// registration is what registering a view reads in its transaction
// before it writes anything (Firestore transactions read first).
type registration struct {
	sources []Ident
	srcs    []*Dataset
	counts  []int // triggers on each source other than the view's
	names   []string
	snaps   map[string]int64
}

// readRegistration reads every source of view id and its triggers (for
// the count) inside tx: each must exist and be a plain dataset.
func readRegistration(tx meta.Tx, id Ident, sources []Ident, spec MaterializedViewSpec) (*registration, error) {
	counts := make([]int, len(sources))
	current := make([]int64, len(sources))
	srcs := make([]*Dataset, len(sources))
	for i, s := range sources {
		src, err := loadDataset(tx, s)
		if errors.Is(err, ErrDatasetNotFound) {
			return nil, fmt.Errorf("materialized view %s: source %s: %w", id.Short(), s.String(), ErrDatasetNotFound)
		} else if err != nil {
			return nil, err
		}
		if src.IsMaterializedView() {
			return nil, fmt.Errorf("%w: source %s of %s is itself a materialized view; materialized views do not stack",
				ErrNotSupported, sourceName(id, s), id.Short())
		}
		current[i], srcs[i] = src.CurrentSnapshotID, src
		trigs, err := tx.List(triggersColl(src))
		if err != nil {
			return nil, err
		}
		name := TriggerName(s, id)
		for _, t := range trigs {
			if t.ID() != name {
				counts[i]++
			}
		}
	}
	names := make([]string, len(sources))
	snaps := map[string]int64{}
	for i, s := range sources {
		names[i] = sourceName(id, s)
		snaps[names[i]] = current[i]
		if snap, ok := spec.SourceSnapshots[s]; ok {
			snaps[names[i]] = snap
		}
	}
	return &registration{sources: sources, srcs: srcs, counts: counts, names: names, snaps: snaps}, nil
}

// writeRegistration makes ds a materialized view inside tx, after
// readRegistration: its document, its statements and one trigger per
// source with the source's trigger-count. filled records ds's current
// snapshot as the first refresh; otherwise the view is pending (created,
// not filled yet).
func writeRegistration(tx meta.Tx, ds *Dataset, r *registration, spec MaterializedViewSpec, stmt Statement, author string, filled bool) error {
	id, now, names := ds.Ident(), stmt.CreatedAt, r.names
	ds.Type, ds.SourceTables, ds.SQL, ds.StatementID = TypeMaterializedView, names, spec.SQL, stmt.ID
	ds.SQLWorkspace, ds.SQLDatabase, ds.UpdatedAt = spec.SQLWorkspace, spec.SQLDatabase, now
	if spec.Comment != "" {
		ds.Comment = spec.Comment
	}
	if filled {
		fill := Refresh{ExecutionID: NewExecutionID(), Status: RefreshOK, Trigger: "create", Author: author,
			StartedAt: now, FinishedAt: now, SourceSnapshots: r.snaps, SnapshotID: ds.CurrentSnapshotID,
			Records: ds.CurrentRecords, StatementID: stmt.ID}
		fillData, err := meta.Encode(fill)
		if err != nil {
			return err
		}
		if err := tx.Set(meta.Join(ds.DocRoot(), "refreshes", fill.ExecutionID), fillData); err != nil {
			return err
		}
		ds.LastRefreshStatus, ds.LastRefreshAt, ds.LastRefreshExecutionID, ds.LastRefreshMessage = RefreshOK, &now, fill.ExecutionID, ""
	} else {
		ds.LastRefreshStatus, ds.LastRefreshAt, ds.LastRefreshExecutionID = RefreshPending, nil, ""
		ds.LastRefreshMessage = "created; its first fill has not completed (REFRESH MATERIALIZED VIEW fills it)"
	}
	data, err := meta.Encode(ds)
	if err != nil {
		return err
	}
	if err := tx.Set(datasetPath(id), data); err != nil {
		return err
	}
	for _, h := range append(append([]Statement(nil), spec.History...), stmt) {
		sd, err := meta.Encode(h)
		if err != nil {
			return err
		}
		if err := tx.Set(meta.Join(ds.DocRoot(), "statement", h.ID), sd); err != nil {
			return err
		}
	}
	for i, s := range r.sources {
		name := TriggerName(s, id)
		td, err := meta.Encode(Trigger{
			Name: name, Kind: TriggerKindRefresh, Source: s.String(), TargetView: id.String(),
			StatementID: stmt.ID, Author: author, CreatedAt: now,
		})
		if err != nil {
			return err
		}
		if err := tx.Set(triggerPath(r.srcs[i], name), td); err != nil {
			return err
		}
		if err := tx.Merge(datasetPath(s), map[string]any{"trigger-count": int64(r.counts[i] + 1)}); err != nil {
			return err
		}
	}
	return nil
}

func dedupe(ids []Ident) []Ident {
	var out []Ident
	for _, id := range ids {
		if !containsIdent(out, id) {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// MaterializedView loads a materialized view. ErrDatasetNotFound;
// ErrNotMaterializedView for a plain table.
func (c *Catalog) MaterializedView(ctx context.Context, id Ident) (*Dataset, error) {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	if !ds.IsMaterializedView() {
		return nil, fmt.Errorf("%w: %s is a table", ErrNotMaterializedView, id.Short())
	}
	return ds, nil
}

// ListMaterializedViews returns the materialized views of a collection,
// sorted by name.
func (c *Catalog) ListMaterializedViews(ctx context.Context, ws, coll string) ([]Dataset, error) {
	dss, err := c.ListDatasets(ctx, ws, coll)
	if err != nil {
		return nil, err
	}
	out := dss[:0]
	for _, d := range dss {
		if d.IsMaterializedView() {
			out = append(out, d)
		}
	}
	return out, nil
}

// MaterializedViewStatements lists the SQL versions of a materialized
// view, oldest first.
func (c *Catalog) MaterializedViewStatements(ctx context.Context, id Ident) ([]Statement, error) {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	return c.statements(ctx, ds.DocRoot())
}

// DropMaterializedView drops a materialized view: its triggers on every
// source and its document in one transaction, then its sub-documents and
// data. ErrDatasetNotFound, ErrNotMaterializedView, ErrLocked.
func (c *Catalog) DropMaterializedView(ctx context.Context, id Ident, author string) error {
	ds, err := c.MaterializedView(ctx, id)
	if err != nil {
		return err
	}
	return c.drop(ctx, ds, "materialized_view", author)
}

// unregisterMaterializedView removes the view's trigger from every source
// (adjusting their trigger-count) and deletes the view's document, in one
// transaction: a raw DROP TABLE on a view cannot strand triggers.
func (c *Catalog) unregisterMaterializedView(ctx context.Context, ds *Dataset) error {
	id := ds.Ident()
	sources, err := ds.Sources()
	if err != nil {
		return err
	}
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		cur, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		if cur.UUID != ds.UUID {
			return fmt.Errorf("%w: %s was recreated meanwhile", ErrCommitConflict, id.Short())
		}
		// A source that is gone took its triggers with its incarnation.
		remaining := make([]int, len(sources))
		srcs := make([]*Dataset, len(sources))
		for i, s := range sources {
			src, err := loadDataset(tx, s)
			if errors.Is(err, ErrDatasetNotFound) {
				continue
			} else if err != nil {
				return err
			}
			srcs[i] = src
			trigs, err := tx.List(triggersColl(src))
			if err != nil {
				return err
			}
			for _, t := range trigs {
				if t.ID() != TriggerName(s, id) {
					remaining[i]++
				}
			}
		}
		for i, s := range sources {
			if srcs[i] == nil {
				continue
			}
			if err := tx.Delete(triggerPath(srcs[i], TriggerName(s, id))); err != nil {
				return err
			}
			if err := tx.Merge(datasetPath(s), map[string]any{"trigger-count": int64(remaining[i])}); err != nil {
				return err
			}
		}
		return tx.Delete(datasetPath(id))
	})
	if err != nil {
		return fmt.Errorf("drop materialized view %s: %w", id.Short(), err)
	}
	return nil
}

// dropWorkspaceMaterializedViews drops every materialized view of a
// workspace, the first step of DROP WORKSPACE: afterwards no source of the
// workspace is read by a view of it.
func (c *Catalog) dropWorkspaceMaterializedViews(ctx context.Context, ws string, colls []Collection, author string) error {
	for _, coll := range colls {
		mvs, err := c.ListMaterializedViews(ctx, ws, coll.Name)
		if err != nil {
			return err
		}
		for _, mv := range mvs {
			if err := c.DropMaterializedView(ctx, mv.Ident(), author); err != nil && !errors.Is(err, ErrDatasetNotFound) {
				return err
			}
		}
	}
	return nil
}

// Refresh is one refresh of a materialized view, successful or not: a
// document {view}/refreshes/{execution-id}, which `mv$refreshes` lists.
type Refresh struct {
	ExecutionID string `json:"execution-id"`
	Status      string `json:"status"`
	// Trigger is the trigger that fired it, or "manual" (REFRESH
	// MATERIALIZED VIEW).
	Trigger    string    `json:"trigger"`
	Author     string    `json:"author"`
	StartedAt  time.Time `json:"started-at"`
	FinishedAt time.Time `json:"finished-at"`
	// SourceSnapshots are the snapshot ids of the sources the refresh
	// read, by source name (as in source-tables).
	SourceSnapshots map[string]int64 `json:"source-snapshots,omitempty"`
	// SnapshotID is the view's snapshot the refresh committed (0 when it
	// committed none).
	SnapshotID  int64  `json:"snapshot-id,omitempty"`
	Records     int64  `json:"records"`
	StatementID string `json:"statement-id,omitempty"`
	Message     string `json:"message,omitempty"`
	// ViewUUID is the incarnation of the view the refresh ran for, once
	// it read the view: RecordRefresh records it on that incarnation
	// only, never on a view of the same name created since.
	ViewUUID string `json:"view-uuid,omitempty"`
}

// RecordRefresh stores a refresh and sets the view's last-refresh fields,
// in one transaction. An ok refresh is audited as "refresh"; the others as
// "refresh.<status>".
func (c *Catalog) RecordRefresh(ctx context.Context, id Ident, r Refresh) error {
	if r.ExecutionID == "" {
		r.ExecutionID = NewExecutionID()
	}
	if r.FinishedAt.IsZero() {
		r.FinishedAt = c.now()
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = r.FinishedAt
	}
	data, err := meta.Encode(r)
	if err != nil {
		return err
	}
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		ds, err := loadDataset(tx, id)
		if err != nil {
			return err
		}
		if !ds.IsMaterializedView() {
			return fmt.Errorf("%w: %s is a table", ErrNotMaterializedView, id.Short())
		}
		if r.ViewUUID != "" && ds.UUID != r.ViewUUID {
			return fmt.Errorf("%w: the materialized view the refresh ran for (uuid %s) was dropped; %s is now %s", ErrIncarnationChanged, r.ViewUUID, id.Short(), ds.UUID)
		}
		if err := tx.Set(meta.Join(ds.DocRoot(), "refreshes", r.ExecutionID), data); err != nil {
			return err
		}
		return tx.Merge(datasetPath(id), map[string]any{
			"last-refresh-status":       r.Status,
			"last-refresh-at":           r.FinishedAt.UTC().Format(time.RFC3339Nano),
			"last-refresh-execution-id": r.ExecutionID,
			"last-refresh-message":      r.Message,
		})
	})
	if err != nil {
		return fmt.Errorf("record refresh of %s: %w", id.Short(), err)
	}
	action := "refresh"
	if r.Status != RefreshOK {
		action = "refresh." + strings.ReplaceAll(r.Status, "-", "_")
	}
	c.audit(ctx, action, "materialized_view", id.Workspace, id.Collection, id.Name, r.Author,
		slog.String("execution_id", r.ExecutionID), slog.String("status", r.Status), slog.String("trigger", r.Trigger))
	return nil
}

// RefreshRow is a refresh with its staleness, as `mv$refreshes` shows it.
type RefreshRow struct {
	Refresh
	// Stale: a source has moved past the snapshot this refresh read.
	Stale bool
	// CommitsBehind sums, over the sources, how many snapshots each has
	// taken since the snapshot this refresh read.
	CommitsBehind int64
}

// Refreshes lists a materialized view's refreshes, oldest first, with
// their staleness against the sources' current snapshots.
func (c *Catalog) Refreshes(ctx context.Context, id Ident) ([]RefreshRow, error) {
	mv, err := c.MaterializedView(ctx, id)
	if err != nil {
		return nil, err
	}
	docs, err := c.meta.List(ctx, meta.Join(mv.DocRoot(), "refreshes"))
	if err != nil {
		return nil, err
	}
	current := map[string]int64{}
	sources, _ := mv.Sources()
	for _, s := range sources {
		if ds, err := c.Dataset(ctx, s); err == nil {
			current[sourceName(id, s)] = ds.CurrentSnapshotID
		}
	}
	out := make([]RefreshRow, 0, len(docs))
	for _, d := range docs {
		var r Refresh
		if err := d.Decode(&r); err != nil {
			return nil, err
		}
		row := RefreshRow{Refresh: r}
		if len(r.SourceSnapshots) > 0 {
			for name, cur := range current {
				read, ok := r.SourceSnapshots[name]
				if !ok || cur != read {
					row.Stale = true
				}
				if ok && cur > read {
					row.CommitsBehind += cur - read
				}
			}
		} else {
			row.Stale = true // nothing was read
		}
		out = append(out, row)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartedAt.Before(out[j].StartedAt) })
	return out, nil
}

// NewExecutionID returns a new, time-ordered execution id.
func NewExecutionID() string {
	if u, err := uuid.NewV7(); err == nil {
		return u.String()
	}
	return uuid.NewString()
}
