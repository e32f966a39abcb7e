package maintenance

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

// Dataset properties that set a dataset's snapshot retention policy, used
// when expiry is asked for without an age (CALL expire_snapshots('c.t')).
const (
	// PropSnapshotRetention is the age after which snapshots expire, in
	// ParseAge's form ('7d', '12h').
	PropSnapshotRetention = "snapshot_retention"
	// PropSnapshotRetainLast is how many of the most recent snapshots are
	// kept whatever their age (a non-negative integer; default 1).
	PropSnapshotRetainLast = "snapshot_retain_last"
)

// maxRetainLast bounds snapshot_retain_last (and retain_last arguments).
const maxRetainLast = 1 << 31

// ErrNoRetentionPolicy: expiry was asked for without an age on a dataset
// without a snapshot_retention property.
var ErrNoRetentionPolicy = fmt.Errorf("%w: no snapshot retention policy", catalogstore.ErrBadValue)

// Retention is a dataset's snapshot retention policy.
type Retention struct {
	Age        string // the snapshot_retention property as written
	OlderThan  time.Duration
	RetainLast int
}

// IsRetentionProperty reports whether key is one of the properties this
// package reads.
func IsRetentionProperty(key string) bool {
	return key == PropSnapshotRetention || key == PropSnapshotRetainLast
}

// CheckRetentionProperty reports why value cannot be stored under key (a
// retention property), or nil: properties are checked when set, so a bad
// value never reaches an expiry.
func CheckRetentionProperty(key, value string) error {
	switch key {
	case PropSnapshotRetention:
		if _, err := ParseAge(value); err != nil {
			return fmt.Errorf("property %s: %w", key, err)
		}
		return nil
	case PropSnapshotRetainLast:
		_, err := parseRetainLast(value)
		return err
	}
	return fmt.Errorf("%w: %q is not a snapshot retention property (use %s or %s)", catalogstore.ErrBadValue, key, PropSnapshotRetention, PropSnapshotRetainLast)
}

func parseRetainLast(value string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil || n < 0 || n > maxRetainLast {
		return 0, fmt.Errorf("%w: property %s = %q must be an integer between 0 and 2^31", catalogstore.ErrBadValue, PropSnapshotRetainLast, value)
	}
	return int(n), nil
}

// RetentionOf reads ds's retention policy from its properties.
// ErrNoRetentionPolicy when snapshot_retention is not set; a value that
// does not parse (written around SetRetentionProperty) is ErrBadAge or
// catalogstore.ErrBadValue, so expiry refuses rather than guesses.
func RetentionOf(ds *catalogstore.Dataset) (Retention, error) {
	r := Retention{RetainLast: 1}
	age, ok := ds.Properties[PropSnapshotRetention]
	if !ok {
		return r, fmt.Errorf("%w: %s has no %s property; give an age (CALL expire_snapshots('%s', '7d')) or set one (CALL set_table_property('%s', '%s', '7d'))",
			ErrNoRetentionPolicy, ds.Ident().Short(), PropSnapshotRetention, ds.Ident().Short(), ds.Ident().Short(), PropSnapshotRetention)
	}
	d, err := ParseAge(age)
	if err != nil {
		return r, fmt.Errorf("%s property %s: %w", ds.Ident().Short(), PropSnapshotRetention, err)
	}
	r.Age, r.OlderThan = age, d
	if v, ok := ds.Properties[PropSnapshotRetainLast]; ok {
		if r.RetainLast, err = parseRetainLast(v); err != nil {
			return r, fmt.Errorf("%s: %w", ds.Ident().Short(), err)
		}
	}
	return r, nil
}

// SetRetentionProperty stores (or, with remove, deletes) a retention
// property on ds after checking its value; a bad value changes nothing.
func SetRetentionProperty(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, key, value string, remove bool, author string) (*catalogstore.Dataset, error) {
	if remove {
		if !IsRetentionProperty(key) {
			return nil, CheckRetentionProperty(key, value)
		}
	} else if err := CheckRetentionProperty(key, value); err != nil {
		return nil, err
	}
	return cat.UpdateDataset(ctx, ds.Ident(), author, func(cur *catalogstore.Dataset) error {
		if cur.UUID != ds.UUID {
			return fmt.Errorf("%w: %s was recreated", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
		}
		if remove {
			delete(cur.Properties, key)
			return nil
		}
		if cur.Properties == nil {
			cur.Properties = map[string]string{}
		}
		cur.Properties[key] = strings.TrimSpace(value)
		return nil
	})
}

// ExpireByPolicy is Expire with ds's retention policy (RetentionOf): what
// a scheduled maintainer runs. ErrNoRetentionPolicy when ds has none.
func ExpireByPolicy(ctx context.Context, cat *catalogstore.Catalog, ds *catalogstore.Dataset, author string, opts ...Option) (*ExpireResult, Retention, error) {
	cur, err := cat.Dataset(ctx, ds.Ident())
	if err != nil {
		return nil, Retention{}, err
	}
	if cur.UUID != ds.UUID {
		return nil, Retention{}, fmt.Errorf("%w: %s was recreated", catalogstore.ErrIncarnationChanged, ds.Ident().Short())
	}
	r, err := RetentionOf(cur)
	if err != nil {
		return nil, r, err
	}
	res, err := Expire(ctx, cat, cur, r.OlderThan, r.RetainLast, author, opts...)
	return res, r, err
}
