package main

import (
	"bufio"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memProbe measures the peak memory of one query run: the Go heap (live
// and not yet swept objects, sampled through runtime/metrics, which does
// not stop the world), the Go runtime's total mapped memory (as
// MemStats.Sys, sampled) and the process's peak RSS (/proc/self/status
// VmHWM, reset through /proc/self/clear_refs before the run, so DuckDB's
// C++ allocations count too).
type memProbe struct {
	stop     chan struct{}
	done     sync.WaitGroup
	heapPeak uint64
	sysPeak  uint64
}

// hwmResettable reports whether /proc/self/clear_refs can reset VmHWM;
// without it VmHWM is the high-water mark since the process started.
var hwmResettable = resetHWM()

func resetHWM() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// vmHWM is the process's peak resident set, in bytes (0 if unknown).
func vmHWM() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

var memSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/total:bytes"},
}

func startProbe() *memProbe {
	if hwmResettable {
		resetHWM()
	}
	p := &memProbe{stop: make(chan struct{})}
	p.sample()
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.sample()
			}
		}
	}()
	return p
}

func (p *memProbe) sample() {
	s := make([]metrics.Sample, len(memSamples))
	copy(s, memSamples)
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		p.heapPeak = max(p.heapPeak, s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		p.sysPeak = max(p.sysPeak, s[1].Value.Uint64())
	}
}

// memPeak is the outcome of one probe.
type memPeak struct {
	heap, sys, rss uint64
}

func (p *memProbe) end() memPeak {
	close(p.stop)
	p.done.Wait()
	p.sample()
	return memPeak{heap: p.heapPeak, sys: p.sysPeak, rss: vmHWM()}
}

func (m memPeak) max(o memPeak) memPeak {
	return memPeak{heap: max(m.heap, o.heap), sys: max(m.sys, o.sys), rss: max(m.rss, o.rss)}
}

func mb(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 0, 64) }
