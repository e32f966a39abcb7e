package maintenance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

// DefaultLeaseTTL is how long a maintenance lease lasts unless renewed.
const DefaultLeaseTTL = 15 * time.Minute

// Lease is a claim on a dataset's maintenance: while it is held, no other
// maintainer compacts, expires or cleans the dataset. It is one document,
// {dataset}/maintenance/lease, claimed in a metastore transaction and
// expiring on its own, so a crashed maintainer blocks others for at most
// its TTL. It records the holder's process and machine (holder.go): a
// maintainer on the same machine takes over at once the lease of a holder
// that is gone, and an operator can break any lease (BreakLease). Writers
// (INSERT, appends) never look at it.
//
// A Lease is safe for concurrent use.
type Lease struct {
	cat     *catalogstore.Catalog
	id      catalogstore.Ident
	path    string // the lease document, below the dataset's incarnation
	Holder  string
	Token   string // unique per acquisition; only its owner can renew or release
	Expires time.Time
	// TookOver names the holder of an unexpired lease this one replaced
	// because its process was gone, or "".
	TookOver string
}

type leaseDoc struct {
	Holder     string    `json:"holder"`
	Token      string    `json:"token"`
	AcquiredAt time.Time `json:"acquired-at"`
	ExpiresAt  time.Time `json:"expires-at"`
	holderProcess
}

// Acquire claims the maintenance lease of ds for holder (a name for
// people: who and what, e.g. "alice (compact)") for ttl. A lease held by
// anyone else, including another acquisition under the same holder name,
// that has not expired gives a *LeaseHeldError (ErrLeaseHeld); an expired
// one is taken over, and so is one whose holder process ran on this
// machine and is gone (Lease.TookOver names it). ErrDatasetNotFound if
// the dataset is gone, catalogstore.ErrIncarnationChanged if it was
// recreated.
func Acquire(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, holder string, ttl time.Duration) (*Lease, error) {
	if ttl <= 0 {
		return nil, fmt.Errorf("%w: lease ttl %s must be positive", catalogstore.ErrBadValue, ttl)
	}
	if holder == "" {
		return nil, fmt.Errorf("%w: a lease needs a holder", catalogstore.ErrBadValue)
	}
	id := ds.Ident()
	l := &Lease{cat: cat, id: id, path: leasePath(ds), Holder: holder, Token: uuid.NewString()}
	here := thisProcess()
	err := cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		l.TookOver = "" // fn may run more than once
		if err := checkIncarnation(tx, ds); err != nil {
			return err
		}
		now := cat.Now()
		d, err := tx.Get(l.path)
		switch {
		case err == nil:
			var cur leaseDoc
			if err := d.Decode(&cur); err != nil {
				return err
			}
			switch {
			case !cur.ExpiresAt.After(now):
			case cur.Gone(here):
				l.TookOver = fmt.Sprintf("%s (pid %d on %s, gone)", cur.Holder, cur.PID, cur.Host)
			default:
				return &LeaseHeldError{Dataset: id.Short(), Holder: cur.Holder, Expires: cur.ExpiresAt, PID: cur.PID, Host: cur.Host}
			}
		case !errors.Is(err, meta.ErrNotFound):
			return err
		}
		l.Expires = now.Add(ttl)
		data, err := meta.Encode(leaseDoc{Holder: holder, Token: l.Token, AcquiredAt: now, ExpiresAt: l.Expires, holderProcess: here})
		if err != nil {
			return err
		}
		return tx.Set(l.path, data)
	})
	if err != nil {
		return nil, fmt.Errorf("acquire maintenance lease on %s: %w", id.Short(), err)
	}
	return l, nil
}

// checkIncarnation reads the dataset document in tx and checks it is still
// the incarnation ds was loaded from.
func checkIncarnation(tx meta.Tx, ds *catalogstore.Dataset) error {
	d, err := tx.Get(catalogstore.DatasetDocPath(ds.Ident()))
	if errors.Is(err, meta.ErrNotFound) {
		return fmt.Errorf("%w: %s", catalogstore.ErrDatasetNotFound, ds.Ident().Short())
	} else if err != nil {
		return err
	}
	if u, _ := d.Data["table-uuid"].(string); u != ds.UUID {
		return fmt.Errorf("%w: %s was recreated (table uuid %s, expected %s)", catalogstore.ErrIncarnationChanged, ds.Ident().Short(), u, ds.UUID)
	}
	return nil
}

// own runs fn in a transaction after checking the lease document is still
// this lease's. ErrLeaseLost otherwise.
func (l *Lease) own(ctx context.Context, fn func(tx meta.Tx, cur leaseDoc) error) error {
	return l.cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		cur, err := l.mine(tx)
		if err != nil {
			return err
		}
		return fn(tx, cur)
	})
}

// Check reports whether the lease is still held: ErrLeaseLost when it was
// taken over or released, or has expired.
func (l *Lease) Check(ctx context.Context) error {
	return l.cat.Meta().RunTx(ctx, func(_ context.Context, tx meta.Tx) error { return l.checkTx(tx) })
}

// Renew extends the lease to ttl from now. A lease that expired but was
// not taken over can still be renewed. ErrLeaseLost.
func (l *Lease) Renew(ctx context.Context, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("%w: lease ttl %s must be positive", catalogstore.ErrBadValue, ttl)
	}
	var expires time.Time
	err := l.own(ctx, func(tx meta.Tx, cur leaseDoc) error {
		expires = l.cat.Now().Add(ttl)
		return tx.Merge(l.path, map[string]any{"expires-at": expires.Format(time.RFC3339Nano)})
	})
	if err != nil {
		return err
	}
	l.Expires = expires
	return nil
}

// Release gives the lease up. Releasing a lease that was already released
// is not an error; one that another maintainer took over gives
// ErrLeaseLost and leaves their lease alone.
func (l *Lease) Release(ctx context.Context) error {
	err := l.own(ctx, func(tx meta.Tx, _ leaseDoc) error { return tx.Delete(l.path) })
	if err != nil && errors.Is(err, ErrLeaseLost) {
		if _, gerr := l.cat.Meta().Get(ctx, l.path); errors.Is(gerr, meta.ErrNotFound) {
			return nil
		}
	}
	return err
}

// releaseQuietly releases l at the end of a maintenance operation, even if
// ctx was cancelled; a failure only delays the next maintainer until the
// lease expires.
func releaseQuietly(ctx context.Context, l *Lease) {
	_ = l.Release(context.WithoutCancel(ctx))
}

// checkTx checks, inside a transaction, that the lease is still this one
// and unexpired, so the transaction commits only while the lease is held.
func (l *Lease) checkTx(tx meta.Tx) error {
	cur, err := l.mine(tx)
	if err != nil {
		return err
	}
	if !cur.ExpiresAt.After(l.cat.Now()) {
		return fmt.Errorf("%w: the lease on %s expired at %s", ErrLeaseLost, l.id.Short(), cur.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// mine reads the lease document inside a transaction: ErrLeaseLost when
// it is gone or holds another token (the lease was released or taken
// over).
func (l *Lease) mine(tx meta.Tx) (leaseDoc, error) {
	d, err := tx.Get(l.path)
	if errors.Is(err, meta.ErrNotFound) {
		return leaseDoc{}, fmt.Errorf("%w: the lease on %s was released", ErrLeaseLost, l.id.Short())
	} else if err != nil {
		return leaseDoc{}, err
	}
	var cur leaseDoc
	if err := d.Decode(&cur); err != nil {
		return leaseDoc{}, err
	}
	if cur.Token != l.Token {
		return leaseDoc{}, fmt.Errorf("%w: the lease on %s is now held by %q", ErrLeaseLost, l.id.Short(), cur.Holder)
	}
	return cur, nil
}

// BrokenLease is the lease BreakLease removed.
type BrokenLease struct {
	Holder  string
	PID     int
	Host    string
	Expires time.Time
}

// BreakLease removes the maintenance lease of ds whoever holds it, for an
// operator who knows its holder is gone (a killed process on another
// machine, whose lease would otherwise block maintenance until it
// expires). It returns what it removed, or nil when no lease was held. A
// holder still running loses the lease: its next Check, Renew or commit
// fails with ErrLeaseLost and its work is abandoned, never half-applied.
func BreakLease(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset) (*BrokenLease, error) {
	id := ds.Ident()
	var broken *BrokenLease
	err := cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		broken = nil
		if err := checkIncarnation(tx, ds); err != nil {
			return err
		}
		d, err := tx.Get(leasePath(ds))
		if errors.Is(err, meta.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		var cur leaseDoc
		if err := d.Decode(&cur); err != nil {
			return err
		}
		broken = &BrokenLease{Holder: cur.Holder, PID: cur.PID, Host: cur.Host, Expires: cur.ExpiresAt}
		return tx.Delete(leasePath(ds))
	})
	if err != nil {
		return nil, fmt.Errorf("break maintenance lease on %s: %w", id.Short(), err)
	}
	return broken, nil
}
