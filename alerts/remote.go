package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"strconv"
	"strings"
	"sync"
	"time"
)

// maxRetryAfter caps how long a sink honours a Retry-After.
const maxRetryAfter = 60 * time.Second

// doJSON sends one JSON request, retrying once: after the Retry-After (or
// Discord's retry_after) of a 429 or rate-limited 403, or a second after a
// 5xx or a transport error. out, if set, receives the response's JSON.
func doJSON(ctx context.Context, client *http.Client, method, u string, hdr http.Header, body, out any) (int, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return 0, err
		}
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(payload))
		if err != nil {
			return 0, err
		}
		for k, vs := range hdr {
			req.Header[k] = vs
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		var wait time.Duration
		if err != nil {
			wait = time.Second
		} else {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			switch {
			case resp.StatusCode/100 == 2:
				if out != nil && len(data) > 0 {
					if err := json.Unmarshal(data, out); err != nil {
						return resp.StatusCode, fmt.Errorf("%s %s: decode response: %w", method, u, err)
					}
				}
				return resp.StatusCode, nil
			case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden && resp.Header.Get("Retry-After") != "":
				wait = retryAfter(resp.Header, data)
			case resp.StatusCode >= 500:
				wait = time.Second
			default:
				return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, strings.TrimSpace(string(data)))
			}
			err = fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, strings.TrimSpace(string(data)))
		}
		if attempt > 0 {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// retryAfter reads Retry-After (seconds or an HTTP date), else a JSON
// retry_after (Discord, seconds), capped.
func retryAfter(h http.Header, body []byte) time.Duration {
	d := time.Second
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			d = time.Duration(s * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = time.Until(t)
		}
	} else {
		var rb struct {
			RetryAfter float64 `json:"retry_after"`
		}
		if json.Unmarshal(body, &rb) == nil && rb.RetryAfter > 0 {
			d = time.Duration(rb.RetryAfter * float64(time.Second))
		}
	}
	return min(max(d, 0), maxRetryAfter)
}

// limiter spaces requests at least interval apart.
type limiter struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := time.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.interval)
	l.mu.Unlock()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(at)):
		return nil
	}
}

// GitHubSink opens an issue per fingerprint, or comments on the open one
// whose body carries the fingerprint's marker.
type GitHubSink struct {
	Token string
	Repo  string // owner/name
	API   string // default https://api.github.com
	// Labels are added to new issues, beside "lakesql-alert", the
	// severity and the component.
	Labels []string
	Client *http.Client
	// MinInterval spaces the sink's API calls (default one second).
	MinInterval time.Duration
	lim         limiter
	once        sync.Once
}

// gitHub configures the GitHub sink from the settings.
func (set Settings) gitHub() (*GitHubSink, error) {
	s := &GitHubSink{Token: set.GitHubToken, Repo: set.GitHubRepo, API: set.GitHubAPI}
	if s.Token == "" || !strings.Contains(s.Repo, "/") {
		return nil, errors.New("the github alert sink needs LAKESQL_ALERTS_GITHUB_TOKEN and LAKESQL_ALERTS_GITHUB_REPO (owner/name)")
	}
	return s, nil
}

// Name implements Sink.
func (s *GitHubSink) Name() string { return "github" }

// Marker is the text in an issue body that identifies the fingerprint.
func Marker(fingerprint string) string { return "<!-- lakesql-alert:" + fingerprint + " -->" }

type ghIssue struct {
	Number int    `json:"number"`
	Body   string `json:"body"`
	URL    string `json:"html_url"`
}

// Send implements Sink.
func (s *GitHubSink) Send(ctx context.Context, a Alert) error {
	s.once.Do(func() {
		s.lim.interval = s.MinInterval
		if s.lim.interval == 0 {
			s.lim.interval = time.Second
		}
	})
	api := strings.TrimRight(s.API, "/")
	if api == "" {
		api = "https://api.github.com"
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+s.Token)
	hdr.Set("Accept", "application/vnd.github+json")
	hdr.Set("X-GitHub-Api-Version", "2022-11-28")
	repo := api + "/repos/" + s.Repo
	if err := s.lim.wait(ctx); err != nil {
		return err
	}
	var open []ghIssue
	q := url.Values{"state": {"open"}, "labels": {"lakesql-alert"}, "per_page": {"100"}}
	if _, err := doJSON(ctx, client, http.MethodGet, repo+"/issues?"+q.Encode(), hdr, nil, &open); err != nil {
		return err
	}
	marker := Marker(a.Fingerprint)
	for _, is := range open {
		if strings.Contains(is.Body, marker) {
			if err := s.lim.wait(ctx); err != nil {
				return err
			}
			_, err := doJSON(ctx, client, http.MethodPost, fmt.Sprintf("%s/issues/%d/comments", repo, is.Number), hdr,
				map[string]string{"body": fmt.Sprintf("Seen again at %s:\n\n```\n%s\n```", a.Time.Format(time.RFC3339), a.Message)}, nil)
			return err
		}
	}
	labels := append([]string{"lakesql-alert", "severity:" + a.Severity}, s.Labels...)
	if a.Component != "" {
		labels = append(labels, "component:"+a.Component)
	}
	if err := s.lim.wait(ctx); err != nil {
		return err
	}
	_, err := doJSON(ctx, client, http.MethodPost, repo+"/issues", hdr,
		map[string]any{"title": a.Title, "body": issueBody(a), "labels": labels}, nil)
	return err
}

func issueBody(a Alert) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\n\n**%s** at %s", Marker(a.Fingerprint), a.Severity, a.Time.Format(time.RFC3339))
	if a.Environment != "" {
		fmt.Fprintf(&sb, " in %s", a.Environment)
	}
	fmt.Fprintf(&sb, "\n\n```\n%s\n```\n", a.Message)
	if len(a.Labels) > 0 {
		sb.WriteString("\n| label | value |\n|---|---|\n")
		for _, k := range sortedKeys(a.Labels) {
			fmt.Fprintf(&sb, "| %s | %s |\n", k, a.Labels[k])
		}
	}
	fmt.Fprintf(&sb, "\nfingerprint `%s`\n", a.Fingerprint)
	return sb.String()
}

// DiscordSink posts an embed to a webhook, for alerts at or above
// MinSeverity, with mentions locked down (no @everyone, roles or users is
// ever pinged, whatever the message says).
type DiscordSink struct {
	Webhook     string
	MinSeverity string // default error
	Client      *http.Client
}

// discord configures the Discord sink from the settings.
func (set Settings) discord() (*DiscordSink, error) {
	s := &DiscordSink{Webhook: set.DiscordWebhook, MinSeverity: set.DiscordMinSeverity}
	if s.Webhook == "" {
		return nil, errors.New("the discord alert sink needs LAKESQL_ALERTS_DISCORD_WEBHOOK")
	}
	return s, nil
}

// Name implements Sink.
func (s *DiscordSink) Name() string { return "discord" }

var severityColor = map[string]int{"warning": 0xF1C40F, "error": 0xE67E22, "critical": 0xE74C3C}

// Send implements Sink.
func (s *DiscordSink) Send(ctx context.Context, a Alert) error {
	min := s.MinSeverity
	if min == "" {
		min = "error"
	}
	if severityRank(a.Severity) < severityRank(min) {
		return nil
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	fields := []map[string]any{{"name": "fingerprint", "value": "`" + a.Fingerprint + "`", "inline": true}}
	if a.Component != "" {
		fields = append(fields, map[string]any{"name": "component", "value": clip(a.Component, 1024), "inline": true})
	}
	if a.Environment != "" {
		fields = append(fields, map[string]any{"name": "environment", "value": clip(a.Environment, 1024), "inline": true})
	}
	for _, k := range sortedKeys(a.Labels) {
		if len(fields) >= 25 {
			break
		}
		fields = append(fields, map[string]any{"name": clip(k, 256), "value": clip(a.Labels[k], 1024), "inline": true})
	}
	payload := map[string]any{
		"username": "lakesql",
		"embeds": []map[string]any{{
			"title":       clip(a.Title, 256),
			"description": clip("```\n"+a.Message+"\n```", 4096),
			"color":       severityColor[a.Severity],
			"timestamp":   a.Time.Format(time.RFC3339),
			"fields":      fields,
		}},
		"allowed_mentions": map[string]any{"parse": []string{}},
	}
	_, err := doJSON(ctx, client, http.MethodPost, s.Webhook, nil, payload, nil)
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
