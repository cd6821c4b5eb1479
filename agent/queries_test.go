package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// fakeLoads stands in for the kafka-streams query load: it keeps what
// each start was asked and what each load was told.
type fakeLoads struct {
	mu      sync.Mutex
	jobs    []QueryJob
	addrs   []string
	loads   []*fakeLoad
	figures func() *runs.QueryFigures
	onMark  func()
}

type fakeLoad struct {
	f        *fakeLoads
	mu       sync.Mutex
	restored int64
	stops    int
	stopped  chan struct{}
}

func (f *fakeLoads) start(job QueryJob, addr string) (QueryLoad, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := &fakeLoad{f: f, stopped: make(chan struct{})}
	f.jobs, f.addrs, f.loads = append(f.jobs, job), append(f.addrs, addr), append(f.loads, l)
	return l, nil
}

func (l *fakeLoad) Restored(ns int64) {
	l.mu.Lock()
	l.restored = ns
	l.mu.Unlock()
	if l.f.onMark != nil {
		l.f.onMark()
	}
}

func (l *fakeLoad) Stop() *runs.QueryFigures {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stops++
	close(l.stopped)
	if l.f.figures != nil {
		return l.f.figures()
	}
	return &runs.QueryFigures{Lookups: 10, Answered: 10, Correct: 10}
}

func queryJob() QueryJob {
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 100, 10, 2
	return QueryJob{Load: config.QueryLoad{Rate: 50, Stale: true, After: config.Duration(time.Second)}, Spec: spec, Repeat: 3}
}

// apiProcess starts a fake driver process with its API layer on.
func apiProcess(t *testing.T, ctx context.Context, co *Coordinator, agent string) *Process {
	t.Helper()
	p, err := co.Start(ctx, agent, ProcessSpec{Fleet: "app", Instance: "i0", Properties: map[string]string{"application.id": "app", ksdriver.PropAPIPort: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestQueriesOnAgent: a query load started through the control topic runs
// on the agent against its process's API address, with the job as sent;
// a second load on the same process is refused; the stop marks the load
// restored on the agent's clock (the coordinator's reading moved by the
// clock offset), lets it go on for After, and returns its record, larger
// than a control record, whole and naming the agent; a stop with no load
// running is refused.
func TestQueriesOnAgent(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	f := &fakeLoads{}
	f.figures = func() *runs.QueryFigures {
		rec := &runs.QueryFigures{Lookups: 7, Answered: 7, Correct: 7}
		for i := range 3000 {
			rec.WrongReads = append(rec.WrongReads, strings.Repeat("w", 500)+string(rune('a'+i%26)))
		}
		return rec
	}
	startAgentConfig(t, cfg, "a1", time.Second, func(c *Config) { c.Queries = f.start })
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runq"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := apiProcess(t, ctx, co, "a1")
	job := queryJob()
	if err := p.StartQueries(ctx, job); err != nil {
		t.Fatal(err)
	}
	if len(f.jobs) != 1 || f.addrs[0] != "127.0.0.1:4242" || f.jobs[0].Repeat != 3 || f.jobs[0].Load.Rate != 50 || !f.jobs[0].Load.Stale || f.jobs[0].Spec.Records != 100 {
		t.Fatalf("started %+v against %v", f.jobs, f.addrs)
	}
	if err := p.StartQueries(ctx, job); err == nil || !strings.Contains(err.Error(), "a query load already runs against process 0 of instance i0 on agent a1") {
		t.Fatalf("a second load on the same process: %v", err)
	}
	restoredNs := ksdriver.NowMonoNs()
	t0 := time.Now()
	rec, err := p.StopQueries(ctx, restoredNs, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took < 300*time.Millisecond {
		t.Errorf("the load stopped %s after the stop, before its After", took)
	}
	if rec.Agent != "a1" || rec.Lookups != 7 || len(rec.WrongReads) != 3000 || rec.WrongReads[2999][500] != 'a'+2999%26 {
		t.Fatalf("record from agent %q: %d lookups, %d wrong reads", rec.Agent, rec.Lookups, len(rec.WrongReads))
	}
	l := f.loads[0]
	if want := restoredNs + co.Clock("a1").OffsetNs; l.restored != want || l.stops != 1 {
		t.Fatalf("marked restored at %d (want %d, the agent's clock), stopped %d times", l.restored, want, l.stops)
	}
	if _, err := p.StopQueries(ctx, 0, 0); err == nil || !strings.Contains(err.Error(), "no query load runs against process 0 of instance i0") {
		t.Fatalf("a stop with no load: %v", err)
	}
	if f.loads[1].stops != 1 {
		t.Errorf("the refused second load was stopped %d times", f.loads[1].stops)
	}
}

// TestQueriesStopWithTheLease: a load whose coordinator went away stops
// once the run's lease expires, and the agent forgets it.
func TestQueriesStopWithTheLease(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	f := &fakeLoads{}
	ta := startAgentConfig(t, cfg, "a1", time.Second, func(c *Config) { c.Queries = f.start })
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runql", LeaseTTL: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := apiProcess(t, ctx, co, "a1").StartQueries(ctx, queryJob()); err != nil {
		t.Fatal(err)
	}
	co.Close()
	select {
	case <-f.loads[0].stopped:
	case <-ctx.Done():
		t.Fatal("the query load of a run whose lease expired goes on")
	}
	for {
		ta.a.mu.Lock()
		n := len(ta.a.loads)
		ta.a.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the agent still holds the stopped load")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestQueriesAgentLost: an agent that goes silent while its load runs
// ends the coordinator's stop with the agent-lost error.
func TestQueriesAgentLost(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	f := &fakeLoads{}
	var ta *testAgent
	ta = startAgentConfig(t, cfg, "gone", time.Second, func(c *Config) { c.Queries = f.start })
	f.onMark = func() { ta.a.bus.close() } // no heartbeat, no reply from now on
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"gone"}, Run: "runqg", HeartbeatTimeout: 1500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := apiProcess(t, ctx, co, "gone")
	if err := p.StartQueries(ctx, queryJob()); err != nil {
		t.Fatal(err)
	}
	_, err := p.StopQueries(ctx, ksdriver.NowMonoNs(), 0)
	if !errors.Is(err, ErrAgentLost) || !strings.Contains(err.Error(), "agent gone lost: it stopped heartbeating") {
		t.Fatalf("a query load on an agent lost mid-load: %v", err)
	}
}

// TestQueriesWithoutLoad: an agent without the query load says so.
func TestQueriesWithoutLoad(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runqn"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := apiProcess(t, ctx, co, "a1").StartQueries(ctx, queryJob()); err == nil || !strings.Contains(err.Error(), errNoQueries.Error()) {
		t.Fatalf("queries on an agent without the load: %v", err)
	}
}
