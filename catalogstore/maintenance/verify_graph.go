package maintenance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// The checks Verify runs on the refresh graph: the triggers a dataset
// carries and, for a materialized view, its registration.
const (
	CheckTriggerCycle  = "trigger-cycle"  // following refresh triggers (or source-tables) leads back to the dataset
	CheckTriggerTarget = "trigger-target" // a trigger's view exists, is a materialized view and reads the dataset
	CheckTriggerCount  = "trigger-count"  // the dataset's trigger-count matches its trigger documents
	CheckMVRegistered  = "mv-registration"
)

// maxGraphDepth bounds the walks over the refresh graph (as
// catalogstore's registration check does).
const maxGraphDepth = 64

// graph reads the refresh graph lazily, each dataset and trigger list at
// most once per Verify.
type graph struct {
	cat      *catalogstore.Catalog
	datasets map[catalogstore.Ident]*catalogstore.Dataset // nil: not found
	triggers map[catalogstore.Ident][]catalogstore.Trigger
	// statements are the view's SQL versions, read with the cut.
	statements []catalogstore.Statement
}

func newGraph(cat *catalogstore.Catalog) *graph {
	return &graph{cat: cat, datasets: map[catalogstore.Ident]*catalogstore.Dataset{}, triggers: map[catalogstore.Ident][]catalogstore.Trigger{}}
}

// dataset returns id's document, or nil when it does not exist.
func (g *graph) dataset(ctx context.Context, id catalogstore.Ident) (*catalogstore.Dataset, error) {
	if ds, ok := g.datasets[id]; ok {
		return ds, nil
	}
	ds, err := g.cat.Dataset(ctx, id)
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		ds, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	g.datasets[id] = ds
	return ds, nil
}

// triggersOf returns the triggers on id (none when id does not exist).
func (g *graph) triggersOf(ctx context.Context, id catalogstore.Ident) ([]catalogstore.Trigger, error) {
	if ts, ok := g.triggers[id]; ok {
		return ts, nil
	}
	ts, err := g.cat.Triggers(ctx, id)
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		ts, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	g.triggers[id] = ts
	return ts, nil
}

// cycle walks from start along next and returns the first path that comes
// back to start (start -> ... -> start), or nil.
func (g *graph) cycle(ctx context.Context, start catalogstore.Ident, next func(context.Context, catalogstore.Ident) ([]catalogstore.Ident, error)) ([]string, error) {
	seen := map[catalogstore.Ident]bool{}
	var walk func(cur catalogstore.Ident, path []string) ([]string, error)
	walk = func(cur catalogstore.Ident, path []string) ([]string, error) {
		if seen[cur] || len(path) > maxGraphDepth {
			return nil, nil
		}
		seen[cur] = true
		out, err := next(ctx, cur)
		if err != nil {
			return nil, err
		}
		for _, n := range out {
			p := append(slices.Clip(path), n.String())
			if n == start {
				return p, nil
			}
			if found, err := walk(n, p); found != nil || err != nil {
				return found, err
			}
		}
		return nil, nil
	}
	return walk(start, []string{start.String()})
}

// fires lists the views id's triggers refresh (unparsable targets are
// reported by checkTriggers, not followed).
func (g *graph) fires(ctx context.Context, id catalogstore.Ident) ([]catalogstore.Ident, error) {
	ts, err := g.triggersOf(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []catalogstore.Ident
	for _, t := range ts {
		if tid, err := t.Target(); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// reads lists the sources id's source-tables names (none for a plain
// dataset or a missing one).
func (g *graph) reads(ctx context.Context, id catalogstore.Ident) ([]catalogstore.Ident, error) {
	ds, err := g.dataset(ctx, id)
	if err != nil || ds == nil {
		return nil, err
	}
	srcs, err := ds.Sources()
	if err != nil {
		return nil, nil // reported by checkRegistration on that view
	}
	return srcs, nil
}

// verifyGraph checks ds's place in the refresh graph: no cycle through it
// along triggers or source-tables, every trigger it carries valid, and, for
// a materialized view, a consistent registration.
//
// The dataset, its triggers, their views and (for a view) its sources and
// their triggers are read as one consistent cut (catalogstore.GraphCut):
// ds, read when Verify began, may predate a CREATE or DROP MATERIALIZED
// VIEW that ran since, and comparing its trigger-count with triggers
// listed now would report a mismatch that never existed. A dataset
// dropped or created again since has no graph of its own left to check.
func verifyGraph(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, add func(check string, sev catalogstore.Severity, path, detail string)) error {
	id := ds.Ident()
	cut, err := cat.ReadGraphCut(ctx, id)
	if errors.Is(err, catalogstore.ErrDatasetNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if cut.Dataset.UUID != ds.UUID {
		return nil
	}
	ds = cut.Dataset
	g := newGraph(cat)
	for k, v := range cut.Datasets {
		g.datasets[k] = v
	}
	for k, v := range cut.Triggers {
		g.triggers[k] = v
	}
	g.statements = cut.Statements
	for _, walk := range []struct {
		along string
		next  func(context.Context, catalogstore.Ident) ([]catalogstore.Ident, error)
	}{{"refresh triggers", g.fires}, {"source-tables", g.reads}} {
		path, err := g.cycle(ctx, id, walk.next)
		if err != nil {
			return err
		}
		if path != nil {
			add(CheckTriggerCycle, catalogstore.SeverityCritical, "", fmt.Sprintf("following %s from %s comes back to it: %s", walk.along, id.Short(), strings.Join(path, " -> ")))
		}
	}
	if err := checkTriggers(ctx, g, ds, add); err != nil {
		return err
	}
	if ds.IsMaterializedView() {
		return checkRegistration(ctx, g, ds, add)
	}
	return nil
}

// checkTriggers checks every trigger on ds: its kind, its source, and that
// its view exists, is a materialized view and lists ds among its sources;
// and that ds's trigger-count matches.
func checkTriggers(ctx context.Context, g *graph, ds *catalogstore.Dataset, add func(check string, sev catalogstore.Severity, path, detail string)) error {
	id := ds.Ident()
	ts, err := g.triggersOf(ctx, id)
	if err != nil {
		return err
	}
	if ds.TriggerCount != len(ts) {
		add(CheckTriggerCount, catalogstore.SeverityError, "", fmt.Sprintf("%s's trigger-count is %d but it has %d trigger documents", id.Short(), ds.TriggerCount, len(ts)))
	}
	for _, t := range ts {
		bad := func(why string) {
			add(CheckTriggerTarget, catalogstore.SeverityError, meta.Join(ds.DocRoot(), "triggers", t.Name), fmt.Sprintf("trigger %s on %s: %s", t.Name, id.Short(), why))
		}
		if t.Kind != catalogstore.TriggerKindRefresh {
			bad(fmt.Sprintf("unknown kind %q", t.Kind))
		}
		if t.Source != id.String() {
			bad(fmt.Sprintf("names its source %q, not %s", t.Source, id.String()))
		}
		target, err := t.Target()
		if err != nil {
			bad(fmt.Sprintf("its view %q is not a valid name: %v", t.TargetView, err))
			continue
		}
		view, err := g.dataset(ctx, target)
		if err != nil {
			return err
		}
		switch {
		case view == nil:
			bad(fmt.Sprintf("its view %s does not exist", target.String()))
		case !view.IsMaterializedView():
			bad(fmt.Sprintf("its view %s is not a materialized view", target.String()))
		default:
			srcs, err := view.Sources()
			if err == nil && !slices.Contains(srcs, id) {
				bad(fmt.Sprintf("its view %s does not read %s (source-tables %v)", target.String(), id.Short(), view.SourceTables))
			}
		}
	}
	return nil
}

// checkRegistration checks a materialized view: it has its SQL and its
// statement, and every source exists, is a plain dataset and carries the
// view's refresh trigger.
func checkRegistration(ctx context.Context, g *graph, mv *catalogstore.Dataset, add func(check string, sev catalogstore.Severity, path, detail string)) error {
	id := mv.Ident()
	bad := func(path, why string) {
		add(CheckMVRegistered, catalogstore.SeverityError, path, fmt.Sprintf("materialized view %s: %s", id.Short(), why))
	}
	if strings.TrimSpace(mv.SQL) == "" {
		bad("", "it has no SQL")
	}
	if !slices.ContainsFunc(g.statements, func(s catalogstore.Statement) bool { return s.ID == mv.StatementID }) {
		bad("", fmt.Sprintf("its current statement %q has no statement document", mv.StatementID))
	}
	srcs, err := mv.Sources()
	if err != nil {
		bad("", err.Error())
		return nil
	}
	if len(srcs) == 0 {
		bad("", "it reads no dataset")
	}
	for _, s := range srcs {
		src, err := g.dataset(ctx, s)
		if err != nil {
			return err
		}
		if src == nil {
			bad(s.String(), fmt.Sprintf("its source %s does not exist", s.String()))
			continue
		}
		if src.IsMaterializedView() {
			bad(s.String(), fmt.Sprintf("its source %s is itself a materialized view (they do not stack)", s.String()))
		}
		ts, err := g.triggersOf(ctx, s)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(ts, func(t catalogstore.Trigger) bool { tid, err := t.Target(); return err == nil && tid == id }) {
			bad(s.String(), fmt.Sprintf("its source %s has no refresh trigger for it (%s), so commits there never refresh it", s.String(), catalogstore.TriggerName(s, id)))
		}
	}
	return nil
}
