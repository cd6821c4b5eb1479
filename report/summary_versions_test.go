package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

func ksVersionRecord(name, version string) runs.Restore {
	r := runs.Restore{Repeat: 1, Verified: true, Params: config.DefaultCase()}
	r.Params.Engine, r.Params.KafkaStreamsVersion = config.EngineKafkaStreams, version
	r.KafkaStreams = &runs.KafkaStreamsRun{Version: version}
	r.SetStep(runs.Step{Case: name, Kind: runs.StepCold})
	return r
}

// A run of several Kafka Streams versions says which case ran which, and
// its CSV names the version of every record (none for the model's).
func TestSummaryNamesTheVersions(t *testing.T) {
	model := runs.Restore{Case: "model", Repeat: 1, Verified: true, Params: config.DefaultCase()}
	res := &runs.Results{Restores: []runs.Restore{ksVersionRecord("a", "3.9.1"), ksVersionRecord("b", "4.4.0"), ksVersionRecord("c", "3.9.1"), model}}
	var buf bytes.Buffer
	printVersions(&buf, res.Restores)
	for _, w := range []string{"Kafka Streams versions", "3.9.1: a, c", "4.4.0: b"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("summary does not say %q:\n%s", w, buf.String())
		}
	}
	buf.Reset()
	printVersions(&buf, res.Restores[1:2])
	if buf.Len() != 0 {
		t.Errorf("one version needs no list: %q", buf.String())
	}
	buf.Reset()
	if err := PrintSummaryCSV(&buf, res); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := len(rows[0]) - 1
	if rows[0][last] != "kafka_streams_version" || rows[1][last] != "3.9.1" || rows[2][last] != "4.4.0" || rows[4][last] != "" {
		t.Errorf("csv version column: %v", rows)
	}
}
