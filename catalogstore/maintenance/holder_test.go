package maintenance

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// deadPID starts a process, waits for it to exit and returns its pid: a
// process id that, for the moment, names no process.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// plantLease writes a lease document as another process would have: an
// hour left, held by holder process p.
func plantLease(t *testing.T, e *env, ds *catalogstore.Dataset, holder string, p holderProcess) {
	t.Helper()
	now := e.cat.Now()
	data, err := meta.Encode(leaseDoc{Holder: holder, Token: "planted", AcquiredAt: now, ExpiresAt: now.Add(time.Hour), holderProcess: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.m.RunTx(context.Background(), func(_ context.Context, tx meta.Tx) error { return tx.Set(leasePath(ds), data) }); err != nil {
		t.Fatal(err)
	}
}

// TestAcquire_DeadHolderTakenOver: a compaction killed on this machine
// leaves its lease for 15 minutes; the next maintainer sees its process is
// gone and takes the lease at once. A live holder, or one on another
// machine, keeps it.
func TestAcquire_DeadHolderTakenOver(t *testing.T) {
	here := thisProcess()
	if here.BootID == "" || here.PIDNS == "" {
		t.Skip("no /proc: holders are never presumed gone here")
	}
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})

	dead := here
	dead.PID, dead.StartTime = deadPID(t), ""
	plantLease(t, e, ds, "killed (compact)", dead)
	l, err := Acquire(ctx, e.cat, ds, "next (compact)", time.Minute)
	if err != nil {
		t.Fatalf("Acquire over a dead holder's lease = %v", err)
	}
	if !strings.Contains(l.TookOver, "killed (compact)") {
		t.Fatalf("TookOver = %q", l.TookOver)
	}
	releaseQuietly(ctx, l)

	// A live process (this test's parent) keeps its lease, and the refusal
	// names its process and how to break the lease.
	live := here
	live.PID, live.StartTime = os.Getppid(), processStart(os.Getppid())
	plantLease(t, e, ds, "alive (expire)", live)
	_, err = Acquire(ctx, e.cat, ds, "next", time.Minute)
	var held *LeaseHeldError
	if !errors.As(err, &held) || held.PID != live.PID || !strings.Contains(err.Error(), "break_lease('c.t')") {
		t.Fatalf("Acquire over a live holder = %v", err)
	}

	// A reused pid: the process with the holder's pid started later.
	reused := live
	reused.StartTime = "1"
	plantLease(t, e, ds, "reused", reused)
	if l, err := Acquire(ctx, e.cat, ds, "next", time.Minute); err != nil {
		t.Fatalf("Acquire over a holder whose pid was reused = %v", err)
	} else {
		releaseQuietly(ctx, l)
	}

	// Another machine's holder cannot be checked: it waits for expiry.
	other := dead
	other.Host = here.Host + "-elsewhere"
	plantLease(t, e, ds, "remote", other)
	if _, err := Acquire(ctx, e.cat, ds, "next", time.Minute); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("Acquire over another machine's lease = %v, want ErrLeaseHeld", err)
	}
	other.Host, other.PIDNS = here.Host, "pid:[1]" // same name, another container
	plantLease(t, e, ds, "container", other)
	if _, err := Acquire(ctx, e.cat, ds, "next", time.Minute); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("Acquire over another PID namespace's lease = %v, want ErrLeaseHeld", err)
	}
}

// TestBreakLease: an operator removes any lease; its holder, if still
// running, finds it lost.
func TestBreakLease(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	if b, err := BreakLease(ctx, e.cat, ds); b != nil || err != nil {
		t.Fatalf("BreakLease with no lease = %v, %v", b, err)
	}
	l, err := Acquire(ctx, e.cat, ds, "stuck (compact)", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BreakLease(ctx, e.cat, ds)
	if err != nil || b == nil || b.Holder != "stuck (compact)" || b.PID != os.Getpid() || !b.Expires.Equal(l.Expires) {
		t.Fatalf("BreakLease = %+v, %v", b, err)
	}
	if err := l.Check(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Check of a broken lease = %v, want ErrLeaseLost", err)
	}
	next, err := Acquire(ctx, e.cat, ds, "next", time.Hour)
	if err != nil {
		t.Fatalf("Acquire after BreakLease = %v", err)
	}
	releaseQuietly(ctx, next)
}
