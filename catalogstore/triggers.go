package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// TriggerKindRefresh is the kind of the triggers materialized views
// register on their sources.
const TriggerKindRefresh = "materialized_view_refresh"

// Trigger is a refresh trigger document under a source dataset's
// incarnation, {source's DocRoot}/triggers/{name}. It lives in a
// sub-collection so loading the dataset does not pay for it; the dataset
// document only carries a trigger-count, so commits on datasets without
// triggers never read this collection.
type Trigger struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Source is the dataset carrying the trigger, ws.coll.name.
	Source string `json:"source"`
	// TargetView is the materialized view it refreshes, ws.coll.name.
	TargetView  string    `json:"target-view"`
	StatementID string    `json:"statement-id,omitempty"`
	Author      string    `json:"author"`
	CreatedAt   time.Time `json:"created-at"`
	// Firing state: the last fire, its job, and how that job ended
	// (enqueued, coalesced, fire_failed, then the job's status).
	LastFiredAt     *time.Time `json:"last-fired-at,omitempty"`
	LastFiredStatus string     `json:"last-fired-status,omitempty"`
	LastExecutionID string     `json:"last-execution-id,omitempty"`
}

// Target returns the identifier of the materialized view the trigger
// refreshes.
func (t *Trigger) Target() (Ident, error) { return ParseIdent("", t.TargetView) }

// TriggerName is the name of the trigger that materialized view mv
// registers on a source: refresh__{collection}__{view}, with the view's
// workspace in front when it is not the source's.
func TriggerName(source, mv Ident) string {
	if source.Workspace != mv.Workspace {
		return "refresh__" + mv.Workspace + "__" + mv.Collection + "__" + mv.Name
	}
	return "refresh__" + mv.Collection + "__" + mv.Name
}

func triggerPath(source *Dataset, name string) string {
	return meta.Join(triggersColl(source), name)
}

// Triggers lists the triggers of a dataset, by name. ErrDatasetNotFound.
func (c *Catalog) Triggers(ctx context.Context, id Ident) ([]Trigger, error) {
	ds, err := c.Dataset(ctx, id)
	if err != nil {
		return nil, err
	}
	docs, err := c.meta.List(ctx, triggersColl(ds))
	if err != nil {
		return nil, fmt.Errorf("list triggers of %s: %w", id.Short(), err)
	}
	return decodeTriggers(docs)
}

func decodeTriggers(docs []meta.Doc) ([]Trigger, error) {
	out := make([]Trigger, 0, len(docs))
	for _, d := range docs {
		var t Trigger
		if err := d.Decode(&t); err != nil {
			return nil, err
		}
		t.Name = d.ID()
		out = append(out, t)
	}
	return out, nil
}

// triggerReaders returns the materialized views that registered a trigger
// on dataset id, in any workspace (none when id does not exist).
func (c *Catalog) triggerReaders(ctx context.Context, id Ident) ([]Ident, error) {
	ds, err := c.Dataset(ctx, id)
	if errors.Is(err, ErrDatasetNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	docs, err := c.meta.List(ctx, triggersColl(ds))
	if err != nil {
		return nil, err
	}
	trigs, err := decodeTriggers(docs)
	if err != nil {
		return nil, err
	}
	var out []Ident
	for _, t := range trigs {
		if tid, err := t.Target(); err == nil && !containsIdent(out, tid) {
			out = append(out, tid)
		}
	}
	return out, nil
}
