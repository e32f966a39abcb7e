package catalogstore

import (
	"context"
	"time"
)

// Exported helpers for catalogstore/maintenance (snapshot expiry, orphan
// cleanup, compaction, verification), which works on the same documents as
// the commit protocol and must agree with it on paths and time.

// Now reads the catalog's clock (Options.Now, in UTC): the clock snapshot
// timestamps are taken from. Maintenance compares ages against it.
func (c *Catalog) Now() time.Time { return c.now() }

// DatasetDocPath is the metastore path of a dataset's document,
// {workspace}/{collection}/datasets/{name}. Opt-in state (snapshots, tags,
// maintenance) lives in sub-collections below Dataset.DocRoot.
func DatasetDocPath(id Ident) string { return datasetPath(id) }

// SnapshotDocPath is the metastore path of one snapshot document.
func SnapshotDocPath(ds *Dataset, snap int64) string { return snapshotPath(ds, snap) }

// ReportAlert hands an alertable error the caller detected but handles
// itself (for example a verification finding) to the Alert hook, or logs
// it when no hook is set. It never fails.
func (c *Catalog) ReportAlert(ctx context.Context, err error) {
	if err == nil {
		return
	}
	if h := c.opts.Hooks.Alert; h != nil {
		func() {
			defer func() {
				if r := recover(); r != nil {
					c.log.Error("alert hook panicked", "panic", r)
				}
			}()
			h(context.WithoutCancel(ctx), err)
		}()
		return
	}
	c.log.Error("alert", "err", err.Error())
}
