package jobs

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

// TestInProcessQueue_WaitAndClose: Wait returns once every enqueued job
// has run, a Wait with a deadline gives up while a job runs, and a closed
// queue refuses jobs.
func TestInProcessQueue_WaitAndClose(t *testing.T) {
	var ran atomic.Int64
	release := make(chan struct{})
	q := NewInProcessQueue(2, func(_ context.Context, id string) {
		if id == "slow" {
			<-release
		}
		ran.Add(1)
	})
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		if err := q.Enqueue(ctx, &catalogstore.Job{ExecutionID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Wait(ctx); err != nil || ran.Load() != 3 {
		t.Fatalf("Wait = %v after %d jobs, want 3", err, ran.Load())
	}
	if err := q.Enqueue(ctx, &catalogstore.Job{ExecutionID: "slow"}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := q.Wait(short); err == nil {
		t.Fatal("Wait returned while a job was running")
	}
	close(release)
	q.Close()
	if ran.Load() != 4 {
		t.Fatalf("Close did not let the running job finish: %d ran", ran.Load())
	}
	if err := q.Enqueue(ctx, &catalogstore.Job{ExecutionID: "late"}); err == nil {
		t.Fatal("a closed queue took a job")
	}
}
