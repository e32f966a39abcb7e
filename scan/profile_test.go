package scan

import (
	"bytes"
	"context"
	"testing"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
)

// TestProfile_CountsBytesAndPeakMemory: a profiled store counts the
// bytes its reads return; a profiled allocator the most bytes it had out
// at once (buffers freed no longer count).
func TestProfile_CountsBytesAndPeakMemory(t *testing.T) {
	ctx := context.Background()
	s, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "k", bytes.NewReader([]byte("0123456789")), blob.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	p := &Profile{}
	ps := p.store(s)
	if _, err := ps.Get(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := ps.ReadAt(ctx, "k", buf, 8); err == nil { // 2 bytes, then io.EOF
		t.Fatal("ReadAt past the end: want io.EOF")
	}
	if got := p.BytesRead(); got != 12 {
		t.Errorf("bytes read %d, want 10 + 2", got)
	}

	a := p.alloc(nil)
	b1, b2 := a.Allocate(1000), a.Allocate(3000)
	peak := int64(cap(b1) + cap(b2))
	a.Free(b1)
	b3 := a.Allocate(100) // smaller than b1: the peak stands
	b2 = a.Reallocate(2000, b2)
	a.Free(b2)
	a.Free(b3)
	if got := p.PeakMemory(); got != peak {
		t.Errorf("peak %d, want %d", got, peak)
	}
	if cur := p.memCur.Load(); cur != 0 {
		t.Errorf("%d bytes still out after every Free", cur)
	}
}

// TestProfile_NilRecordsNothing: an unprofiled scan passes its store and
// allocator through untouched and every record is a no-op.
func TestProfile_NilRecordsNothing(t *testing.T) {
	var p *Profile
	s, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if p.store(s) != blob.Store(s) || p.alloc(nil) != nil {
		t.Error("a nil profile wrapped the store or the allocator")
	}
	p.start(true)()
	p.addStats(Stats{Files: 1})
	p.skipped()
	p.Pruned(nil, nil, nil, nil)
	if ProfileFor(context.Background(), "t") != nil {
		t.Error("an unprofiled context returned a profile")
	}
}
