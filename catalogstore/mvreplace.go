package catalogstore

import (
	"errors"
	"fmt"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// unregistration is what replacing a materialized view removes, read in
// the replacing transaction before anything is written: the triggers the
// old view has on sources the new view does not read (a source both read
// keeps its trigger, which the new registration overwrites).
type unregistration struct {
	view      Ident
	dropped   []Ident
	srcs      []*Dataset
	remaining []int // triggers left on each dropped source
}

// readReplaced checks inside tx that old is still the view of its name
// (same incarnation) and reads the sources it alone reads.
func readReplaced(tx meta.Tx, old *Dataset, sources []Ident) (*unregistration, error) {
	id := old.Ident()
	cur, err := loadDataset(tx, id)
	if err != nil {
		return nil, err
	}
	if cur.UUID != old.UUID || !cur.IsMaterializedView() {
		return nil, fmt.Errorf("%w: %s was dropped or replaced meanwhile; run the statement again", ErrCommitConflict, id.Short())
	}
	oldSources, err := cur.Sources()
	if err != nil {
		return nil, err
	}
	u := &unregistration{view: id}
	for _, s := range oldSources {
		if containsIdent(sources, s) {
			continue
		}
		src, err := loadDataset(tx, s)
		if errors.Is(err, ErrDatasetNotFound) {
			continue // a source that is gone took its triggers with it
		} else if err != nil {
			return nil, err
		}
		trigs, err := tx.List(triggersColl(src))
		if err != nil {
			return nil, err
		}
		n := 0
		for _, t := range trigs {
			if t.ID() != TriggerName(s, id) {
				n++
			}
		}
		u.dropped, u.srcs, u.remaining = append(u.dropped, s), append(u.srcs, src), append(u.remaining, n)
	}
	return u, nil
}

// write removes the old view's triggers on the sources it alone read
// (nil: nothing to remove). The new registration overwrites the view's
// document.
func (u *unregistration) write(tx meta.Tx) error {
	if u == nil {
		return nil
	}
	for i, s := range u.dropped {
		if err := tx.Delete(triggerPath(u.srcs[i], TriggerName(s, u.view))); err != nil {
			return err
		}
		if err := tx.Merge(datasetPath(s), map[string]any{"trigger-count": int64(u.remaining[i])}); err != nil {
			return err
		}
	}
	return nil
}
