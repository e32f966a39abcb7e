// Package alerts delivers the catalog's alertable errors (platform
// inconsistencies, missed trigger fires, blocked refreshes) to sinks.
//
// stdout is the guarantee: every report is one JSON line written
// synchronously before Report returns, so the record survives the process
// being killed. The other sinks (github, discord) are additions, delivered
// best-effort by a background worker, with a per-fingerprint cool-off so a
// recurring failure does not flood them.
//
// Configuration (Settings; cmd/lakesql fills it from these variables):
//
//	LAKESQL_ALERTS_SINK         comma list of stdout, github, discord ("both" = stdout,github); stdout is always on
//	LAKESQL_ALERTS_COMPONENT    the reporting job; prefixes titles, becomes a label and is SALTED INTO THE
//	                            FINGERPRINT (changing it gives every failure a new identity): pick it and leave it
//	LAKESQL_ALERTS_ENVIRONMENT  e.g. production
//	LAKESQL_ALERTS_COOLOFF      per-fingerprint cool-off of the remote sinks (Go duration, default 15m)
//	LAKESQL_ALERTS_GITHUB_TOKEN, LAKESQL_ALERTS_GITHUB_REPO (owner/name), LAKESQL_ALERTS_GITHUB_API
//	LAKESQL_ALERTS_DISCORD_WEBHOOK, LAKESQL_ALERTS_DISCORD_MIN_SEVERITY (warning, error, critical; default error)
package alerts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

// Alert is one report, as every sink receives it.
type Alert struct {
	Time     time.Time `json:"time"`
	Severity string    `json:"severity"`
	Title    string    `json:"title"`
	Message  string    `json:"message"`
	// Fingerprint identifies the failure across occurrences: the error's
	// fingerprint salted with the component.
	Fingerprint string            `json:"fingerprint"`
	Component   string            `json:"component,omitempty"`
	Environment string            `json:"environment,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	// Alertable is false for an error reported without the marker.
	Alertable bool `json:"alertable"`
}

// Sink delivers alerts.
type Sink interface {
	Name() string
	Send(ctx context.Context, a Alert) error
}

// Config configures a Reporter.
type Config struct {
	Component   string
	Environment string
	// Stdout is the synchronous sink (default: JSON lines on os.Stdout).
	Stdout *StdoutSink
	// Remote are the best-effort sinks.
	Remote []Sink
	// CoolOff suppresses a fingerprint on the remote sinks for this long
	// after it was sent (default 15 minutes; negative: never).
	CoolOff time.Duration
	Now     func() time.Time
	Logger  *slog.Logger
}

// Reporter turns errors into alerts and delivers them.
type Reporter struct {
	cfg     Config
	mu      sync.Mutex
	lastHit map[string]time.Time
	ch      chan Alert
	done    chan struct{}
	closed  bool
	once    sync.Once
}

// New starts a reporter (and its background worker when there are remote
// sinks).
func New(cfg Config) *Reporter {
	if cfg.Stdout == nil {
		cfg.Stdout = NewStdoutSink(os.Stdout)
	}
	if cfg.CoolOff == 0 {
		cfg.CoolOff = 15 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Reporter{cfg: cfg, lastHit: map[string]time.Time{}, ch: make(chan Alert, 256), done: make(chan struct{})}
	if len(cfg.Remote) > 0 {
		go r.work()
	} else {
		close(r.done)
	}
	return r
}

// Settings is the alerting configuration as an operator writes it: the
// sink names and each sink's options. cmd/lakesql fills it from the
// LAKESQL_ALERTS_* variables (named in the errors, since that is where a
// wrong value comes from); programs embedding lakesql fill it directly.
type Settings struct {
	// Sink is a comma list of stdout, github, discord ("both" = stdout,github).
	Sink        string
	Component   string
	Environment string
	// CoolOff is the remote sinks' per-fingerprint cool-off (0: 15 minutes).
	CoolOff            time.Duration
	GitHubToken        string
	GitHubRepo         string // owner/name
	GitHubAPI          string
	DiscordWebhook     string
	DiscordMinSeverity string
}

// FromSettings builds a reporter with the sinks s names.
func FromSettings(s Settings) (*Reporter, error) {
	cfg := Config{Component: s.Component, Environment: s.Environment, CoolOff: s.CoolOff}
	seen := map[string]bool{}
	for _, name := range strings.Split(s.Sink, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		names := []string{name}
		if name == "both" {
			names = []string{"stdout", "github"}
		}
		for _, n := range names {
			if n == "" || n == "stdout" || seen[n] {
				continue
			}
			seen[n] = true
			switch n {
			case "github":
				sink, err := s.gitHub()
				if err != nil {
					return nil, err
				}
				cfg.Remote = append(cfg.Remote, sink)
			case "discord":
				sink, err := s.discord()
				if err != nil {
					return nil, err
				}
				cfg.Remote = append(cfg.Remote, sink)
			default:
				return nil, fmt.Errorf("LAKESQL_ALERTS_SINK: unknown sink %q (use stdout, github, discord)", n)
			}
		}
	}
	return New(cfg), nil
}

// Report delivers err: one stdout line now, the remote sinks later (unless
// its fingerprint is cooling off). A nil error is ignored.
func (r *Reporter) Report(ctx context.Context, err error) {
	if err == nil {
		return
	}
	a := r.alertOf(err)
	if serr := r.cfg.Stdout.Send(ctx, a); serr != nil {
		r.cfg.Logger.Error("alert: stdout sink failed", "err", serr, "alert", a.Message)
	}
	if len(r.cfg.Remote) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if last, ok := r.lastHit[a.Fingerprint]; ok && r.cfg.CoolOff > 0 && a.Time.Sub(last) < r.cfg.CoolOff {
		return
	}
	r.lastHit[a.Fingerprint] = a.Time
	select {
	case r.ch <- a:
	default:
		r.cfg.Logger.Warn("alert: remote sinks are backed up; dropped (stdout has it)", "fingerprint", a.Fingerprint)
	}
}

func (r *Reporter) work() {
	defer close(r.done)
	for a := range r.ch {
		for _, s := range r.cfg.Remote {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			if err := s.Send(ctx, a); err != nil {
				r.cfg.Logger.Warn("alert: sink failed", "sink", s.Name(), "fingerprint", a.Fingerprint, "err", err)
			}
			cancel()
		}
	}
}

// Close stops taking alerts and waits (up to ten seconds) for the remote
// sinks to deliver what is queued.
func (r *Reporter) Close() {
	r.once.Do(func() {
		r.mu.Lock()
		r.closed = true
		close(r.ch)
		r.mu.Unlock()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
		}
	})
}

var digits = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f-]{27,}|\d+`)

// alertOf builds the alert of an error: the marker's severity, fingerprint
// and labels, or for an unmarked error severity error and a fingerprint
// of its message with numbers and ids blanked.
func (r *Reporter) alertOf(err error) Alert {
	a := Alert{
		Time: r.cfg.Now().UTC(), Severity: string(catalogstore.SeverityError), Message: err.Error(),
		Component: r.cfg.Component, Environment: r.cfg.Environment,
	}
	raw := digits.ReplaceAllString(err.Error(), "#")
	var ae *catalogstore.AlertableError
	if errors.As(err, &ae) {
		a.Alertable = true
		if ae.Severity != "" {
			a.Severity = string(ae.Severity)
		}
		if ae.Fingerprint != "" {
			raw = ae.Fingerprint
		}
		if len(ae.Labels) > 0 {
			a.Labels = make(map[string]string, len(ae.Labels))
			for k, v := range ae.Labels {
				a.Labels[k] = v
			}
		}
	}
	sum := sha256.Sum256([]byte(r.cfg.Component + "\x00" + raw))
	a.Fingerprint = hex.EncodeToString(sum[:8])
	first, _, _ := strings.Cut(a.Message, "\n")
	if len(first) > 120 {
		first = first[:117] + "..."
	}
	prefix := ""
	if a.Component != "" {
		prefix = "[" + a.Component + "] "
	}
	a.Title = prefix + a.Severity + ": " + first
	return a
}

// severityRank orders severities.
func severityRank(s string) int {
	switch catalogstore.Severity(s) {
	case catalogstore.SeverityWarning:
		return 1
	case catalogstore.SeverityError:
		return 2
	case catalogstore.SeverityCritical:
		return 3
	}
	return 2
}

// StdoutSink writes one JSON line per alert, synchronously.
type StdoutSink struct {
	mu sync.Mutex
	w  io.Writer
}

// NewStdoutSink writes to w (os.Stdout in production).
func NewStdoutSink(w io.Writer) *StdoutSink { return &StdoutSink{w: w} }

// Name implements Sink.
func (s *StdoutSink) Name() string { return "stdout" }

// Send implements Sink: the line is written before Send returns (and
// synced when w is a file).
func (s *StdoutSink) Send(_ context.Context, a Alert) error {
	b, err := json.Marshal(struct {
		Kind string `json:"kind"`
		Alert
	}{"lakesql.alert", a})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		return err
	}
	if f, ok := s.w.(*os.File); ok {
		_ = f.Sync()
	}
	return nil
}
