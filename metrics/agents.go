package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/restorebench/restorebench/agent"
)

// AgentSource is a coordinator's view of its agents
// (agent.Coordinator.Status), read at every scrape.
type AgentSource interface {
	Status() []agent.AgentStatus
}

// SelfSource is an agent's own state (agent.Agent.Status), read at every
// scrape.
type SelfSource interface {
	Status() agent.SelfStatus
}

var (
	agentUpDesc = prometheus.NewDesc("restorebench_agent_up",
		"1 for an agent of the run heard from and not lost, 0 otherwise", []string{"agent"}, nil)
	agentHeardDesc = prometheus.NewDesc("restorebench_agent_last_heard_age_seconds",
		"seconds since the coordinator last heard from the agent (absent before it was)", []string{"agent"}, nil)
	agentOffsetDesc = prometheus.NewDesc("restorebench_agent_clock_offset_seconds",
		"the agent's monotonic clock minus the coordinator's, as estimated from round trips", []string{"agent"}, nil)
	agentBoundDesc = prometheus.NewDesc("restorebench_agent_clock_offset_bound_seconds",
		"the clock offset's error bound: the true offset lies within the estimate ± this", []string{"agent"}, nil)
	agentLeaseDesc = prometheus.NewDesc("restorebench_agent_lease_expiry_timestamp_seconds",
		"when the run's lease on the agent runs out unless renewed (Unix time): the last lease sent plus its TTL", []string{"agent"}, nil)
)

// agentsCollector reads a coordinator's agents at each scrape.
type agentsCollector struct{ src AgentSource }

func (c agentsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{agentUpDesc, agentHeardDesc, agentOffsetDesc, agentBoundDesc, agentLeaseDesc} {
		ch <- d
	}
}

func (c agentsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.src.Status() {
		up := 0.0
		if s.Heard && !s.Lost {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(agentUpDesc, prometheus.GaugeValue, up, s.Name)
		if s.Heard {
			ch <- prometheus.MustNewConstMetric(agentHeardDesc, prometheus.GaugeValue, s.SinceHeard.Seconds(), s.Name)
		}
		if s.Clock.Samples > 0 {
			ch <- prometheus.MustNewConstMetric(agentOffsetDesc, prometheus.GaugeValue, float64(s.Clock.OffsetNs)/1e9, s.Name)
			ch <- prometheus.MustNewConstMetric(agentBoundDesc, prometheus.GaugeValue, float64(s.Clock.BoundNs)/1e9, s.Name)
		}
		if !s.LeaseExpires.IsZero() {
			ch <- prometheus.MustNewConstMetric(agentLeaseDesc, prometheus.GaugeValue, float64(s.LeaseExpires.UnixNano())/1e9, s.Name)
		}
	}
}

// WatchAgents adds a coordinator's agents to the run's metrics.
func (r *Run) WatchAgents(src AgentSource) error {
	return r.reg.Register(agentsCollector{src})
}

var (
	selfInfoDesc = prometheus.NewDesc("restorebench_agent_info",
		"1, labelled with this agent's name", []string{"agent"}, nil)
	selfProcsDesc = prometheus.NewDesc("restorebench_agent_processes",
		"driver processes this agent runs (state=running) or is starting (state=starting)", []string{"agent", "state"}, nil)
	selfInFlightDesc = prometheus.NewDesc("restorebench_agent_commands_in_flight",
		"commands this agent is executing", []string{"agent"}, nil)
	selfRunLeaseDesc = prometheus.NewDesc("restorebench_agent_run_lease_expiry_timestamp_seconds",
		"when the lease of a run this agent follows runs out unless renewed (Unix time)", []string{"agent", "run"}, nil)
	selfRunExpiredDesc = prometheus.NewDesc("restorebench_agent_run_lease_expired",
		"1 for a run whose lease ran out (its processes were stopped), 0 for a live one", []string{"agent", "run"}, nil)
	selfRefusedDesc = prometheus.NewDesc("restorebench_agent_refused_total",
		"records and commands this agent refused since it started, by reason", []string{"agent", "reason"}, nil)
)

// selfCollector reads an agent's own state at each scrape.
type selfCollector struct{ src SelfSource }

func (c selfCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{selfInfoDesc, selfProcsDesc, selfInFlightDesc, selfRunLeaseDesc, selfRunExpiredDesc, selfRefusedDesc} {
		ch <- d
	}
}

func (c selfCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Status()
	ch <- prometheus.MustNewConstMetric(selfInfoDesc, prometheus.GaugeValue, 1, s.Name)
	ch <- prometheus.MustNewConstMetric(selfProcsDesc, prometheus.GaugeValue, float64(s.Processes), s.Name, "running")
	ch <- prometheus.MustNewConstMetric(selfProcsDesc, prometheus.GaugeValue, float64(s.Starting), s.Name, "starting")
	ch <- prometheus.MustNewConstMetric(selfInFlightDesc, prometheus.GaugeValue, float64(s.InFlight), s.Name)
	for _, l := range s.Leases {
		expired := 0.0
		if l.Expired {
			expired = 1
		}
		ch <- prometheus.MustNewConstMetric(selfRunLeaseDesc, prometheus.GaugeValue, float64(l.Expires.UnixNano())/1e9, s.Name, l.Run)
		ch <- prometheus.MustNewConstMetric(selfRunExpiredDesc, prometheus.GaugeValue, expired, s.Name, l.Run)
	}
	for reason, n := range s.Refused {
		ch <- prometheus.MustNewConstMetric(selfRefusedDesc, prometheus.CounterValue, float64(n), s.Name, reason)
	}
}

// NewAgent is an agent's metrics (`restorebench agent`), on a registry of
// their own: its own state, read from src at every scrape.
func NewAgent(src SelfSource) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(selfCollector{src})
	return reg
}
