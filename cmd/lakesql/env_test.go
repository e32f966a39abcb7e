package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/catalogstore"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestReadEnv_MemoryBudgets: LAKESQL_COMPACTION_RAM_MB,
// LAKESQL_QUERY_MEMORY_MB and LAKESQL_SERVER_MEMORY_MB are MiB; a value that is not a positive number
// is refused, naming the variable.
func TestReadEnv_MemoryBudgets(t *testing.T) {
	for _, c := range []struct {
		name string
		got  func(envSettings) int64
	}{
		{envCompactionRAM, func(s envSettings) int64 { return s.compactionMemory }},
		{envQueryMemory, func(s envSettings) int64 { return s.queryMemory }},
		{envServerMemory, func(s envSettings) int64 { return s.serverMemory }},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, bad := range []string{"lots", "0", "-3"} {
				if _, err := readEnv(envOf(map[string]string{c.name: bad})); !errors.Is(err, catalogstore.ErrBadValue) || !strings.Contains(err.Error(), c.name) {
					t.Fatalf("bad %s=%q: %v", c.name, bad, err)
				}
			}
			s, err := readEnv(envOf(map[string]string{c.name: "2"}))
			if err != nil || c.got(s) != 2<<20 {
				t.Fatalf("budget from %s: %d, %v", c.name, c.got(s), err)
			}
			if s, err := readEnv(envOf(nil)); err != nil || c.got(s) != 0 {
				t.Fatalf("unset: %d, %v", c.got(s), err)
			}
		})
	}
}

// TestReadEnv_Jobs: the jobs and alerts variables land in jobs.Config; an
// explicit zero interval turns coalescing off rather than meaning the
// default.
func TestReadEnv_Jobs(t *testing.T) {
	s, err := readEnv(envOf(map[string]string{
		"LAKESQL_JOBS": "http", "LAKESQL_JOBS_WORKERS": "5", "LAKESQL_TRIGGER_MIN_INTERVAL": "3s",
		"LAKESQL_TASKS_URL": "http://w", "LAKESQL_ALERTS_SINK": "discord", "LAKESQL_ALERTS_COOLOFF": "1m",
		envRootPassword: "pw",
	}))
	if err != nil || s.jobs.Mode != "http" || s.jobs.Workers != 5 || s.jobs.TriggerMinInterval != 3*time.Second ||
		s.jobs.HTTP.URL != "http://w" || s.jobs.Alerts.Sink != "discord" || s.jobs.Alerts.CoolOff != time.Minute || s.rootPassword != "pw" {
		t.Fatalf("readEnv = %+v, %v", s, err)
	}
	if s, err := readEnv(envOf(map[string]string{"LAKESQL_TRIGGER_MIN_INTERVAL": "0s"})); err != nil || s.jobs.TriggerMinInterval >= 0 {
		t.Fatalf("zero interval = %v, %v", s.jobs.TriggerMinInterval, err)
	}
	for _, bad := range []map[string]string{
		{"LAKESQL_JOBS_WORKERS": "0"}, {"LAKESQL_JOBS_WORKERS": "x"},
		{"LAKESQL_TRIGGER_MIN_INTERVAL": "soon"}, {"LAKESQL_ALERTS_COOLOFF": "later"},
	} {
		if _, err := readEnv(envOf(bad)); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
