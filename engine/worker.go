package engine

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/lakesql/lakesql/catalogstore"
)

// ErrQueueFull: the in-process queue's buffer is full; the job stays in
// the metastore for `lakesql worker`.
var ErrQueueFull = errors.New("refresh queue is full")

// InProcessQueue runs refresh jobs on a pool of goroutines in this process
// (the embedded default, inside serve, the REPL and programs embedding the
// engine). Enqueue never blocks.
type InProcessQueue struct {
	run    func(ctx context.Context, executionID string)
	ch     chan string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	busy   int // queued + running
	idle   *sync.Cond
	closed bool
}

// NewInProcessQueue starts workers goroutines that call run for each
// enqueued job.
func NewInProcessQueue(workers int, run func(ctx context.Context, executionID string)) *InProcessQueue {
	ctx, cancel := context.WithCancel(context.Background())
	q := &InProcessQueue{run: run, ch: make(chan string, 4096), ctx: ctx, cancel: cancel}
	q.idle = sync.NewCond(&q.mu)
	for range max(1, workers) {
		q.wg.Add(1)
		go q.work()
	}
	return q
}

func (q *InProcessQueue) work() {
	defer q.wg.Done()
	for {
		select {
		case <-q.ctx.Done():
			return
		case id := <-q.ch:
			func() {
				defer func() { _ = recover() }()
				q.run(q.ctx, id)
			}()
			q.mu.Lock()
			q.busy--
			if q.busy == 0 {
				q.idle.Broadcast()
			}
			q.mu.Unlock()
		}
	}
}

// Enqueue implements catalogstore.Queue.
func (q *InProcessQueue) Enqueue(_ context.Context, job *catalogstore.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return errors.New("refresh queue is closed")
	}
	select {
	case q.ch <- job.ExecutionID:
		q.busy++
		return nil
	default:
		return ErrQueueFull
	}
}

// Wait blocks until no job is queued or running, or ctx ends.
func (q *InProcessQueue) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		q.mu.Lock()
		for q.busy > 0 {
			q.idle.Wait()
		}
		q.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeGrace bounds how long Close waits for queued and running jobs.
const closeGrace = 30 * time.Second

// Close refuses new jobs, lets the queued and running ones finish (for at
// most closeGrace, so a REPL or `lakesql -e` exiting right after a commit
// still refreshes), then stops the workers. A job cut off stays pending
// (or running) in the metastore, for `lakesql worker`.
func (q *InProcessQueue) Close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.mu.Unlock()
	done := make(chan struct{})
	go func() {
		q.mu.Lock()
		for q.busy > 0 {
			q.idle.Wait()
		}
		q.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeGrace):
	}
	q.cancel()
	q.wg.Wait()
}

// InlineQueue runs each job in the goroutine that enqueues it: after the
// firing commit, before the statement returns. Deterministic, for tests
// and scripts.
type InlineQueue func(ctx context.Context, executionID string)

// Enqueue implements catalogstore.Queue.
func (f InlineQueue) Enqueue(ctx context.Context, job *catalogstore.Job) error {
	f(context.WithoutCancel(ctx), job.ExecutionID)
	return nil
}

// Task is the body of a refresh task POSTed to a worker.
type Task struct {
	ExecutionID string `json:"execution_id"`
	Target      string `json:"target,omitempty"`
}

// HTTPTaskQueue is the production queue: like a Cloud Tasks HTTP target
// with an OIDC token, each job is a POST of a Task to the worker's URL with
// "Authorization: Bearer <JWT>", the token signed RS256 for Audience.
type HTTPTaskQueue struct {
	URL      string
	Audience string
	Issuer   string // the token's iss and sub (the service identity)
	Key      *rsa.PrivateKey
	KeyID    string
	Client   *http.Client
	// TTL is the token's lifetime (default 5 minutes).
	TTL time.Duration
	// Async asks the worker to answer once it has the job (Prefer:
	// respond-async) instead of once the job has run.
	Async bool
}

// HTTPTaskQueueFromEnv configures an HTTPTaskQueue from LAKESQL_TASKS_URL,
// LAKESQL_TASKS_AUDIENCE (default: the URL), LAKESQL_TASKS_KEY_FILE (an RSA
// private key, PEM) and LAKESQL_TASKS_ISSUER.
func HTTPTaskQueueFromEnv() (*HTTPTaskQueue, error) {
	url := os.Getenv("LAKESQL_TASKS_URL")
	if url == "" {
		return nil, errors.New("LAKESQL_JOBS=http needs LAKESQL_TASKS_URL (the worker's task URL)")
	}
	keyFile := os.Getenv("LAKESQL_TASKS_KEY_FILE")
	if keyFile == "" {
		return nil, errors.New("LAKESQL_JOBS=http needs LAKESQL_TASKS_KEY_FILE (the RSA key that signs task tokens)")
	}
	pemBytes, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("LAKESQL_TASKS_KEY_FILE: %w", err)
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("LAKESQL_TASKS_KEY_FILE: %w", err)
	}
	aud := os.Getenv("LAKESQL_TASKS_AUDIENCE")
	if aud == "" {
		aud = url
	}
	iss := os.Getenv("LAKESQL_TASKS_ISSUER")
	if iss == "" {
		iss = "lakesql"
	}
	return &HTTPTaskQueue{URL: url, Audience: aud, Issuer: iss, Key: key, Async: true}, nil
}

// Token mints the bearer token of one task.
func (q *HTTPTaskQueue) Token(now time.Time) (string, error) {
	ttl := q.TTL
	if ttl <= 0 {
		ttl = 5 * time.Minute
	}
	claims := jwt.RegisteredClaims{
		Issuer: q.Issuer, Subject: q.Issuer, Audience: jwt.ClaimStrings{q.Audience},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now.Add(-30 * time.Second)),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	if q.KeyID != "" {
		tok.Header["kid"] = q.KeyID
	}
	return tok.SignedString(q.Key)
}

// Enqueue implements catalogstore.Queue: one POST, which the worker
// acknowledges with a 2xx (once the job has run, or with Async once it
// has the job).
func (q *HTTPTaskQueue) Enqueue(ctx context.Context, job *catalogstore.Job) error {
	tok, err := q.Token(time.Now())
	if err != nil {
		return fmt.Errorf("sign task token: %w", err)
	}
	body, _ := json.Marshal(Task{ExecutionID: job.ExecutionID, Target: job.Target})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, q.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	if q.Async {
		req.Header.Set("Prefer", "respond-async")
	}
	client := q.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("post task to %s: %w", q.URL, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("post task to %s: %s: %s", q.URL, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// TokenVerifier checks a task's bearer token: an RS256 JWT for Audience,
// signed by one of the keys, not expired (and from Issuer, when set).
type TokenVerifier struct {
	Audience string
	Issuer   string
	// Keys returns the public key for a token's kid (which may be empty).
	Keys func(ctx context.Context, kid string) (*rsa.PublicKey, error)
}

// Token errors, as the worker answers them.
var (
	// ErrUnauthenticated: no token, a malformed or forged one, or an
	// expired one (401).
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrForbidden: a valid token for another audience or issuer (403).
	ErrForbidden = errors.New("forbidden")
)

// Verify checks the Authorization header's bearer token.
func (v *TokenVerifier) Verify(ctx context.Context, header string) (*jwt.RegisteredClaims, error) {
	raw, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || strings.TrimSpace(raw) == "" {
		return nil, fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
	}
	if v.Audience == "" {
		return nil, fmt.Errorf("%w: the worker has no audience configured", ErrForbidden)
	}
	claims := &jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(strings.TrimSpace(raw), claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return v.Keys(ctx, kid)
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnauthenticated, err)
	}
	audOK := false
	for _, a := range claims.Audience {
		audOK = audOK || a == v.Audience
	}
	if !audOK {
		return nil, fmt.Errorf("%w: token audience %v is not %q", ErrForbidden, []string(claims.Audience), v.Audience)
	}
	if v.Issuer != "" && claims.Issuer != v.Issuer {
		return nil, fmt.Errorf("%w: token issuer %q is not %q", ErrForbidden, claims.Issuer, v.Issuer)
	}
	return claims, nil
}

// StaticKeys serves one public key whatever the kid.
func StaticKeys(k *rsa.PublicKey) func(context.Context, string) (*rsa.PublicKey, error) {
	return func(context.Context, string) (*rsa.PublicKey, error) { return k, nil }
}

// PublicKeyFromPEM parses an RSA public key (PKIX "PUBLIC KEY" or a
// certificate).
func PublicKeyFromPEM(b []byte) (*rsa.PublicKey, error) {
	if k, err := jwt.ParseRSAPublicKeyFromPEM(b); err == nil {
		return k, nil
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("no PEM block")
	}
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, err
	}
	k, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("the certificate's key is not RSA")
	}
	return k, nil
}

// JWKSKeys fetches signing keys from a JSON Web Key Set URL (for Google's
// OIDC tokens: https://www.googleapis.com/oauth2/v3/certs), caching them
// for an hour and refetching on an unknown kid.
func JWKSKeys(url string, client *http.Client) func(context.Context, string) (*rsa.PublicKey, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	var mu sync.Mutex
	var keys map[string]*rsa.PublicKey
	var fetched time.Time
	fetch := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("fetch %s: %s", url, resp.Status)
		}
		var set struct {
			Keys []struct {
				Kid, Kty, N, E string
			} `json:"keys"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
			return fmt.Errorf("fetch %s: %w", url, err)
		}
		m := map[string]*rsa.PublicKey{}
		for _, k := range set.Keys {
			if k.Kty != "RSA" {
				continue
			}
			n, err1 := base64.RawURLEncoding.DecodeString(k.N)
			e, err2 := base64.RawURLEncoding.DecodeString(k.E)
			if err1 != nil || err2 != nil {
				continue
			}
			m[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		}
		keys, fetched = m, time.Now()
		return nil
	}
	return func(ctx context.Context, kid string) (*rsa.PublicKey, error) {
		mu.Lock()
		defer mu.Unlock()
		if k, ok := keys[kid]; ok && time.Since(fetched) < time.Hour {
			return k, nil
		}
		if err := fetch(ctx); err != nil {
			return nil, err
		}
		if k, ok := keys[kid]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("no key %q in %s", kid, url)
	}
}

// Worker is the HTTP task target of `lakesql worker --listen`. It verifies
// the bearer token (401 without a valid one, 403 for another audience),
// then runs the job. By default it answers when the job has run: 200 with
// its final status, or a 500 (which a task queue retries) when the job
// could not be run at all. A request with "Prefer: respond-async" (what
// HTTPTaskQueue sends, so a commit waits for one round trip, not for the
// refresh) is answered 202 once the job is known to be pending, and runs in
// the background.
type Worker struct {
	e  *Engine
	v  *TokenVerifier
	wg sync.WaitGroup
}

// NewWorker returns the task target over e.
func (e *Engine) NewWorker(v *TokenVerifier) *Worker { return &Worker{e: e, v: v} }

// Wait waits for the jobs running in the background.
func (wk *Worker) Wait() { wk.wg.Wait() }

// ServeHTTP implements http.Handler.
func (wk *Worker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := wk.e
	if r.Method != http.MethodPost {
		http.Error(w, "POST a task", http.StatusMethodNotAllowed)
		return
	}
	if _, err := wk.v.Verify(r.Context(), r.Header.Get("Authorization")); err != nil {
		code := http.StatusUnauthorized
		if errors.Is(err, ErrForbidden) {
			code = http.StatusForbidden
		}
		e.log.Warn("worker: task refused", "status", code, "err", err)
		http.Error(w, err.Error(), code)
		return
	}
	var task Task
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&task); err != nil || task.ExecutionID == "" {
		http.Error(w, `the body must be {"execution_id": "..."}`, http.StatusBadRequest)
		return
	}
	if strings.Contains(strings.ToLower(r.Header.Get("Prefer")), "respond-async") {
		job, err := e.cat.Job(r.Context(), task.ExecutionID)
		if err != nil {
			writeJobError(w, err)
			return
		}
		if job.Status == catalogstore.JobPending {
			wk.wg.Add(1)
			go func() {
				defer wk.wg.Done()
				e.runJobByID(context.WithoutCancel(r.Context()), task.ExecutionID)
			}()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(map[string]any{"execution_id": job.ExecutionID, "status": job.Status})
		return
	}
	job, err := e.RunJob(r.Context(), task.ExecutionID)
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
