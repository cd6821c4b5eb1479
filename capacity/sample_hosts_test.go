package capacity

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// Each sampled task's figure names the host it came from: the agent's, as
// its run recorded the agent's facts, when one restored it (plan --measure
// --agents), else the run's own; tasks from hosts of different CPU counts
// are said UNLIKE, as are those unlike the composition's host; alike
// hosts are named once and not.
func TestSampledTasksNameTheirHosts(t *testing.T) {
	s := &Sample{Topic: "t", Tasks: []TaskSize{{0, 100, 0}, {1, 200, 0}, {2, 150, 0}}, Sampled: []int32{0, 1}}
	run := &Run{Label: "R1", Results: &runs.Results{Host: runs.Host{Hostname: "coord", CPUs: 8}, Agents: []runs.Agent{
		{Name: "a", Facts: runs.AgentFacts{Hostname: "host-a", CPUs: 2}}, {Name: "b", Facts: runs.AgentFacts{Hostname: "host-b", CPUs: 4}}}}}
	obs := func(p int32, on string) Obs {
		r := &runs.Restore{Topic: "t", RestoredPartitions: []int32{p}, Params: config.Case{Engine: config.EngineModel, Scenario: config.ScenarioCold}}
		if on != "" {
			r.OnAgent = &runs.AgentPlace{Agent: on, Hostname: "host-" + on}
		}
		return Obs{Run: run, Restore: r, Seconds: 10}
	}
	hosts := sampledTasks(s, []Obs{obs(0, "a"), obs(1, "b")}).TaskHosts[config.EngineModel]
	want := "the sampled tasks restored on agent a on host-a (2 CPUs): partition 0; agent b on host-b (4 CPUs): partition 1 (model)"
	if got := hostsText(hosts, config.EngineModel); got != want {
		t.Errorf("two agents:\n got %q\nwant %q", got, want)
	}
	if u := unlikeHosts(hosts); !strings.HasPrefix(u, "UNLIKE: ") || !strings.Contains(u, "partition 0 on agent a on host-a (2 CPUs)") ||
		!strings.Contains(u, "partition 1 on agent b on host-b (4 CPUs)") {
		t.Errorf("hosts of 2 and 4 CPUs: %q, want an UNLIKE line naming both", u)
	}
	comp := &Composition{Host: "host-b", CPUs: 4}
	if u := unlikeComposition(comp, hosts); u != "agent a on host-a (2 CPUs)" {
		t.Errorf("a composition measured on host-b: unlike %q, want host-a alone", u)
	}
	alike := sampledTasks(s, []Obs{obs(0, ""), obs(1, "")}).TaskHosts[config.EngineModel]
	if got := hostsText(alike, config.EngineModel); got != "the sampled tasks restored on coord (8 CPUs): partitions 0, 1 (model)" {
		t.Errorf("both on the run's host: %q", got)
	}
	if u := unlikeHosts(alike); u != "" {
		t.Errorf("one host: %q, want no UNLIKE line", u)
	}
}

// A kafka-streams restore on an agent is named by the agent its instance
// ran on (the record's placement), with that agent's host; one whose
// instances ran on two agents names the run's host, as it cannot name one.
func TestKafkaStreamsSampledTaskNamesItsAgent(t *testing.T) {
	s := &Sample{Topic: "t", Tasks: []TaskSize{{0, 100, 0}, {1, 200, 0}}, Sampled: []int32{0, 1}}
	run := &Run{Label: "R1", Results: &runs.Results{Host: runs.Host{Hostname: "coord", CPUs: 8}, Agents: []runs.Agent{
		{Name: "a", Facts: runs.AgentFacts{Hostname: "host-a", CPUs: 2}}, {Name: "b", Facts: runs.AgentFacts{Hostname: "host-b", CPUs: 4}}}}}
	obs := func(p int32, placement map[string]string) Obs {
		return Obs{Run: run, Seconds: 10, Restore: &runs.Restore{Topic: "t", RestoredPartitions: []int32{p},
			Params: config.Case{Engine: config.EngineKafkaStreams, Scenario: config.ScenarioCold}, KafkaStreams: &runs.KafkaStreamsRun{Placement: placement}}}
	}
	hosts := sampledTasks(s, []Obs{obs(0, map[string]string{"i0": "a"}), obs(1, map[string]string{"i0": "a", "i1": "b"})}).TaskHosts[config.EngineKafkaStreams]
	if h := hosts[0]; h.Agent != "a" || h.Hostname != "host-a" || h.CPUs != 2 {
		t.Errorf("partition 0, its instance on agent a: %+v, want agent a on host-a (2 CPUs)", h)
	}
	if h := hosts[1]; h.Agent != "" || h.Hostname != "coord" {
		t.Errorf("partition 1, instances on a and b: %+v, want the run's host", h)
	}
}

// A composition series measured on records of another size than the
// sampled tasks' (twice or more apart) is said UNLIKE, with both sizes;
// one within twice, or a sample of unknown record size, is not.
func TestCompositionOfOtherRecordsIsSaidUnlike(t *testing.T) {
	s := &Sample{Topic: "t", Tasks: []TaskSize{{0, 100, 0}, {1, 200, 0}}, Sampled: []int32{0, 1}}
	run := &Run{Label: "R1", Results: &runs.Results{Host: runs.Host{Hostname: "vm", CPUs: 2}}}
	obs := func(p int32, records, bytes int64) Obs {
		return Obs{Run: run, Seconds: 10, Restore: &runs.Restore{Topic: "t", RestoredPartitions: []int32{p}, Records: records, Bytes: bytes,
			Params: config.Case{Engine: config.EngineKafkaStreams, Scenario: config.ScenarioCold}}}
	}
	st := sampledTasks(s, []Obs{obs(0, 1000, 500_000), obs(1, 3000, 1_500_000)})
	sm := &sampled{tasks: st, engine: config.EngineKafkaStreams}
	if got := sm.recordBytes(); got != 500 {
		t.Fatalf("record size of the sampled tasks: %v, want 500 B", got)
	}
	u := sm.unlikeRecords(&Composition{RecordBytes: 80})
	for _, want := range []string{"UNLIKE: ", "records of 80.0 B", "records of 500 B", "6.2× apart", "key_bytes and value_size adding up to your 500 B"} {
		if !strings.Contains(u, want) {
			t.Errorf("a series of 80 B records for tasks of 500 B: %q lacks %q", u, want)
		}
	}
	if u := sm.unlikeRecords(&Composition{RecordBytes: 300}); u != "" {
		t.Errorf("a series of 300 B records for tasks of 500 B: %q, want none", u)
	}
	none := &sampled{tasks: sampledTasks(s, nil), engine: config.EngineKafkaStreams}
	if u := none.unlikeRecords(&Composition{RecordBytes: 80}); u != "" {
		t.Errorf("no sampled restore: %q, want none", u)
	}
}
