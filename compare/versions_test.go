package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// ksRestore is a verified kafka-streams restore of profile case name on
// version, at the cold step, taking secs.
func ksRestore(name, version string, repeat int, secs float64) runs.Restore {
	r := restore("", repeat, secs, 100/secs, 300)
	r.Params.Engine, r.Params.KafkaStreamsVersion = config.EngineKafkaStreams, version
	r.KafkaStreams = &runs.KafkaStreamsRun{Version: version}
	r.SetStep(runs.Step{Case: name + "-" + version, Kind: runs.StepCold})
	return r
}

// Within one run of several versions each case on another version is
// compared with the same case on the baseline version, named by both, with
// the spread of its repeats; the version is what differs.
func TestCompareVersions(t *testing.T) {
	var rs []runs.Restore
	for rep := 1; rep <= 4; rep++ {
		rs = append(rs, ksRestore("cold", "3.9.1", rep, 20+float64(rep)), ksRestore("cold", "4.4.0", rep, 10+float64(rep)))
	}
	other := ksRestore("cold", "4.1.2", 1, 11)
	other.Params.Threads = 2 // no 4.4.0 case with these settings
	rs = append(rs, other)
	if got := BaselineVersion(rs); got != "4.4.0" {
		t.Fatalf("baseline version %s, want the default", got)
	}
	rows, err := CompareVersions(rs, "4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Case != "cold-3.9.1/cold" || rows[0].BaseCase != "cold-4.4.0/cold" || rows[1].Base.Present {
		t.Fatalf("rows %+v", rows)
	}
	d := metric(t, rows[0], MetricRestoreSeconds)
	if !d.Significant() || d.Better() || !near(d.Base.Median, 12.5) || !near(d.Other.Median, 22.5) {
		t.Errorf("3.9.1 vs 4.4.0: %+v (%s)", d, d.VerdictText())
	}
	if strings.Join(rows[0].ParamDiffs, ";") != "kafka_streams_version 4.4.0 -> 3.9.1" {
		t.Errorf("param diffs %v, want only the version", rows[0].ParamDiffs)
	}
	if _, err := CompareVersions(rs, "4.2.2"); err == nil || !strings.Contains(err.Error(), "3.9.1, 4.4.0, 4.1.2") {
		t.Errorf("a baseline version not run: %v", err)
	}
	c, err := CompareRunVersions(&runs.Results{Restores: rs}, "r.json", "4.4.0")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := NewTableReporter(c)(&buf); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Kafka Streams 4.4.0 in r.json", "cold-3.9.1/cold vs cold-4.4.0/cold", "exceeds spread, worse"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("table does not say %q:\n%s", w, buf.String())
		}
	}
}

// Two runs of one case on different versions label the row with both.
func TestCompareRunsLabelsTheVersions(t *testing.T) {
	b := ksRestore("cold", "4.0.2", 1, 10)
	o := ksRestore("cold", "4.4.0", 1, 9)
	o.Case = b.Case
	rows := Compare([]runs.Restore{b}, []runs.Restore{o})
	if len(rows) != 1 || rows[0].Case != "cold-4.0.2/cold (Kafka Streams 4.0.2 -> 4.4.0)" {
		t.Fatalf("rows %+v", rows)
	}
}
