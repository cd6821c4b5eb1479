package metrics

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/internal/progress"
)

// scrape GETs url and parses it with Prometheus' own text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// value is the one series of name whose labels include want (name=value
// pairs), or fails.
func value(t *testing.T, mfs map[string]*dto.MetricFamily, name string, want ...string) float64 {
	t.Helper()
	v, ok := lookup(mfs, name, want...)
	if !ok {
		t.Fatalf("no series %s%v", name, want)
	}
	return v
}

func lookup(mfs map[string]*dto.MetricFamily, name string, want ...string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
series:
	for _, m := range mf.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if labels[want[i]] != want[i+1] {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		}
	}
	return 0, false
}

// TestRunFollowsTheProgressReporter: the figures a run serves are those its
// progress reporter is given, quiet or not: the fill's bytes and records,
// each restore's records (a late, lower figure from another consumer
// thread changes nothing), the phase and the case.
func TestRunFollowsTheProgressReporter(t *testing.T) {
	r := NewRun()
	srv, err := Listen("127.0.0.1:0", r.Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := "http://" + srv.Addr() + Path
	rep := progress.New(io.Discard, true)
	rep.Observer = r
	r.Describe("run-1", "quick")

	mfs := scrape(t, url)
	if value(t, mfs, "restorebench_phase", "phase", PhaseStarting) != 1 || value(t, mfs, "restorebench_phase", "phase", PhaseFill) != 0 {
		t.Fatalf("a new run is not starting")
	}
	fill := rep.Start("fill", 5000, progress.Bytes)
	fill.Set(1000)
	fill.Count(10)
	fill.Set(4000)
	fill.Count(40)
	mfs = scrape(t, url)
	if r.Phase() != PhaseFill || value(t, mfs, "restorebench_fill_written_bytes_total") != 4000 ||
		value(t, mfs, "restorebench_fill_written_records_total") != 40 || value(t, mfs, "restorebench_fill_target_bytes") != 5000 ||
		value(t, mfs, "restorebench_fill_bytes") != 4000 {
		t.Fatalf("fill figures: phase %s, %v", r.Phase(), mfs["restorebench_fill_written_bytes_total"])
	}
	fill.Done()

	for rep1 := 1; rep1 <= 2; rep1++ {
		r.Case("a", "cold", rep1)
		task := rep.Start(fmt.Sprintf("restore a #%d", rep1), 1000, progress.Records)
		task.Set(300)
		task.Set(200) // another thread's older figure
		mfs = scrape(t, url)
		if got := value(t, mfs, "restorebench_restore_remaining_records"); got != 700 {
			t.Errorf("remaining %v, want 700", got)
		}
		if got := value(t, mfs, "restorebench_restore_records"); got != 300 {
			t.Errorf("restore records %v, want 300", got)
		}
		if value(t, mfs, "restorebench_case_info", "case", "a", "scenario", "cold", "repeat", fmt.Sprint(rep1)) != 1 ||
			value(t, mfs, "restorebench_case_repeat") != float64(rep1) || value(t, mfs, "restorebench_phase", "phase", PhaseRestore) != 1 {
			t.Errorf("case figures: %v %v", mfs["restorebench_case_info"], mfs["restorebench_phase"])
		}
		if len(mfs["restorebench_case_info"].GetMetric()) != 1 {
			t.Errorf("more than the case under way: %v", mfs["restorebench_case_info"])
		}
		if value(t, mfs, "restorebench_restore_records_per_second") <= 0 {
			t.Errorf("no rate")
		}
		task.Set(1000)
		task.Done()
		task.Set(5000) // after Done: nothing
		if r.Phase() != PhaseVerify {
			t.Errorf("phase %s after the restore's progress ended, want verify", r.Phase())
		}
	}
	r.End(nil)
	mfs = scrape(t, url)
	if got := value(t, mfs, "restorebench_restored_records_total"); got != 2000 {
		t.Errorf("restored %v, want 2000", got)
	}
	if value(t, mfs, "restorebench_restores_total") != 2 || value(t, mfs, "restorebench_cases_started_total") != 2 ||
		value(t, mfs, "restorebench_restore_remaining_records") != 0 || value(t, mfs, "restorebench_phase", "phase", PhaseDone) != 1 ||
		value(t, mfs, "restorebench_run_info", "run_id", "run-1", "profile", "quick") != 1 {
		t.Errorf("final figures wrong")
	}
	r.End(errors.New("x"))
	if r.Phase() != PhaseFailed {
		t.Errorf("phase %s, want failed", r.Phase())
	}
}

type fakeAgents []agent.AgentStatus

func (f fakeAgents) Status() []agent.AgentStatus { return f }

type fakeSelf agent.SelfStatus

func (f fakeSelf) Status() agent.SelfStatus { return agent.SelfStatus(f) }

// TestAgentFigures: a coordinator serves each agent's liveness, clock and
// lease; an agent its own state; figures not known yet are absent, not 0.
func TestAgentFigures(t *testing.T) {
	exp := time.Unix(1_800_000_000, 500_000_000)
	r := NewRun()
	if err := r.WatchAgents(fakeAgents{
		{Name: "a", Heard: true, SinceHeard: 1500 * time.Millisecond, Clock: agent.ClockEstimate{OffsetNs: -2_000_000, BoundNs: 300_000, Samples: 8}, LeaseExpires: exp},
		{Name: "b"},
	}); err != nil {
		t.Fatal(err)
	}
	srv, err := Listen("127.0.0.1:0", r.Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	mfs := scrape(t, "http://"+srv.Addr()+Path)
	for _, c := range []struct {
		name  string
		agent string
		want  float64
	}{
		{"restorebench_agent_up", "a", 1}, {"restorebench_agent_up", "b", 0},
		{"restorebench_agent_last_heard_age_seconds", "a", 1.5},
		{"restorebench_agent_clock_offset_seconds", "a", -0.002},
		{"restorebench_agent_clock_offset_bound_seconds", "a", 0.0003},
		{"restorebench_agent_lease_expiry_timestamp_seconds", "a", 1_800_000_000.5},
	} {
		if got := value(t, mfs, c.name, "agent", c.agent); got != c.want {
			t.Errorf("%s{agent=%s} = %v, want %v", c.name, c.agent, got, c.want)
		}
	}
	for _, name := range []string{"restorebench_agent_clock_offset_seconds", "restorebench_agent_last_heard_age_seconds"} {
		if _, ok := lookup(mfs, name, "agent", "b"); ok {
			t.Errorf("%s for an agent never heard from", name)
		}
	}

	self := NewAgent(fakeSelf{Name: "h", Processes: 2, Starting: 1, InFlight: 3,
		Leases: []agent.RunLease{{Run: "rb-1", Expires: exp}, {Run: "rb-0", Expires: exp, Expired: true}}, Refused: map[string]int64{"stale": 4}})
	srv2, err := Listen("127.0.0.1:0", self)
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	mfs = scrape(t, "http://"+srv2.Addr()+Path)
	if value(t, mfs, "restorebench_agent_processes", "agent", "h", "state", "running") != 2 ||
		value(t, mfs, "restorebench_agent_processes", "state", "starting") != 1 ||
		value(t, mfs, "restorebench_agent_commands_in_flight") != 3 ||
		value(t, mfs, "restorebench_agent_run_lease_expired", "run", "rb-0") != 1 ||
		value(t, mfs, "restorebench_agent_run_lease_expired", "run", "rb-1") != 0 ||
		value(t, mfs, "restorebench_agent_run_lease_expiry_timestamp_seconds", "run", "rb-1") != 1_800_000_000.5 ||
		value(t, mfs, "restorebench_agent_refused_total", "reason", "stale") != 4 ||
		value(t, mfs, "restorebench_agent_info", "agent", "h") != 1 {
		t.Errorf("agent's own figures: %v", mfs)
	}
}

// everyMetric is a run's registry and an agent's, each series present.
func everyMetric(t *testing.T) []prometheus.Gatherer {
	t.Helper()
	r := NewRun()
	r.Describe("run", "p")
	r.Case("c", "cold", 1)
	if err := r.WatchAgents(fakeAgents{{Name: "a", Heard: true, Clock: agent.ClockEstimate{Samples: 1}, LeaseExpires: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	self := NewAgent(fakeSelf{Name: "h", Leases: []agent.RunLease{{Run: "r", Expires: time.Now()}}, Refused: map[string]int64{"stale": 1}})
	return []prometheus.Gatherer{r.Registry(), self}
}

// registered are the names of every metric the package serves, with
// their types.
func registered(t *testing.T) map[string]dto.MetricType {
	t.Helper()
	out := map[string]dto.MetricType{}
	for _, g := range everyMetric(t) {
		mfs, err := g.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			out[mf.GetName()] = mf.GetType()
		}
	}
	return out
}

// TestNamesFollowPrometheusConventions: Prometheus' own linter finds
// nothing; every name has the restorebench_ prefix, every counter ends in
// _total and nothing else does.
func TestNamesFollowPrometheusConventions(t *testing.T) {
	for _, g := range everyMetric(t) {
		problems, err := testutil.GatherAndLint(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
	names := registered(t)
	var list []string
	for name, typ := range names {
		list = append(list, name+" "+typ.String())
		if !strings.HasPrefix(name, "restorebench_") {
			t.Errorf("%s: no restorebench_ prefix", name)
		}
		if (typ == dto.MetricType_COUNTER) != strings.HasSuffix(name, "_total") {
			t.Errorf("%s is a %s", name, typ)
		}
	}
	sort.Strings(list)
	t.Logf("%d metrics:\n%s", len(list), strings.Join(list, "\n"))
}

// TestListenRefusesBadAddresses: a bad address or a port in use is one
// error at once; Close frees the port.
func TestListenRefusesBadAddresses(t *testing.T) {
	reg := prometheus.NewRegistry()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for addr, want := range map[string]string{
		"":                   "no address",
		"9464":               "not host:port",
		"127.0.0.1:":         "names no port",
		"127.0.0.1:99999":    "invalid port",
		busy.Addr().String(): "address already in use",
	} {
		if s, err := Listen(addr, reg); err == nil || !strings.Contains(err.Error(), want) {
			if s != nil {
				s.Close()
			}
			t.Errorf("Listen(%q): %v, want %q", addr, err, want)
		}
	}
	s, err := Listen("127.0.0.1:0", reg)
	if err != nil {
		t.Fatal(err)
	}
	addr := s.Addr()
	if resp, err := http.Get("http://" + addr + "/"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /: %v %v, want 404", resp, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + addr + Path); err == nil {
		t.Errorf("still served after Close")
	}
	again, err := Listen(addr, reg)
	if err != nil {
		t.Fatalf("the port is not free after Close: %v", err)
	}
	again.Close()
}

// TestIdleConnectionsAreClosed: keep-alive connections that made a scrape
// and then sit idle are closed by the server after its idle timeout, so
// idle clients cannot hold the agent's descriptors.
func TestIdleConnectionsAreClosed(t *testing.T) {
	defer func(d time.Duration) { idleTimeout = d }(idleTimeout)
	idleTimeout = 200 * time.Millisecond
	s, err := Listen("127.0.0.1:0", prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var conns []net.Conn
	for range 20 {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", Path)
		conns = append(conns, c)
	}
	for i, c := range conns {
		// The response, then (the connection kept alive) EOF once the
		// server closes it; a server that keeps it open hits the deadline.
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(c)
		if !strings.HasPrefix(string(b), "HTTP/1.1 200") {
			t.Fatalf("connection %d: %q, want a 200 response", i, b)
		}
		if err != nil {
			t.Fatalf("connection %d: still open after 10 s idle (idle timeout 200ms): %v", i, err)
		}
	}
}
