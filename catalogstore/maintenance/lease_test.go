package maintenance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

func TestAcquire_HeldLeaseRefusedNamingHolder(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	l, err := Acquire(ctx, e.cat, ds, "alice (compact)", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(ctx, e.cat, ds, "bob (expire)", time.Hour)
	var held *LeaseHeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrLeaseHeld) || !errors.Is(err, catalogstore.ErrLocked) {
		t.Fatalf("second Acquire = %v, want *LeaseHeldError wrapping ErrLeaseHeld and ErrLocked", err)
	}
	if held.Holder != "alice (compact)" || !held.Expires.Equal(l.Expires) {
		t.Fatalf("held by %q until %s, want alice until %s", held.Holder, held.Expires, l.Expires)
	}
	if !strings.Contains(err.Error(), "alice (compact)") || !strings.Contains(err.Error(), l.Expires.Format(time.RFC3339)) {
		t.Fatalf("message %q does not name the holder and expiry", err)
	}
	// The same holder name is a different acquisition: still refused.
	if _, err := Acquire(ctx, e.cat, ds, "alice (compact)", time.Hour); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("same holder again = %v, want ErrLeaseHeld", err)
	}
	if err := l.Check(ctx); err != nil {
		t.Fatalf("Check of the held lease = %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("second Release = %v, want nil", err)
	}
	l2, err := Acquire(ctx, e.cat, ds, "bob (expire)", time.Hour)
	if err != nil {
		t.Fatalf("Acquire after release = %v", err)
	}
	if err := l.Check(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Check of a released lease = %v, want ErrLeaseLost", err)
	}
	releaseQuietly(ctx, l2)
}

func TestAcquire_ExpiredLeaseTakenOver(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	crashed, err := Acquire(ctx, e.cat, ds, "crashed", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Minute)
	if err := crashed.Check(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Check after expiry = %v, want ErrLeaseLost", err)
	}
	next, err := Acquire(ctx, e.cat, ds, "next", time.Minute)
	if err != nil {
		t.Fatalf("Acquire over an expired lease = %v", err)
	}
	// The old owner can neither renew nor release the new lease.
	if err := crashed.Renew(ctx, time.Hour); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Renew of a taken-over lease = %v, want ErrLeaseLost", err)
	}
	if err := crashed.Release(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("Release of a taken-over lease = %v, want ErrLeaseLost", err)
	}
	if err := next.Check(ctx); err != nil {
		t.Fatalf("the new lease was disturbed: %v", err)
	}
	// Renew moves the expiry.
	e.clock.Advance(50 * time.Second)
	if err := next.Renew(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(50 * time.Second)
	if err := next.Check(ctx); err != nil {
		t.Fatalf("renewed lease expired early: %v", err)
	}
}

func TestAcquire_BadInputAndMissingDataset(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	if _, err := Acquire(ctx, e.cat, ds, "x", 0); !errors.Is(err, catalogstore.ErrBadValue) {
		t.Fatalf("ttl 0 = %v, want ErrBadValue", err)
	}
	if _, err := Acquire(ctx, e.cat, ds, "", time.Minute); !errors.Is(err, catalogstore.ErrBadValue) {
		t.Fatalf("no holder = %v, want ErrBadValue", err)
	}
	gone := *ds
	gone.Name = "missing"
	if _, err := Acquire(ctx, e.cat, &gone, "x", time.Minute); !errors.Is(err, catalogstore.ErrDatasetNotFound) {
		t.Fatalf("missing dataset = %v, want ErrDatasetNotFound", err)
	}
	stale := *ds
	stale.UUID = "not-the-uuid"
	if _, err := Acquire(ctx, e.cat, &stale, "x", time.Minute); !errors.Is(err, catalogstore.ErrIncarnationChanged) {
		t.Fatalf("recreated dataset = %v, want ErrIncarnationChanged", err)
	}
}

// TestLease_AppendsNeverWait: an append commits while the lease is held.
func TestLease_AppendsNeverWait(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	l, err := Acquire(ctx, e.cat, ds, "maintainer", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseQuietly(ctx, l)
	snap := e.appendIDs(t, ds, 1, 2, 3)
	if snap.Summary.TotalRecords != 3 || e.reload(t, ds).CurrentSnapshotID != snap.ID {
		t.Fatalf("append under a held lease: %+v", snap.Summary)
	}
}
