package maintenance

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/meta"
)

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	good := map[string]time.Duration{
		"7d": 7 * day, "12h": 12 * time.Hour, "30m": 30 * time.Minute, "45s": 45 * time.Second,
		"2w": 14 * day, "1d12h": day + 12*time.Hour, " 7D ": 7 * day, "0d": 0,
	}
	for in, want := range good {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-7d", "7", "d", "7x", "seven days", "7d-1h", "99999999999999999999d", "1.5d"} {
		if _, err := ParseAge(in); !errors.Is(err, ErrBadAge) || !errors.Is(err, catalogstore.ErrBadValue) {
			t.Errorf("ParseAge(%q) = %v, want ErrBadAge", in, err)
		}
	}
}

// history makes snapshots 1..6 (user appends, one a day) and 7 (a
// housekeeping commit), then moves the clock 10 days on.
func history(t *testing.T, e *env, ds *catalogstore.Dataset) {
	t.Helper()
	for i := int64(1); i <= 6; i++ {
		e.appendIDs(t, ds, i)
		e.clock.Advance(24 * time.Hour)
	}
	cur := e.reload(t, ds)
	files := e.liveFiles(t, cur)
	if _, err := e.cat.Commit(context.Background(), cur.Ident(), catalogstore.Commit{
		Operation: catalogstore.OpStatisticsRefresh, Author: "tester", Housekeeping: true,
		ManifestFiles: files, ExpectedUUID: cur.UUID, BaseSnapshotID: cur.CurrentSnapshotID,
	}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(10 * 24 * time.Hour)
}

func snapDocState(t *testing.T, e *env, ds *catalogstore.Dataset) map[int64]bool {
	t.Helper()
	docs, err := e.m.List(context.Background(), snapshotsColl(ds))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]bool{}
	for _, d := range docs {
		var s snapDoc
		if err := d.Decode(&s); err != nil {
			t.Fatal(err)
		}
		out[s.ID] = s.Expired
	}
	return out
}

func TestExpire_HonoursHeadLastUserTagsAndConsumerFloor(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	history(t, e, ds)
	if err := e.m.Set(ctx, meta.Join(tagsColl(ds), "v1"), map[string]any{"snapshot-id": int64(2)}); err != nil {
		t.Fatal(err)
	}
	if err := e.m.Set(ctx, meta.Join(offsetsColl(ds), "billing"), map[string]any{"snapshot-id": int64(4), "table-uuid": ds.UUID}); err != nil {
		t.Fatal(err)
	}
	// An offset of an earlier incarnation does not hold anything back.
	if err := e.m.Set(ctx, meta.Join(offsetsColl(ds), "stale"), map[string]any{"snapshot-id": int64(1), "table-uuid": "old"}); err != nil {
		t.Fatal(err)
	}
	res, err := Expire(ctx, e.cat, ds, 7*24*time.Hour, 1, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Expired, []int64{1, 3}) {
		t.Fatalf("expired %v, want [1 3]", res.Expired)
	}
	want := map[KeepReason][]int64{
		KeptHead: {7}, KeptLastUserCreated: {6}, KeptTagged: {2}, KeptConsumerFloor: {4, 5}, KeptTombstoned: {1, 3},
	}
	for r, ids := range want {
		if !slices.Equal(res.Kept[r], ids) {
			t.Errorf("kept %s = %v, want %v", r, res.Kept[r], ids)
		}
	}
	if !res.HasConsumerFloor || res.ConsumerFloor != 4 || !res.FloorHeldBack {
		t.Fatalf("consumer floor %d (set %v, held back %v), want 4, true, true", res.ConsumerFloor, res.HasConsumerFloor, res.FloorHeldBack)
	}
	state := snapDocState(t, e, ds)
	for sid, expired := range map[int64]bool{1: true, 2: false, 3: true, 4: false, 5: false, 6: false, 7: false} {
		if state[sid] != expired {
			t.Errorf("snapshot %d expired=%v, want %v", sid, state[sid], expired)
		}
	}
	// Within the grace the tombstones stay.
	res, err = Expire(ctx, e.cat, ds, 7*24*time.Hour, 1, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Expired) != 0 || len(res.Purged) != 0 || !slices.Equal(res.Kept[KeptTombstoned], []int64{1, 3}) {
		t.Fatalf("second pass: expired %v purged %v tombstoned %v", res.Expired, res.Purged, res.Kept[KeptTombstoned])
	}
	// After the grace they are purged; the head still reads.
	e.clock.Advance(DefaultPurgeGrace + time.Minute)
	res, err = Expire(ctx, e.cat, ds, 7*24*time.Hour, 1, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Purged, []int64{1, 3}) {
		t.Fatalf("purged %v, want [1 3]", res.Purged)
	}
	state = snapDocState(t, e, ds)
	if _, ok := state[1]; ok || len(state) != 5 {
		t.Fatalf("snapshot documents after purge: %v", state)
	}
	if got := e.readIDs(t, ds); len(got) != 6 {
		t.Fatalf("head reads %v after expiry", got)
	}
	// Releasing the consumer lets 4 and 5 expire.
	if err := e.m.Delete(ctx, meta.Join(offsetsColl(ds), "billing")); err != nil {
		t.Fatal(err)
	}
	res, err = Expire(ctx, e.cat, ds, 7*24*time.Hour, 1, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Expired, []int64{4, 5}) || res.FloorHeldBack || res.HasConsumerFloor {
		t.Fatalf("after the offset went: expired %v, floor %v/%v", res.Expired, res.HasConsumerFloor, res.FloorHeldBack)
	}
}

func TestExpire_RetainLastAndCutoff(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	history(t, e, ds)
	// retain_last 4 keeps 4..7; nothing is older than 30 days.
	res, err := Expire(ctx, e.cat, ds, 30*24*time.Hour, 4, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Expired) != 0 || !slices.Equal(res.Kept[KeptNewer], []int64{1, 2, 3}) || !slices.Equal(res.Kept[KeptRetainLast], []int64{4, 5}) {
		t.Fatalf("30d: expired %v, kept %v", res.Expired, res.Kept)
	}
	res, err = Expire(ctx, e.cat, ds, 0, 4, "tester")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Expired, []int64{1, 2, 3}) || !slices.Equal(res.Kept[KeptRetainLast], []int64{4, 5}) {
		t.Fatalf("0s retain 4: expired %v, kept %v", res.Expired, res.Kept)
	}
}

func TestExpire_BadInputOrHeldLeaseChangesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ds := e.dataset(t, "t", catalogstore.CreateDatasetOptions{})
	history(t, e, ds)
	before := snapDocState(t, e, ds)
	if _, err := Expire(ctx, e.cat, ds, -time.Hour, 1, "tester"); !errors.Is(err, ErrBadAge) {
		t.Fatalf("negative age = %v, want ErrBadAge", err)
	}
	if _, err := Expire(ctx, e.cat, ds, time.Hour, -1, "tester"); !errors.Is(err, catalogstore.ErrBadValue) {
		t.Fatalf("negative retain_last = %v, want ErrBadValue", err)
	}
	l, err := Acquire(ctx, e.cat, ds, "someone else", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Expire(ctx, e.cat, ds, 0, 1, "tester"); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("with the lease held = %v, want ErrLeaseHeld", err)
	}
	if err := l.Check(ctx); err != nil {
		t.Fatalf("the other maintainer's lease was disturbed: %v", err)
	}
	after := snapDocState(t, e, ds)
	for id, exp := range before {
		if after[id] != exp {
			t.Fatalf("snapshot %d changed by a refused call", id)
		}
	}
}
