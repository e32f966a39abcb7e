package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lakesql/lakesql/alerts"
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/engine/jobs"
)

// The environment variables lakesql reads, all here and once per verb:
// the packages below take them as Config fields.
const (
	envRootPassword  = "LAKESQL_ROOT_PASSWORD"
	envCompactionRAM = "LAKESQL_COMPACTION_RAM_MB"
	// envQueryMemory is the default per-query memory budget
	// (lakesql_query_memory) in MiB; unset: a quarter of the machine's.
	envQueryMemory = "LAKESQL_QUERY_MEMORY_MB"
	// envServerMemory is the server's memory cap all query budgets draw
	// from (lakesql_server_memory) in MiB; unset: half the machine's.
	envServerMemory = "LAKESQL_SERVER_MEMORY_MB"
	// envSpillDir is where sorts past the budget write their runs.
	envSpillDir = "LAKESQL_SPILL_DIR"
)

// envSettings is what the environment configures.
type envSettings struct {
	jobs         jobs.Config
	rootPassword string
	// compactionMemory in bytes (0: the default).
	compactionMemory int64
	// queryMemory in bytes (0: the default); spillDir ("" : the OS's
	// temporary folder).
	queryMemory int64
	spillDir    string
	// serverMemory in bytes (0: the default).
	serverMemory int64
}

// readEnv reads the settings through getenv (os.Getenv; a map in tests).
func readEnv(getenv func(string) string) (envSettings, error) {
	s := envSettings{rootPassword: getenv(envRootPassword), spillDir: getenv(envSpillDir)}
	var err error
	if s.compactionMemory, err = mebibytes(getenv, envCompactionRAM); err != nil {
		return s, err
	}
	if s.queryMemory, err = mebibytes(getenv, envQueryMemory); err != nil {
		return s, err
	}
	if s.serverMemory, err = mebibytes(getenv, envServerMemory); err != nil {
		return s, err
	}
	s.jobs = jobs.Config{
		Mode: getenv("LAKESQL_JOBS"),
		HTTP: jobs.HTTPConfig{
			URL: getenv("LAKESQL_TASKS_URL"), Audience: getenv("LAKESQL_TASKS_AUDIENCE"),
			KeyFile: getenv("LAKESQL_TASKS_KEY_FILE"), Issuer: getenv("LAKESQL_TASKS_ISSUER"),
		},
		Alerts: alerts.Settings{
			Sink: getenv("LAKESQL_ALERTS_SINK"), Component: getenv("LAKESQL_ALERTS_COMPONENT"),
			Environment: getenv("LAKESQL_ALERTS_ENVIRONMENT"),
			GitHubToken: getenv("LAKESQL_ALERTS_GITHUB_TOKEN"), GitHubRepo: getenv("LAKESQL_ALERTS_GITHUB_REPO"),
			GitHubAPI:      getenv("LAKESQL_ALERTS_GITHUB_API"),
			DiscordWebhook: getenv("LAKESQL_ALERTS_DISCORD_WEBHOOK"), DiscordMinSeverity: getenv("LAKESQL_ALERTS_DISCORD_MIN_SEVERITY"),
		},
	}
	if v := getenv("LAKESQL_TRIGGER_MIN_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return s, fmt.Errorf("LAKESQL_TRIGGER_MIN_INTERVAL: %w", err)
		}
		if d == 0 {
			d = -1 // 0 in the environment means "never coalesce"; 0 in jobs.Config is the default
		}
		s.jobs.TriggerMinInterval = d
	}
	if v := getenv("LAKESQL_JOBS_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return s, fmt.Errorf("LAKESQL_JOBS_WORKERS: %q is not a positive number", v)
		}
		s.jobs.Workers = n
	}
	if v := getenv("LAKESQL_ALERTS_COOLOFF"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return s, fmt.Errorf("LAKESQL_ALERTS_COOLOFF: %w", err)
		}
		s.jobs.Alerts.CoolOff = d
	}
	return s, nil
}

// mebibytes reads a positive number of MiB from the variable name, in
// bytes; 0 when it is unset.
func mebibytes(getenv func(string) string, name string) (int64, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n >= 1<<40 {
		return 0, fmt.Errorf("%w: %s=%q must be a positive number of MiB", catalogstore.ErrBadValue, name, v)
	}
	return n << 20, nil
}
