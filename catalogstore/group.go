package catalogstore

import (
	"context"
	"fmt"
	"sync"
)

// Group commit: concurrent appends to one dataset in one process share a
// commit. Each append that lost a race re-reads the head and rewrites the
// whole manifest, so N appenders racing one dataset make O(N²) manifest
// writes and some starve; queued behind a leader they make one commit per
// round instead. The leader takes everything queued for the dataset,
// commits the union of the files as one snapshot, and hands each member
// the outcome only once that commit is durable (or refused): a statement
// is never acknowledged before its rows are committed.

// maxGroup bounds how many appends one commit carries.
const maxGroup = 256

// groupKey names what may share a commit: the same incarnation, spec,
// author and message (one snapshot has one of each).
type groupKey struct {
	dataset, uuid, author, message string
	checkSpec                      bool
	spec                           int
}

func keyOf(id Ident, cm Commit) groupKey {
	return groupKey{dataset: id.String(), uuid: cm.ExpectedUUID, author: cm.Author, message: cm.Message,
		checkSpec: cm.CheckSpec, spec: cm.ExpectedSpecID}
}

// groupOutcome is what a member receives: its commit's result, or lead =
// true when it must now lead the queue.
type groupOutcome struct {
	snap *Snapshot
	err  error
	lead bool
}

type groupMember struct {
	cm   Commit
	done chan groupOutcome // buffered: the leader never blocks on a member
}

type appendQueue struct {
	waiting []*groupMember
}

// appendGroups holds one queue per dataset with a commit in flight. A
// queue exists while it has a leader; it is safe for concurrent use.
type appendGroups struct {
	mu     sync.Mutex
	queues map[groupKey]*appendQueue
}

// join queues m and reports whether it leads (no commit was in flight).
func (g *appendGroups) join(k groupKey, m *groupMember) (lead bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.queues == nil {
		g.queues = map[groupKey]*appendQueue{}
	}
	q, ok := g.queues[k]
	if !ok {
		q = &appendQueue{}
		g.queues[k] = q
	}
	q.waiting = append(q.waiting, m)
	return !ok
}

// take removes the next batch from k's queue.
func (g *appendGroups) take(k groupKey) []*groupMember {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.queues[k]
	n := min(len(q.waiting), maxGroup)
	batch := q.waiting[:n:n]
	q.waiting = q.waiting[n:]
	return batch
}

// handOff passes the lead to the first waiting member, or removes k's
// queue when nobody waits.
func (g *appendGroups) handOff(k groupKey) {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.queues[k]
	if len(q.waiting) == 0 {
		delete(g.queues, k)
		return
	}
	q.waiting[0].done <- groupOutcome{lead: true}
}

// groups reports whether cm may share a commit with concurrent appends:
// user appends of files lakesql wrote (unique names), nothing removed and
// no schema change.
func (c *Catalog) groups(cm Commit) bool {
	return cm.Operation == OpAppend && c.rebases(cm) && !cm.Housekeeping && cm.Schema == nil
}

// commitGrouped queues cm behind the dataset's commit in flight, or leads
// the queue when there is none. It returns once the commit carrying cm's
// files is durable or refused; it does not return early when ctx is
// cancelled, since that commit may still land.
func (c *Catalog) commitGrouped(ctx context.Context, id Ident, cm Commit) (*Snapshot, error) {
	k := keyOf(id, cm)
	m := &groupMember{cm: cm, done: make(chan groupOutcome, 1)}
	lead := c.appends.join(k, m)
	if !lead {
		out := <-m.done
		if !out.lead {
			return out.snap, out.err
		}
	}
	c.leadBatch(ctx, id, k)
	out := <-m.done // the batch just committed included m
	return out.snap, out.err
}

// leadBatch commits the next batch of k's queue as one snapshot, gives
// every member the outcome and hands the lead on.
func (c *Catalog) leadBatch(ctx context.Context, id Ident, k groupKey) {
	defer c.appends.handOff(k)
	batch := c.appends.take(k)
	merged := batch[0].cm
	if len(batch) > 1 {
		merged.Added = nil
		for _, m := range batch {
			merged.Added = append(merged.Added, m.cm.Added...)
			merged.BaseSnapshotID = max(merged.BaseSnapshotID, m.cm.BaseSnapshotID)
		}
		// The commit is the other members' too: the leader's client
		// going away must not refuse theirs.
		ctx = context.WithoutCancel(ctx)
	}
	snap, err := c.commitSafely(ctx, id, merged)
	for _, m := range batch {
		m.done <- groupOutcome{snap: snap, err: err}
	}
}

// commitSafely is commitRebasing with a panic turned into an error, so the
// members waiting for the outcome are never left blocked.
func (c *Catalog) commitSafely(ctx context.Context, id Ident, cm Commit) (snap *Snapshot, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("group commit panicked", "dataset", id.String(), "panic", r)
			// Whether the commit landed is unknown: no commit error
			// (which would invite a re-run).
			snap, err = nil, fmt.Errorf("group commit to %s: internal error: %v", id.Short(), r)
		}
	}()
	return c.commitRebasing(ctx, id, cm)
}
