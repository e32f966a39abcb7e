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
// its TTL. Writers (INSERT, appends) never look at it.
//
// A Lease is safe for concurrent use.
type Lease struct {
	cat     *catalogstore.Catalog
	id      catalogstore.Ident
	Holder  string
	Token   string // unique per acquisition; only its owner can renew or release
	Expires time.Time
}

type leaseDoc struct {
	Holder     string    `json:"holder"`
	Token      string    `json:"token"`
	AcquiredAt time.Time `json:"acquired-at"`
	ExpiresAt  time.Time `json:"expires-at"`
}

// Acquire claims the maintenance lease of ds for holder (a name for
// people: who and what, e.g. "alice (compact)") for ttl. A lease held by
// anyone else, including another acquisition under the same holder name,
// that has not expired gives a *LeaseHeldError (ErrLeaseHeld); an expired
// one is taken over. ErrDatasetNotFound if the dataset is gone,
// catalogstore.ErrIncarnationChanged if it was recreated.
func Acquire(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, holder string, ttl time.Duration) (*Lease, error) {
	if ttl <= 0 {
		return nil, fmt.Errorf("%w: lease ttl %s must be positive", catalogstore.ErrBadValue, ttl)
	}
	if holder == "" {
		return nil, fmt.Errorf("%w: a lease needs a holder", catalogstore.ErrBadValue)
	}
	id := ds.Ident()
	l := &Lease{cat: cat, id: id, Holder: holder, Token: uuid.NewString()}
	err := cat.Meta().RunTx(ctx, func(ctx context.Context, tx meta.Tx) error {
		if err := checkIncarnation(tx, ds); err != nil {
			return err
		}
		now := cat.Now()
		d, err := tx.Get(leasePath(id))
		switch {
		case err == nil:
			var cur leaseDoc
			if err := d.Decode(&cur); err != nil {
				return err
			}
			if cur.ExpiresAt.After(now) {
				return &LeaseHeldError{Dataset: id.Short(), Holder: cur.Holder, Expires: cur.ExpiresAt}
			}
		case !errors.Is(err, meta.ErrNotFound):
			return err
		}
		l.Expires = now.Add(ttl)
		data, err := meta.Encode(leaseDoc{Holder: holder, Token: l.Token, AcquiredAt: now, ExpiresAt: l.Expires})
		if err != nil {
			return err
		}
		return tx.Set(leasePath(id), data)
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
		d, err := tx.Get(leasePath(l.id))
		if errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("%w: the lease on %s was released", ErrLeaseLost, l.id.Short())
		} else if err != nil {
			return err
		}
		var cur leaseDoc
		if err := d.Decode(&cur); err != nil {
			return err
		}
		if cur.Token != l.Token {
			return fmt.Errorf("%w: the lease on %s is now held by %q", ErrLeaseLost, l.id.Short(), cur.Holder)
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
		return tx.Merge(leasePath(l.id), map[string]any{"expires-at": expires.Format(time.RFC3339Nano)})
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
	err := l.own(ctx, func(tx meta.Tx, _ leaseDoc) error { return tx.Delete(leasePath(l.id)) })
	if err != nil && errors.Is(err, ErrLeaseLost) {
		if _, gerr := l.cat.Meta().Get(ctx, leasePath(l.id)); errors.Is(gerr, meta.ErrNotFound) {
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
	d, err := tx.Get(leasePath(l.id))
	if errors.Is(err, meta.ErrNotFound) {
		return fmt.Errorf("%w: the lease on %s was released", ErrLeaseLost, l.id.Short())
	} else if err != nil {
		return err
	}
	var cur leaseDoc
	if err := d.Decode(&cur); err != nil {
		return err
	}
	if cur.Token != l.Token {
		return fmt.Errorf("%w: the lease on %s is now held by %q", ErrLeaseLost, l.id.Short(), cur.Holder)
	}
	if !cur.ExpiresAt.After(l.cat.Now()) {
		return fmt.Errorf("%w: the lease on %s expired at %s", ErrLeaseLost, l.id.Short(), cur.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}
