package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

func marked(msg string) error {
	return catalogstore.MarkAlertable(errors.New(msg), catalogstore.SeverityCritical, "manifest-unreadable:u1", map[string]string{"dataset": "w.c.t"})
}

func decodeLines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestStdout_OneJSONLineSynchronously: the line is there when Report
// returns, every time (no cool-off on the guarantee).
func TestStdout_OneJSONLineSynchronously(t *testing.T) {
	var buf bytes.Buffer
	r := New(Config{Component: "catalog", Environment: "test", Stdout: NewStdoutSink(&buf)})
	defer r.Close()
	r.Report(context.Background(), marked("summary disagrees with manifest"))
	lines := decodeLines(t, &buf)
	if len(lines) != 1 {
		t.Fatalf("lines %v", lines)
	}
	l := lines[0]
	if l["kind"] != "lakesql.alert" || l["severity"] != "critical" || l["component"] != "catalog" || l["environment"] != "test" ||
		l["alertable"] != true || l["message"] != "summary disagrees with manifest" || l["labels"].(map[string]any)["dataset"] != "w.c.t" ||
		!strings.HasPrefix(l["title"].(string), "[catalog] critical: ") || l["fingerprint"] == "" {
		t.Fatalf("line %v", l)
	}
	r.Report(context.Background(), marked("summary disagrees with manifest"))
	r.Report(context.Background(), nil)
	if n := len(decodeLines(t, &buf)); n != 2 {
		t.Fatalf("%d lines after a repeat, want 2", n)
	}
}

// TestFingerprint_SaltedWithComponent: the same failure has one identity
// per component; numbers and ids do not change an unmarked error's.
func TestFingerprint_SaltedWithComponent(t *testing.T) {
	fp := func(component string, err error) string {
		r := New(Config{Component: component, Stdout: NewStdoutSink(io.Discard)})
		defer r.Close()
		return r.alertOf(err).Fingerprint
	}
	a, b := fp("catalog", marked("x")), fp("catalog", marked("y"))
	if a != b {
		t.Error("the marker's fingerprint decides, not the message")
	}
	if fp("maintenance", marked("x")) == a {
		t.Error("the component must be salted into the fingerprint")
	}
	u1 := fp("c", fmt.Errorf("refresh of w.c.mv failed at snapshot 12 (01a2381c-74a5-7bc5-920b-4e08a56b1bba)"))
	u2 := fp("c", fmt.Errorf("refresh of w.c.mv failed at snapshot 13 (01a2381c-75b1-7938-952e-c23da60a724e)"))
	if u1 != u2 {
		t.Error("an unmarked error's fingerprint must ignore numbers and ids")
	}
	r := New(Config{Stdout: NewStdoutSink(io.Discard)})
	defer r.Close()
	if a := r.alertOf(errors.New("plain")); a.Alertable || a.Severity != "error" {
		t.Errorf("unmarked alert %+v", a)
	}
}

// fakeSink records sends.
type fakeSink struct {
	mu   sync.Mutex
	sent []Alert
	wait chan struct{}
}

func (f *fakeSink) Name() string { return "fake" }
func (f *fakeSink) Send(_ context.Context, a Alert) error {
	f.mu.Lock()
	f.sent = append(f.sent, a)
	f.mu.Unlock()
	if f.wait != nil {
		f.wait <- struct{}{}
	}
	return nil
}

// TestCoolOff: a fingerprint reaches the remote sinks once per cool-off;
// stdout sees every report.
func TestCoolOff(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	f := &fakeSink{}
	r := New(Config{Stdout: NewStdoutSink(&buf), Remote: []Sink{f}, CoolOff: time.Minute, Now: clock})
	for range 3 {
		r.Report(context.Background(), marked("boom"))
	}
	r.Report(context.Background(), errors.New("another failure"))
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	r.Report(context.Background(), marked("boom"))
	r.Close()
	if len(f.sent) != 3 {
		t.Fatalf("remote sends %d, want 3 (boom, another, boom after the cool-off)", len(f.sent))
	}
	if n := len(decodeLines(t, &buf)); n != 5 {
		t.Fatalf("stdout lines %d, want 5", n)
	}
}

// githubFake is a minimal GitHub issues API.
type githubFake struct {
	mu        sync.Mutex
	issues    []map[string]any
	comments  map[int][]string
	throttle  int // answer this many requests 429 with Retry-After: 0
	calls     int
	authOK    bool
	listCalls int
}

func (g *githubFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	g.authOK = r.Header.Get("Authorization") == "Bearer tok"
	if g.throttle > 0 {
		g.throttle--
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/repos/o/r/issues":
		g.listCalls++
		if r.URL.Query().Get("labels") != "lakesql-alert" || r.URL.Query().Get("state") != "open" {
			http.Error(w, "bad query", 400)
			return
		}
		_ = json.NewEncoder(w).Encode(g.issues)
	case r.Method == http.MethodPost && r.URL.Path == "/repos/o/r/issues":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		body["number"] = len(g.issues) + 1
		g.issues = append(g.issues, body)
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(body)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/comments"):
		var n int
		fmt.Sscanf(r.URL.Path, "/repos/o/r/issues/%d/comments", &n)
		var body map[string]string
		_ = json.NewDecoder(r.Body).Decode(&body)
		if g.comments == nil {
			g.comments = map[int][]string{}
		}
		g.comments[n] = append(g.comments[n], body["body"])
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{}`))
	default:
		http.NotFound(w, r)
	}
}

func TestGitHub_OpensThenComments(t *testing.T) {
	g := &githubFake{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	s := &GitHubSink{Token: "tok", Repo: "o/r", API: srv.URL, MinInterval: time.Millisecond}
	r := New(Config{Component: "catalog", Stdout: NewStdoutSink(io.Discard)})
	a := r.alertOf(marked("manifest unreadable"))
	ctx := context.Background()
	if err := s.Send(ctx, a); err != nil {
		t.Fatal(err)
	}
	if len(g.issues) != 1 || !strings.Contains(g.issues[0]["body"].(string), Marker(a.Fingerprint)) || !g.authOK {
		t.Fatalf("issues %v", g.issues)
	}
	labels := fmt.Sprint(g.issues[0]["labels"])
	if !strings.Contains(labels, "lakesql-alert") || !strings.Contains(labels, "severity:critical") || !strings.Contains(labels, "component:catalog") {
		t.Fatalf("labels %s", labels)
	}
	if err := s.Send(ctx, a); err != nil {
		t.Fatal(err)
	}
	if len(g.issues) != 1 || len(g.comments[1]) != 1 || !strings.Contains(g.comments[1][0], "manifest unreadable") {
		t.Fatalf("second send: issues %d, comments %v", len(g.issues), g.comments)
	}
	// Another fingerprint: another issue.
	other := New(Config{Component: "maintenance", Stdout: NewStdoutSink(io.Discard)}).alertOf(marked("manifest unreadable"))
	if err := s.Send(ctx, other); err != nil {
		t.Fatal(err)
	}
	if len(g.issues) != 2 {
		t.Fatalf("issues %d, want 2", len(g.issues))
	}
}

// TestGitHub_OneRetryHonouringRetryAfter: a 429 is retried once after its
// Retry-After; a second one is an error.
func TestGitHub_OneRetryHonouringRetryAfter(t *testing.T) {
	g := &githubFake{throttle: 1}
	srv := httptest.NewServer(g)
	defer srv.Close()
	s := &GitHubSink{Token: "tok", Repo: "o/r", API: srv.URL, MinInterval: time.Millisecond}
	a := New(Config{Stdout: NewStdoutSink(io.Discard)}).alertOf(marked("x"))
	if err := s.Send(context.Background(), a); err != nil {
		t.Fatalf("one 429 then success: %v", err)
	}
	if len(g.issues) != 1 {
		t.Fatalf("issues %v", g.issues)
	}
	g.throttle = 2
	calls := g.calls
	err := s.Send(context.Background(), a)
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("two 429s: %v", err)
	}
	if g.calls-calls != 2 {
		t.Fatalf("%d requests, want exactly one retry", g.calls-calls)
	}
	if d := retryAfter(http.Header{"Retry-After": {"7"}}, nil); d != 7*time.Second {
		t.Errorf("Retry-After 7 = %v", d)
	}
	if d := retryAfter(http.Header{}, []byte(`{"retry_after": 0.25}`)); d != 250*time.Millisecond {
		t.Errorf("retry_after 0.25 = %v", d)
	}
	if d := retryAfter(http.Header{"Retry-After": {"3600"}}, nil); d != maxRetryAfter {
		t.Errorf("a huge Retry-After is capped: %v", d)
	}
}

func TestGitHub_RateLimited(t *testing.T) {
	g := &githubFake{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	s := &GitHubSink{Token: "tok", Repo: "o/r", API: srv.URL, MinInterval: 50 * time.Millisecond}
	a := New(Config{Stdout: NewStdoutSink(io.Discard)}).alertOf(marked("x"))
	start := time.Now()
	for range 2 {
		if err := s.Send(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	// list+create, list+comment: four calls, at least three intervals apart.
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Fatalf("4 API calls in %v: not rate-limited", el)
	}
}

func TestDiscord_EmbedMinSeverityMentionsLocked(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	throttle := 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if throttle > 0 {
			throttle--
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"retry_after": 0.01, "global": false}`))
			return
		}
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		got = append(got, m)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	s := &DiscordSink{Webhook: srv.URL, MinSeverity: "error"}
	r := New(Config{Component: "catalog", Environment: "prod", Stdout: NewStdoutSink(io.Discard)})
	ctx := context.Background()
	warn := r.alertOf(catalogstore.MarkAlertable(errors.New("slow"), catalogstore.SeverityWarning, "w", nil))
	if err := s.Send(ctx, warn); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || throttle != 1 {
		t.Fatal("a warning below the minimum severity was posted")
	}
	crit := r.alertOf(catalogstore.MarkAlertable(errors.New("@everyone the manifest is gone"), catalogstore.SeverityCritical, "c", map[string]string{"dataset": "w.c.t"}))
	if err := s.Send(ctx, crit); err != nil {
		t.Fatalf("after one 429: %v", err)
	}
	if len(got) != 1 {
		t.Fatalf("posts %v", got)
	}
	p := got[0]
	am := p["allowed_mentions"].(map[string]any)
	if parse, ok := am["parse"].([]any); !ok || len(parse) != 0 {
		t.Fatalf("allowed_mentions %v: mentions must be locked down", am)
	}
	emb := p["embeds"].([]any)[0].(map[string]any)
	if !strings.Contains(emb["title"].(string), "critical") || !strings.Contains(emb["description"].(string), "manifest is gone") ||
		emb["color"].(float64) != float64(severityColor["critical"]) || !strings.Contains(fmt.Sprint(emb["fields"]), "w.c.t") {
		t.Fatalf("embed %v", emb)
	}
}

// TestReporter_BackgroundDelivery: remote sinks run off the caller's
// goroutine; Close waits for them.
func TestReporter_BackgroundDelivery(t *testing.T) {
	f := &fakeSink{wait: make(chan struct{}, 10)}
	r := New(Config{Stdout: NewStdoutSink(io.Discard), Remote: []Sink{f}})
	r.Report(context.Background(), marked("x"))
	select {
	case <-f.wait:
	case <-time.After(5 * time.Second):
		t.Fatal("the remote sink never received the alert")
	}
	r.Close()
	r.Report(context.Background(), marked("after close"))
}

func TestFromSettings(t *testing.T) {
	set := Settings{Sink: "stdout, discord", DiscordWebhook: "http://127.0.0.1:1/hook", Component: "catalog"}
	r, err := FromSettings(set)
	if err != nil || len(r.cfg.Remote) != 1 || r.cfg.Remote[0].Name() != "discord" || r.cfg.Component != "catalog" {
		t.Fatalf("FromSettings: %+v, %v", r, err)
	}
	r.Close()
	set.Sink = "both"
	if _, err := FromSettings(set); err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Fatalf("github without a token: %v", err)
	}
	set.Sink = "pager"
	if _, err := FromSettings(set); err == nil || !strings.Contains(err.Error(), "pager") {
		t.Fatalf("unknown sink: %v", err)
	}
	set.Sink = ""
	r, err = FromSettings(set)
	if err != nil || len(r.cfg.Remote) != 0 {
		t.Fatalf("default: %v", err)
	}
	r.Close()
}
