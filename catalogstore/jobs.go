package catalogstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/lakesql/lakesql/catalogstore/meta"
)

// ErrJobNotFound: no jobs/{execution-id} document.
var ErrJobNotFound = errors.New("job not found")

// JobStatus is where a refresh job is: pending → running → one of the
// final statuses.
type JobStatus string

const (
	JobPending       JobStatus = "pending"
	JobRunning       JobStatus = "running"
	JobSucceeded     JobStatus = "succeeded"
	JobFailed        JobStatus = "failed"
	JobDenied        JobStatus = "denied"
	JobEgressBlocked JobStatus = "egress-blocked"
)

// Final reports whether the status is a final one.
func (s JobStatus) Final() bool { return s != JobPending && s != JobRunning }

// JobStatusOf maps a refresh status (RefreshOK, ...) to the job status.
func JobStatusOf(refreshStatus string) JobStatus {
	switch refreshStatus {
	case RefreshOK:
		return JobSucceeded
	case RefreshDenied:
		return JobDenied
	case RefreshEgressBlocked:
		return JobEgressBlocked
	default:
		return JobFailed
	}
}

// JobKindRefresh is the kind of materialized-view refresh jobs.
const JobKindRefresh = "materialized_view_refresh"

// Job is a refresh job document, jobs/{execution-id}.
type Job struct {
	ExecutionID string `json:"execution-id"`
	Kind        string `json:"kind"`
	// Target is the materialized view to refresh, ws.coll.name.
	Target string `json:"target"`
	// Source and Trigger say what fired: the dataset committed to and its
	// trigger; SourceSnapshotID is the firing (latest coalesced) commit.
	Source           string `json:"source"`
	Trigger          string `json:"trigger"`
	SourceSnapshotID int64  `json:"source-snapshot-id"`
	// Author is the invoker: the author of the firing commit. The refresh
	// runs with this user's rights, re-read when it runs.
	Author string    `json:"author"`
	Status JobStatus `json:"status"`
	// Coalesced counts the further fires folded into this pending job.
	Coalesced  int        `json:"coalesced"`
	Attempts   int        `json:"attempts"`
	CreatedAt  time.Time  `json:"created-at"`
	StartedAt  *time.Time `json:"started-at,omitempty"`
	FinishedAt *time.Time `json:"finished-at,omitempty"`
	Message    string     `json:"message,omitempty"`
}

// TargetIdent parses the job's target.
func (j *Job) TargetIdent() (Ident, error) { return ParseIdent("", j.Target) }

const jobsColl = "jobs"

func jobPath(id string) string { return meta.Join(jobsColl, id) }

// Queue hands pending refresh jobs to workers. Enqueue is called after the
// job document is written; an error leaves the job to the caller (the
// firing path marks it failed, alerts and audits).
type Queue interface {
	Enqueue(ctx context.Context, job *Job) error
}

// FireOptions tune trigger firing.
type FireOptions struct {
	// MinInterval coalesces fires: a fire within MinInterval of the
	// trigger's last one, by the same author, while that job is still
	// pending, folds into it (the refresh recomputes everything when it
	// runs, so it sees both commits). Zero never coalesces.
	MinInterval time.Duration
}

// FiresFor reports whether a commit fires triggers: a user-created snapshot
// of any operation but housekeeping, on a dataset carrying triggers. It
// reads nothing: commits on datasets without triggers stay as cheap as
// before.
func FiresFor(ds *Dataset, snap *Snapshot) bool {
	if ds == nil || snap == nil || !snap.UserCreated || ds.TriggerCount <= 0 {
		return false
	}
	switch snap.Operation {
	case OpCompact, OpStatisticsRefresh:
		return false
	}
	return true
}

// TriggerHook returns the after-commit hook that fires triggers into q.
func (c *Catalog) TriggerHook(q Queue, opts FireOptions) func(ctx context.Context, ds *Dataset, snap *Snapshot) {
	return func(ctx context.Context, ds *Dataset, snap *Snapshot) {
		if FiresFor(ds, snap) {
			c.FireTriggers(ctx, ds, snap, q, opts)
		}
	}
}

// FireTriggers is step 5 of the commit protocol: for each refresh trigger
// of ds it writes a pending jobs/{execution-id} document (or folds the fire
// into a pending one, claimed in a metastore transaction) and enqueues
// it. Nothing here fails the commit: a failure raises an alert and writes
// a trigger.fire_failed audit record. It returns the jobs it enqueued.
func (c *Catalog) FireTriggers(ctx context.Context, ds *Dataset, snap *Snapshot, q Queue, opts FireOptions) (enqueued []*Job) {
	defer func() {
		if r := recover(); r != nil {
			c.fireFailed(ctx, ds.Ident(), "", "", snap.Author, fmt.Errorf("trigger firing panicked: %v", r))
		}
	}()
	docs, err := c.meta.List(ctx, triggersColl(ds))
	if err == nil {
		var trigs []Trigger
		if trigs, err = decodeTriggers(docs); err == nil {
			for i := range trigs {
				if trigs[i].Kind != TriggerKindRefresh {
					continue
				}
				if job := c.fireOne(ctx, ds, snap, &trigs[i], q, opts); job != nil {
					enqueued = append(enqueued, job)
				}
			}
			return enqueued
		}
	}
	c.fireFailed(ctx, ds.Ident(), "", "", snap.Author, fmt.Errorf("read triggers: %w", err))
	return nil
}

// fireOne claims the fire of one trigger and enqueues its job.
func (c *Catalog) fireOne(ctx context.Context, ds *Dataset, snap *Snapshot, trig *Trigger, q Queue, opts FireOptions) *Job {
	src := ds.Ident()
	now := c.now()
	job := &Job{
		ExecutionID: NewExecutionID(), Kind: JobKindRefresh, Target: trig.TargetView,
		Source: src.String(), Trigger: trig.Name, SourceSnapshotID: snap.ID,
		Author: snap.Author, Status: JobPending, CreatedAt: now,
	}
	coalesced := false
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		coalesced = false
		td, err := tx.Get(triggerPath(ds, trig.Name))
		if errors.Is(err, meta.ErrNotFound) {
			return errTriggerGone
		} else if err != nil {
			return err
		}
		var cur Trigger
		if err := td.Decode(&cur); err != nil {
			return err
		}
		if opts.MinInterval > 0 && cur.LastExecutionID != "" && cur.LastFiredAt != nil && now.Sub(*cur.LastFiredAt) < opts.MinInterval {
			jd, err := tx.Get(jobPath(cur.LastExecutionID))
			if err != nil && !errors.Is(err, meta.ErrNotFound) {
				return err
			}
			if err == nil {
				var last Job
				if err := jd.Decode(&last); err != nil {
					return err
				}
				if last.Status == JobPending && last.Author == snap.Author {
					coalesced = true
					*job = last
					job.Coalesced++
					job.SourceSnapshotID = max(job.SourceSnapshotID, snap.ID)
					if err := tx.Merge(jobPath(last.ExecutionID), map[string]any{
						"coalesced": int64(job.Coalesced), "source-snapshot-id": job.SourceSnapshotID,
					}); err != nil {
						return err
					}
					return tx.Merge(triggerPath(ds, trig.Name), map[string]any{"last-fired-status": "coalesced"})
				}
			}
		}
		data, err := meta.Encode(job)
		if err != nil {
			return err
		}
		if err := tx.Create(jobPath(job.ExecutionID), data); err != nil {
			return err
		}
		return tx.Merge(triggerPath(ds, trig.Name), map[string]any{
			"last-fired-at":     now.Format(time.RFC3339Nano),
			"last-execution-id": job.ExecutionID,
			"last-fired-status": "enqueued",
		})
	})
	if errors.Is(err, errTriggerGone) {
		return nil // the view was dropped meanwhile
	}
	if err != nil {
		c.fireFailed(ctx, src, trig.Name, trig.TargetView, snap.Author, fmt.Errorf("write job: %w", err))
		return nil
	}
	if coalesced {
		c.log.Debug("trigger fire coalesced", "source", src.String(), "trigger", trig.Name, "execution_id", job.ExecutionID)
		return nil
	}
	if err := c.enqueue(ctx, q, job); err != nil {
		_ = c.FinishJob(ctx, job.ExecutionID, JobFailed, "enqueue failed: "+err.Error())
		c.markTrigger(ctx, src, trig.Name, "fire_failed", job.ExecutionID)
		c.fireFailed(ctx, src, trig.Name, trig.TargetView, snap.Author, fmt.Errorf("enqueue job %s: %w", job.ExecutionID, err),
			slog.String("execution_id", job.ExecutionID))
		return nil
	}
	return job
}

var errTriggerGone = errors.New("trigger gone")

func (c *Catalog) enqueue(ctx context.Context, q Queue, job *Job) (err error) {
	if q == nil {
		return errors.New("no job queue is configured")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("queue panicked: %v", r)
		}
	}()
	return q.Enqueue(ctx, job)
}

// fireFailed reports a fire that did not make it to a worker: an alert
// (a missed fire is a stale view) and a trigger.fire_failed audit record.
func (c *Catalog) fireFailed(ctx context.Context, src Ident, trigger, target, author string, err error, extra ...slog.Attr) {
	c.Alert(ctx, MarkAlertable(fmt.Errorf("trigger %s on %s did not fire (target %s): %w", trigger, src.String(), target, err),
		SeverityError, "trigger-fire-failed:"+src.String()+":"+trigger,
		map[string]string{"dataset": src.String(), "trigger": trigger, "target": target}))
	c.audit(ctx, "trigger.fire_failed", "trigger", src.Workspace, src.Collection, src.Name, author,
		append([]slog.Attr{slog.String("trigger", trigger), slog.String("target", target), slog.String("error", err.Error())}, extra...)...)
}

// Alert reports an error through the Alert hook. Without one it is logged
// at error level: an alert is never silently dropped.
func (c *Catalog) Alert(ctx context.Context, err error) {
	if err == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("alert hook panicked", "err", err, "panic", r)
		}
	}()
	if h := c.opts.Hooks.Alert; h != nil {
		h(context.WithoutCancel(ctx), err)
		return
	}
	c.log.Error("alert", "err", err, "alertable", IsAlertable(err))
}

// markTrigger sets a trigger's last-fired-status, if it still exists and
// its last fire is execID's.
func (c *Catalog) markTrigger(ctx context.Context, src Ident, name, status, execID string) {
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		ds, err := loadDataset(tx, src)
		if errors.Is(err, ErrDatasetNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		d, err := tx.Get(triggerPath(ds, name))
		if err != nil {
			if errors.Is(err, meta.ErrNotFound) {
				return nil
			}
			return err
		}
		if last, _ := d.Data["last-execution-id"].(string); last != execID {
			return nil
		}
		return tx.Merge(triggerPath(ds, name), map[string]any{"last-fired-status": status})
	})
	if err != nil {
		c.log.Warn("mark trigger", "dataset", src.String(), "trigger", name, "err", err)
	}
}

// CreateJob writes a pending refresh job for a materialized view outside
// the firing path (a manual enqueue).
func (c *Catalog) CreateJob(ctx context.Context, target Ident, author, trigger string) (*Job, error) {
	job := &Job{ExecutionID: NewExecutionID(), Kind: JobKindRefresh, Target: target.String(), Trigger: trigger,
		Author: author, Status: JobPending, CreatedAt: c.now()}
	data, err := meta.Encode(job)
	if err != nil {
		return nil, err
	}
	if err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		return tx.Create(jobPath(job.ExecutionID), data)
	}); err != nil {
		return nil, fmt.Errorf("create job: %w", err)
	}
	return job, nil
}

// Job loads a job. ErrJobNotFound.
func (c *Catalog) Job(ctx context.Context, id string) (*Job, error) {
	d, err := c.meta.Get(ctx, jobPath(id))
	if errors.Is(err, meta.ErrNotFound) || errors.Is(err, meta.ErrBadPath) {
		return nil, fmt.Errorf("%w: %s", ErrJobNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("load job %s: %w", id, err)
	}
	var j Job
	if err := d.Decode(&j); err != nil {
		return nil, err
	}
	return &j, nil
}

// Jobs lists every job, oldest first (execution ids are time-ordered).
func (c *Catalog) Jobs(ctx context.Context) ([]Job, error) {
	docs, err := c.meta.List(ctx, jobsColl)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	out := make([]Job, 0, len(docs))
	for _, d := range docs {
		var j Job
		if err := d.Decode(&j); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// PendingJobs lists the jobs still pending, oldest first.
func (c *Catalog) PendingJobs(ctx context.Context) ([]Job, error) {
	all, err := c.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, j := range all {
		if j.Status == JobPending {
			out = append(out, j)
		}
	}
	return out, nil
}

// ClaimJob moves a pending job to running in one transaction, so exactly
// one worker runs it. claimed is false (and err nil) when the job is no
// longer pending: another worker has it, or it finished.
func (c *Catalog) ClaimJob(ctx context.Context, id string) (job *Job, claimed bool, err error) {
	now := c.now()
	err = c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		claimed = false
		d, err := tx.Get(jobPath(id))
		if errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %s", ErrJobNotFound, id)
		} else if err != nil {
			return err
		}
		job = &Job{}
		if err := d.Decode(job); err != nil {
			return err
		}
		if job.Status != JobPending {
			return nil
		}
		claimed = true
		job.Status, job.StartedAt = JobRunning, &now
		job.Attempts++
		return tx.Merge(jobPath(id), map[string]any{
			"status": string(JobRunning), "started-at": now.Format(time.RFC3339Nano), "attempts": int64(job.Attempts),
		})
	})
	if err != nil {
		return nil, false, err
	}
	return job, claimed, nil
}

// FinishJob records a job's final status, and the trigger that fired it
// takes the same last-fired-status.
func (c *Catalog) FinishJob(ctx context.Context, id string, status JobStatus, message string) error {
	now := c.now()
	var job Job
	err := c.meta.RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		d, err := tx.Get(jobPath(id))
		if errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: %s", ErrJobNotFound, id)
		} else if err != nil {
			return err
		}
		if err := d.Decode(&job); err != nil {
			return err
		}
		return tx.Merge(jobPath(id), map[string]any{
			"status": string(status), "finished-at": now.Format(time.RFC3339Nano), "message": message,
		})
	})
	if err != nil {
		return err
	}
	if job.Trigger != "" && job.Source != "" {
		if src, perr := ParseIdent("", job.Source); perr == nil {
			c.markTrigger(ctx, src, job.Trigger, string(status), id)
		}
	}
	return nil
}
