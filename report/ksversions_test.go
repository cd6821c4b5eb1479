package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// versionRestore is a verified kafka-streams cold restore of case
// cold-<version> taking secs.
func versionRestore(version string, repeat int, secs float64) runs.Restore {
	p := config.DefaultCase()
	p.Name, p.Engine, p.KafkaStreamsVersion = "cold-"+version, config.EngineKafkaStreams, version
	r := runs.Restore{Repeat: repeat, Params: p, Verified: true, Records: 1000,
		Phase:        &runs.RestorePhase{Seconds: secs, TotalSeconds: secs, RecordsPerSec: 1000 / secs},
		KafkaStreams: &runs.KafkaStreamsRun{Version: version}}
	r.SetStep(runs.Step{Case: p.Name, Kind: runs.StepCold})
	return r
}

// TestReportSetsVersionsSideBySide: a run of several Kafka Streams versions
// gets a section with each case on the other version beside the same case
// on 4.4.0, with the change and the verdict against the spread; runs of
// one version have none (the goldens).
func TestReportSetsVersionsSideBySide(t *testing.T) {
	rs := syntheticRuns()
	res := rs[0].Results
	for rep := 1; rep <= 4; rep++ {
		res.Restores = append(res.Restores, versionRestore("4.0.2", rep, 20+float64(rep)), versionRestore("4.4.0", rep, 10+float64(rep)))
	}
	d, err := Build(capacity.Analyze(rs, capacity.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	for _, want := range []string{
		"## Kafka Streams versions",
		"ran Kafka Streams 4.0.2 and 4.4.0",
		"| cold-4.0.2/cold | cold-4.4.0/cold | restore s | 12.5 | 22.5 | +80.0% | exceeds spread, worse, p=0.029 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
