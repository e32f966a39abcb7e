package budget

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestPool_ConcurrentAccountsStayWithinCap: eight queries, each allowed
// more than the server's cap alone, charge concurrently; together they
// never hold more than the cap, the ones refused get the server's
// error, and once they end the pool is empty.
func TestPool_ConcurrentAccountsStayWithinCap(t *testing.T) {
	const capacity, step = 1000, 10
	p := NewPool(capacity)
	var wg, held sync.WaitGroup
	var mu sync.Mutex
	var refused, over int
	held.Add(8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := p.NewAccount(600)
			defer a.Close()
			c := a.NewCharge("sort")
			for {
				err := c.Grow(step)
				mu.Lock()
				if p.Used() > capacity {
					over++
				}
				var ee *ExceededError
				if errors.As(err, &ee) && ee.Server {
					refused++
				}
				mu.Unlock()
				if err != nil {
					if !errors.Is(err, ErrExceeded) {
						t.Errorf("grow: %v", err)
					}
					break
				}
			}
			// Every query holds what it got until all have asked.
			held.Done()
			held.Wait()
		}()
	}
	wg.Wait()
	if over != 0 {
		t.Fatalf("the pool went past its cap %d times", over)
	}
	if refused == 0 {
		t.Fatalf("no charge met the server's cap (8 × 600 > %d)", capacity)
	}
	if p.Used() != 0 {
		t.Fatalf("the pool holds %d after every query ended", p.Used())
	}
}

// TestAccount_CloseReturnsWhatOperatorsKept: an operator that never
// shrinks (a hash table kept to the end) is given back by Close; charges
// after Close count for the account alone.
func TestAccount_CloseReturnsWhatOperatorsKept(t *testing.T) {
	p := NewPool(100)
	a := p.NewAccount(0)
	if err := a.Grow("hash join build", 80); err != nil {
		t.Fatal(err)
	}
	b := p.NewAccount(0)
	err := b.Grow("sort", 40)
	var ee *ExceededError
	if !errors.As(err, &ee) || !ee.Server || !strings.Contains(err.Error(), ServerSysVar) {
		t.Fatalf("second query past the cap: %v", err)
	}
	a.Close()
	a.Close()
	if p.Used() != 0 {
		t.Fatalf("pool holds %d after Close", p.Used())
	}
	if err := b.Grow("sort", 40); err != nil {
		t.Fatalf("after the first query ended: %v", err)
	}
	_ = a.Grow("late", 50)
	a.Shrink(50)
	if p.Used() != 40 {
		t.Fatalf("pool holds %d, want only b's 40", p.Used())
	}
}

// TestAccount_EndWithClosesOnCancel: the statement's context ending
// gives the account's memory back.
func TestAccount_EndWithClosesOnCancel(t *testing.T) {
	p := NewPool(0)
	a := p.NewAccount(0)
	ctx, cancel := context.WithCancel(context.Background())
	a.EndWith(ctx)
	a.EndWith(context.Background()) // only the first counts
	_ = a.Grow("x", 30)
	cancel()
	for p.Used() != 0 { // AfterFunc runs in its own goroutine
		runtime.Gosched()
	}
	if !a.Fits(1 << 40) {
		t.Fatal("an unlimited account does not fit")
	}
}

func TestPool_SetLimitAndFits(t *testing.T) {
	p := NewPool(0)
	a := p.NewAccount(0)
	_ = a.Grow("x", 50)
	p.SetLimit(60)
	if a.Fits(20) || !a.Fits(10) {
		t.Fatal("Fits ignores the server's cap")
	}
	if err := a.Grow("x", 20); !errors.Is(err, ErrExceeded) {
		t.Fatalf("past the lowered cap: %v", err)
	}
	a.Close()
}
