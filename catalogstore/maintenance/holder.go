package maintenance

import "github.com/lakesql/lakesql/catalogstore/process"

// holderProcess identifies the process holding a lease, so that another
// process on the same machine can tell when the holder is gone (killed
// mid-compaction) and take the lease over at once instead of waiting for
// it to expire. Where that cannot be told the lease only expires. A holder
// wrongly taken over is fenced anyway: its commit checks the lease in the
// same transaction (Lease.checkTx) and it stops with ErrLeaseLost.
type holderProcess = process.Identity

// thisProcess is the identity of the calling process.
func thisProcess() holderProcess { return process.This() }

// processStart is process.Start (the holder tests plant start times).
func processStart(pid int) string { return process.Start(pid) }
