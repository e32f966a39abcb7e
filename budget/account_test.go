package budget

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestAccount_GrowWithinAndPastLimit(t *testing.T) {
	cases := []struct {
		name      string
		limit     int64
		grows     []int64
		wantUsed  int64
		wantFails int
	}{
		{"within", 100, []int64{40, 60}, 100, 0},
		{"past refuses and charges nothing", 100, []int64{60, 50, 40}, 100, 1},
		{"unlimited", 0, []int64{1 << 40, 1 << 40}, 2 << 40, 0},
		{"non-positive ignored", 10, []int64{0, -5, 10}, 10, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(c.limit)
			fails := 0
			for _, n := range c.grows {
				if err := a.Grow("sort", n); err != nil {
					fails++
					if !errors.Is(err, ErrExceeded) {
						t.Fatalf("error %v is not ErrExceeded", err)
					}
				}
			}
			if a.Used() != c.wantUsed || fails != c.wantFails {
				t.Fatalf("used %d fails %d, want %d and %d", a.Used(), fails, c.wantUsed, c.wantFails)
			}
		})
	}
}

func TestExceededError_NamesBudgetAndVariable(t *testing.T) {
	a := New(1 << 20)
	err := a.Grow("hash join build", 2<<20)
	var ee *ExceededError
	if !errors.As(err, &ee) || ee.Limit != 1<<20 || ee.Want != 2<<20 || ee.Op != "hash join build" {
		t.Fatalf("got %#v", err)
	}
	for _, want := range []string{"1048576 bytes", SysVar, "hash join build", ErrExceeded.Error()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestAccount_PeakAndShrink(t *testing.T) {
	a := New(0)
	_ = a.Grow("x", 70)
	a.Shrink(50)
	_ = a.Grow("x", 10)
	if a.Used() != 30 || a.Peak() != 70 {
		t.Fatalf("used %d peak %d, want 30 and 70", a.Used(), a.Peak())
	}
}

func TestCharge_CloseGivesEverythingBack(t *testing.T) {
	a := New(100)
	c1, c2 := a.NewCharge("sort"), a.NewCharge("group by")
	for _, n := range []int64{30, 30} {
		if err := c1.Grow(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := c2.Grow(50); err == nil {
		t.Fatal("c2 fit past the limit")
	}
	if !c2.Fits(40) || c2.Fits(41) {
		t.Fatal("Fits disagrees with the limit")
	}
	c1.Close()
	if a.Used() != 0 || c1.Held() != 0 {
		t.Fatalf("after Close used %d held %d", a.Used(), c1.Held())
	}
	if err := c2.Grow(100); err != nil {
		t.Fatalf("the budget was not given back: %v", err)
	}
	c2.Close()
	c2.Close() // a second Close gives nothing back twice
	if a.Used() != 0 {
		t.Fatalf("used %d after closing twice", a.Used())
	}
}

func TestNilAccount_IsUnlimited(t *testing.T) {
	var a *Account
	if err := a.Grow("sort", 1<<50); err != nil || a.Used() != 0 || !a.Fits(1<<60) {
		t.Fatal("a nil account must account nothing")
	}
	c := a.NewCharge("sort")
	if err := c.Grow(1 << 50); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if From(context.Background()) != nil {
		t.Fatal("a bare context carries an account")
	}
}

func TestWithFrom(t *testing.T) {
	a := New(5)
	ctx, cancel := context.WithCancel(With(context.Background(), a))
	defer cancel()
	if From(ctx) != a {
		t.Fatal("a derived context lost the account")
	}
}

// TestAccount_ConcurrentGrowNeverPassesLimit: parallel workers charging
// one account never hold more than the limit together, and what they
// hold is exactly what was granted.
func TestAccount_ConcurrentGrowNeverPassesLimit(t *testing.T) {
	const limit = 5000
	a := New(limit)
	var granted atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				if a.Grow("scan", 1) == nil {
					granted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if a.Used() != granted.Load() || a.Used() > limit || a.Peak() > limit {
		t.Fatalf("used %d granted %d peak %d, limit %d", a.Used(), granted.Load(), a.Peak(), limit)
	}
}

func TestSystemMemory_Positive(t *testing.T) {
	if SystemMemory() <= 0 || DefaultLimit() != SystemMemory()/4 {
		t.Fatalf("system memory %d, default %d", SystemMemory(), DefaultLimit())
	}
}
