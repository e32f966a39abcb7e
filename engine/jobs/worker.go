package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/lakesql/lakesql/catalogstore"
)

// Worker is the HTTP task target of `lakesql worker --listen`. It verifies
// the bearer token (401 without a valid one, 403 for another audience),
// then runs the job. By default it answers when the job has run: 200 with
// its final status, or a 500 (which a task queue retries) when the job
// could not be run at all. A request with "Prefer: respond-async" (what
// HTTPTaskQueue sends, so a commit waits for one round trip, not for the
// refresh) is answered 202 once the job is known to be pending, and runs in
// the background.
type Worker struct {
	cat *catalogstore.Catalog
	run Runner
	v   *TokenVerifier
	log *slog.Logger
	wg  sync.WaitGroup
}

// Runner runs one refresh job by execution id and returns it in its final
// state (the engine's RunJob: the refresh runs SQL, so it lives there).
type Runner func(ctx context.Context, executionID string) (*catalogstore.Job, error)

// NewWorker returns the task target that runs cat's jobs with run.
func NewWorker(cat *catalogstore.Catalog, run Runner, v *TokenVerifier, log *slog.Logger) *Worker {
	return &Worker{cat: cat, run: run, v: v, log: log}
}

// Wait waits for the jobs running in the background.
func (wk *Worker) Wait() { wk.wg.Wait() }

// ServeHTTP implements http.Handler.
func (wk *Worker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a task", http.StatusMethodNotAllowed)
		return
	}
	if _, err := wk.v.Verify(r.Context(), r.Header.Get("Authorization")); err != nil {
		code := http.StatusUnauthorized
		if errors.Is(err, ErrForbidden) {
			code = http.StatusForbidden
		}
		wk.log.Warn("worker: task refused", "status", code, "err", err)
		http.Error(w, err.Error(), code)
		return
	}
	var task Task
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&task); err != nil || task.ExecutionID == "" {
		http.Error(w, `the body must be {"execution_id": "..."}`, http.StatusBadRequest)
		return
	}
	if strings.Contains(strings.ToLower(r.Header.Get("Prefer")), "respond-async") {
		job, err := wk.cat.Job(r.Context(), task.ExecutionID)
		if err != nil {
			writeJobError(w, err)
			return
		}
		if job.Status == catalogstore.JobPending {
			wk.wg.Add(1)
			go func() {
				defer wk.wg.Done()
				if _, err := wk.run(context.WithoutCancel(r.Context()), task.ExecutionID); err != nil {
					wk.log.Error("refresh job", "execution_id", task.ExecutionID, "err", err)
				}
			}()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(map[string]any{"execution_id": job.ExecutionID, "status": job.Status})
		return
	}
	job, err := wk.run(r.Context(), task.ExecutionID)
	if err != nil {
		writeJobError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"execution_id": job.ExecutionID, "status": job.Status, "message": job.Message})
}

func writeJobError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	if errors.Is(err, catalogstore.ErrJobNotFound) {
		code = http.StatusNotFound
	}
	http.Error(w, err.Error(), code)
}
