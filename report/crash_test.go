package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// crashRestore is a verified warm restart after a SIGKILL of case name on
// engine e (version v on kafka-streams), under guarantee g, with
// transactional stores or not: read records restored, behind of them again.
func crashRestore(name string, e config.Engine, v, g string, tss bool, read, behind int64, fromStart int, rule string) runs.Restore {
	p := config.DefaultCase()
	p.Name, p.Engine, p.Scenario = name, e, config.ScenarioWarm
	p.Warm = config.DefaultWarm()
	p.Warm.Stop = config.WarmStopKill
	p.Streams = map[string]string{config.PropProcessingGuarantee: g}
	if tss {
		p.Streams[config.PropTransactionalStateStores] = "true"
	}
	r := runs.Restore{Repeat: 1, Params: p, Verified: true, Records: read,
		Phase: &runs.RestorePhase{Seconds: 2, TotalSeconds: 2, RecordsPerSec: float64(read) / 2},
		Warm: &runs.WarmRecord{Step: runs.StepWarm, Changed: 20000, Stop: "kill", Behind: behind, ColdSeconds: 4,
			WarmTasks: 4 - fromStart, FallbackTasks: fromStart, CrashRule: rule}}
	if e == config.EngineKafkaStreams {
		p.KafkaStreamsVersion = v
		r.Params = p
		r.KafkaStreams = &runs.KafkaStreamsRun{Version: v}
	}
	r.SetStep(runs.Step{Case: name, Kind: runs.StepWarm, Changed: 20000})
	return r
}

// TestReportHasTheCrashTable: warm restarts after a SIGKILL get a table of
// what each restored again, by engine and version, guarantee and
// transactional stores, and the rule the model applied, labelled a
// prediction; a report without kills has no such table (the goldens).
func TestReportHasTheCrashTable(t *testing.T) {
	rs := syntheticRuns()
	res := rs[0].Results
	res.Restores = append(res.Restores,
		crashRestore("eos-tss-4.4.0", config.EngineKafkaStreams, "4.4.0", config.ExactlyOnceV2, true, 120000, 100000, 4, ""),
		crashRestore("alos-3.9.1", config.EngineKafkaStreams, "3.9.1", config.AtLeastOnce, false, 20500, 500, 0, ""),
		crashRestore("model-eos", config.EngineModel, "", config.ExactlyOnceV2, false, 120000, 100000, 4, "Kafka Streams 4.4.0, a crash right after a restore under exactly_once_v2: the store is restored whole (…)"))
	d, err := Build(capacity.Analyze(rs, capacity.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{
		"Restarts after a crash (SIGKILL)",
		"eos-tss-4.4.0/changed=20000 #1 | kafka-streams 4.4.0 | exactly\\_once\\_v2 | yes | key-value | 20,000 | 120,000 | 100,000 | 4 of 4 | 2.00 s | 50.0% |",
		"alos-3.9.1/changed=20000 #1 | kafka-streams 3.9.1 | at\\_least\\_once | no | key-value | 20,000 | 20,500 | 500 | 0 of 4 |",
		"model-eos/changed=20000 #1 | model, 4.4.0's rule | exactly\\_once\\_v2 | no |",
		"Crash rules the model applied (predictions, not measurements)",
		"| R1 model-eos/changed=20000 | Kafka Streams 4.4.0, a crash right after a restore under exactly\\_once\\_v2",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	plain := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(build(t, capacity.Options{}))(w) })
	if strings.Contains(plain, "Restarts after a crash") {
		t.Error("a report without kills has a crash table")
	}
}
