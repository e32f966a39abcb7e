package jobs

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/lakesql/lakesql/catalogstore"
)

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

// HTTPConfig names the production queue's target and signing key
// (cmd/lakesql fills it from LAKESQL_TASKS_URL, LAKESQL_TASKS_AUDIENCE,
// LAKESQL_TASKS_KEY_FILE and LAKESQL_TASKS_ISSUER, the names its errors
// use).
type HTTPConfig struct {
	URL string
	// Audience of the tokens (default: the URL).
	Audience string
	// KeyFile is the RSA private key (PEM) that signs task tokens.
	KeyFile string
	// Issuer of the tokens (default "lakesql").
	Issuer string
}

// NewHTTPTaskQueue configures an HTTPTaskQueue from cfg, reading its key.
func NewHTTPTaskQueue(cfg HTTPConfig) (*HTTPTaskQueue, error) {
	if cfg.URL == "" {
		return nil, errors.New("LAKESQL_JOBS=http needs LAKESQL_TASKS_URL (the worker's task URL)")
	}
	if cfg.KeyFile == "" {
		return nil, errors.New("LAKESQL_JOBS=http needs LAKESQL_TASKS_KEY_FILE (the RSA key that signs task tokens)")
	}
	pemBytes, err := os.ReadFile(cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("LAKESQL_TASKS_KEY_FILE: %w", err)
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("LAKESQL_TASKS_KEY_FILE: %w", err)
	}
	aud := cfg.Audience
	if aud == "" {
		aud = cfg.URL
	}
	iss := cfg.Issuer
	if iss == "" {
		iss = "lakesql"
	}
	return &HTTPTaskQueue{URL: cfg.URL, Audience: aud, Issuer: iss, Key: key, Async: true}, nil
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
