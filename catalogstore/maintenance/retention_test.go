package maintenance

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

// TestExpireByPolicy_UsesTheDatasetsProperties: snapshot_retention and
// snapshot_retain_last, set as properties, drive an expiry given no age.
func TestExpireByPolicy_UsesTheDatasetsProperties(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	history(t, e, ds) // snapshots 1..6 a day apart, 7 (head) a day later; now is 16 days after 1

	// No policy: refused, nothing expires.
	before := snapDocState(t, e, ds)
	if _, _, err := ExpireByPolicy(ctx, e.cat, ds, "tester"); !errors.Is(err, ErrNoRetentionPolicy) || !errors.Is(err, catalogstore.ErrBadValue) {
		t.Fatalf("without a policy = %v, want ErrNoRetentionPolicy", err)
	}
	if !maps.Equal(before, snapDocState(t, e, ds)) {
		t.Fatal("an expiry without a policy changed snapshots")
	}

	if _, err := SetRetentionProperty(ctx, e.cat, ds, PropSnapshotRetention, "14d", false, "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := SetRetentionProperty(ctx, e.cat, ds, PropSnapshotRetainLast, "6", false, "tester"); err != nil {
		t.Fatal(err)
	}
	res, r, err := ExpireByPolicy(ctx, e.cat, ds, "tester")
	if err != nil {
		t.Fatal(err)
	}
	// 14 days: 1 and 2 are older; retain_last 6 keeps 2..7.
	if r.OlderThan != 14*24*time.Hour || r.RetainLast != 6 || !slices.Equal(res.Expired, []int64{1}) || !slices.Equal(res.Kept[KeptRetainLast], []int64{2, 3, 4, 5}) {
		t.Fatalf("policy %+v: expired %v, kept %v", r, res.Expired, res.Kept)
	}
	// Without retain_last the default keeps only the newest: 2 expires too.
	if _, err := SetRetentionProperty(ctx, e.cat, ds, PropSnapshotRetainLast, "", true, "tester"); err != nil {
		t.Fatal(err)
	}
	res, r, err = ExpireByPolicy(ctx, e.cat, ds, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if r.RetainLast != 1 || !slices.Equal(res.Expired, []int64{2}) {
		t.Fatalf("policy %+v: expired %v", r, res.Expired)
	}
}

// TestSetRetentionProperty_BadValuesChangeNothing: a value expiry could not
// use is refused when set, and the properties stay as they were.
func TestSetRetentionProperty_BadValuesChangeNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{Properties: map[string]string{PropSnapshotRetention: "7d"}})
	for _, c := range []struct{ key, value string }{
		{PropSnapshotRetention, "-7d"},
		{PropSnapshotRetention, "seven days"},
		{PropSnapshotRetention, ""},
		{PropSnapshotRetainLast, "-1"},
		{PropSnapshotRetainLast, "many"},
		{PropSnapshotRetainLast, "9999999999"},
		{"retention", "7d"},
	} {
		_, err := SetRetentionProperty(ctx, e.cat, ds, c.key, c.value, false, "tester")
		if !errors.Is(err, catalogstore.ErrBadValue) {
			t.Errorf("%s = %q: %v, want ErrBadValue", c.key, c.value, err)
		}
	}
	if got := e.reload(t, ds).Properties; !maps.Equal(got, map[string]string{PropSnapshotRetention: "7d"}) {
		t.Fatalf("properties after refused sets: %v", got)
	}
	// A value written around the check (by hand) stops expiry, it is not
	// guessed at.
	if _, err := e.cat.UpdateDataset(ctx, ds.Ident(), "tester", func(d *catalogstore.Dataset) error {
		d.Properties[PropSnapshotRetention] = "a week"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	history(t, e, ds)
	before := snapDocState(t, e, ds)
	if _, _, err := ExpireByPolicy(ctx, e.cat, ds, "tester"); !errors.Is(err, ErrBadAge) {
		t.Fatalf("hand-written bad policy = %v, want ErrBadAge", err)
	}
	if !maps.Equal(before, snapDocState(t, e, ds)) {
		t.Fatal("a bad policy expired snapshots")
	}
}
