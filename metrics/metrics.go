package metrics

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restorebench/restorebench/internal/progress"
)

// Phases are the values of restorebench_phase's phase label, in the order
// a run goes through them.
var Phases = []string{PhaseStarting, PhaseFill, PhaseRestore, PhaseVerify, PhaseDone, PhaseFailed}

// The phases of a run.
const (
	// PhaseStarting: connecting, checking the plan, before the fill.
	PhaseStarting = "starting"
	// PhaseFill: the fill's progress is under way (a reused fill has none).
	PhaseFill = "fill"
	// PhaseRestore: a case runs, up to the end of its restore's progress.
	PhaseRestore = "restore"
	// PhaseVerify: a restore's progress ended; the case verifies its
	// stores (and measures the ready phase, when asked) until its next
	// restore or the next case.
	PhaseVerify = "verify"
	// PhaseDone: the run ended, every restore verified.
	PhaseDone = "done"
	// PhaseFailed: the run ended with an error (a restore failed, it was
	// interrupted).
	PhaseFailed = "failed"
)

// Run is the metrics of one run (`restorebench run`): its phase, case,
// fill and restores. It is a progress.Observer of the run's progress
// reporter. Safe for concurrent use.
type Run struct {
	reg *prometheus.Registry

	phase   *prometheus.GaugeVec
	info    *prometheus.GaugeVec
	caseNow *prometheus.GaugeVec
	repeat  prometheus.Gauge
	cases   prometheus.Counter

	restored prometheus.Counter
	restores prometheus.Counter
	// progress is the current restore's records, target and remaining,
	// served together so that one scrape sees them agree.
	progress *restoreProgress
	rate     prometheus.Gauge

	fillBytes   prometheus.Counter
	fillRecords prometheus.Counter
	fillNow     prometheus.Gauge
	fillTarget  prometheus.Gauge

	mu       sync.Mutex
	current  string   // the phase
	caseKeys []string // the labels caseNow is set for
}

// NewRun makes a run's metrics on a registry of their own, in phase
// starting.
func NewRun() *Run {
	r := &Run{reg: prometheus.NewRegistry()}
	f := factory{r.reg}
	r.phase = f.gaugeVec("restorebench_phase", "1 for the phase the run is in, 0 for the others: "+strings.Join(Phases, ", ")+
		" (verify: after a restore's progress ended, until the case's next restore or the next case)", "phase")
	r.info = f.gaugeVec("restorebench_run_info", "1, labelled with the run's id and profile", "run_id", "profile")
	r.caseNow = f.gaugeVec("restorebench_case_info", "1 for the case under way (as the 'restore: case' line names it), "+
		"labelled with its name, scenario and repeat; no series before the first case", "case", "scenario", "repeat")
	r.repeat = f.gauge("restorebench_case_repeat", "the repeat of the case under way (1, 2, ...); 0 before the first case")
	r.cases = f.counter("restorebench_cases_started_total", "cases × repeats the run has started")
	r.restored = f.counter("restorebench_restored_records_total", "records restored by every restore of the run, as their "+
		"progress reports them (rate() of it is the restore rate); Kafka Streams' own is restore-total of stream-task-metrics, "+
		"summed over the tasks")
	r.restores = f.counter("restorebench_restores_total", "restores whose progress ended")
	r.progress = newRestoreProgress()
	r.reg.MustRegister(r.progress)
	r.rate = f.gauge("restorebench_restore_records_per_second", "the current (or last) restore's records per second since "+
		"it began, as its progress line prints it; Kafka Streams' own (windowed rates) are restore-records-rate of "+
		"stream-state-updater-metrics and restore-rate of stream-task-metrics")
	r.fillBytes = f.counter("restorebench_fill_written_bytes_total", "key and value bytes the run's fills wrote, as their progress reports them")
	r.fillRecords = f.counter("restorebench_fill_written_records_total", "records the run's fills wrote, as their progress reports them")
	r.fillNow = f.gauge("restorebench_fill_bytes", "key and value bytes the current (or last) fill has written")
	r.fillTarget = f.gauge("restorebench_fill_target_bytes", "key and value bytes the current (or last) fill is to write (with a "+
		"transactional fill's aborted records)")
	r.setPhase(PhaseStarting)
	return r
}

// Registry is where the run's metrics are registered (AgentSource's
// are added to it too).
func (r *Run) Registry() *prometheus.Registry { return r.reg }

// Describe labels the run with its id and profile.
func (r *Run) Describe(runID, profile string) {
	r.info.Reset()
	r.info.WithLabelValues(runID, profile).Set(1)
}

// Case says a case's repeat begins (the scenario's steps before its
// restore's progress count as restore).
func (r *Run) Case(name, scenario string, repeat int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.caseNow.Reset()
	r.caseNow.WithLabelValues(name, scenario, strconv.Itoa(repeat)).Set(1)
	r.repeat.Set(float64(repeat))
	r.cases.Inc()
	r.setPhaseLocked(PhaseRestore)
}

// End says the run ended: done without error, failed with one.
func (r *Run) End(err error) {
	if err != nil {
		r.setPhase(PhaseFailed)
		return
	}
	r.setPhase(PhaseDone)
}

// Phase is the phase the run is in.
func (r *Run) Phase() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

func (r *Run) setPhase(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setPhaseLocked(p)
}

func (r *Run) setPhaseLocked(p string) {
	r.current = p
	for _, q := range Phases {
		v := 0.0
		if q == p {
			v = 1
		}
		r.phase.WithLabelValues(q).Set(v)
	}
}

// Observe follows one task of the run's progress reporter: a task of
// bytes is a fill, one of records a restore.
func (r *Run) Observe(what string, total int64, unit progress.Unit) progress.Task {
	r.setPhase(map[progress.Unit]string{progress.Bytes: PhaseFill, progress.Records: PhaseRestore}[unit])
	if unit == progress.Bytes {
		r.fillTarget.Set(float64(total))
		r.fillNow.Set(0)
		return &fillTask{r: r}
	}
	r.progress.set(0, total, total)
	r.rate.Set(0)
	return &restoreTask{r: r, total: total, start: time.Now()}
}

// restoreTask feeds one restore's progress to the run's metrics.
type restoreTask struct {
	r     *Run
	mu    sync.Mutex
	total int64
	n     int64 // the highest figure told (consumers report concurrently)
	start time.Time
	done  bool
}

func (t *restoreTask) Set(n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done || n <= t.n {
		return
	}
	t.r.restored.Add(float64(n - t.n))
	t.n = n
	t.r.progress.set(n, t.total, max(t.total-n, 0))
	t.r.rate.Set(float64(n) / max(time.Since(t.start).Seconds(), 1e-9))
}

func (t *restoreTask) Count(int64) {}

func (t *restoreTask) Done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	t.r.restores.Inc()
	t.r.progress.setRemaining(0)
	t.r.mu.Lock()
	if t.r.current == PhaseRestore {
		t.r.setPhaseLocked(PhaseVerify)
	}
	t.r.mu.Unlock()
}

// fillTask feeds a fill's progress to the run's metrics.
type fillTask struct {
	r              *Run
	mu             sync.Mutex
	bytes, records int64
}

func (t *fillTask) Set(n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > t.bytes {
		t.r.fillBytes.Add(float64(n - t.bytes))
		t.bytes = n
		t.r.fillNow.Set(float64(n))
	}
}

func (t *fillTask) Count(records int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if records > t.records {
		t.r.fillRecords.Add(float64(records - t.records))
		t.records = records
	}
}

func (t *fillTask) Done() {}

// factory registers metrics on one registry.
type factory struct{ reg *prometheus.Registry }

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f factory) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(g)
	return g
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

// restoreProgress serves the current restore's records, target and
// remaining records as one collector: a scrape reads the three under one
// lock, so remaining is always target less records (three gauges set one
// after the other could be read between two of the sets).
type restoreProgress struct {
	records, target, remaining *prometheus.Desc

	mu             sync.Mutex
	n, total, left int64
}

func newRestoreProgress() *restoreProgress {
	return &restoreProgress{
		records: prometheus.NewDesc("restorebench_restore_records", "records the current (or last) restore has restored", nil, nil),
		target:  prometheus.NewDesc("restorebench_restore_target_records", "records the current (or last) restore is to restore", nil, nil),
		remaining: prometheus.NewDesc("restorebench_restore_remaining_records", "records the current restore still has to restore "+
			"(its target less its progress); Kafka Streams' own is restore-remaining-records-total of stream-task-metrics, "+
			"summed over the tasks", nil, nil),
	}
}

// set records a restore's progress: n of total restored, left to go.
func (p *restoreProgress) set(n, total, left int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n, p.total, p.left = n, total, left
}

// setRemaining sets what is left alone (0 once the restore ended).
func (p *restoreProgress) setRemaining(left int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.left = left
}

// Describe implements prometheus.Collector.
func (p *restoreProgress) Describe(ch chan<- *prometheus.Desc) {
	ch <- p.records
	ch <- p.target
	ch <- p.remaining
}

// Collect implements prometheus.Collector: the three figures of one moment.
func (p *restoreProgress) Collect(ch chan<- prometheus.Metric) {
	p.mu.Lock()
	n, total, left := p.n, p.total, p.left
	p.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(p.records, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(p.target, prometheus.GaugeValue, float64(total))
	ch <- prometheus.MustNewConstMetric(p.remaining, prometheus.GaugeValue, float64(left))
}
