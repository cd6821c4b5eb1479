package profiles

import (
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestFailoverKindsProfile: the built-in failover-kinds profile sweeps
// key-value, timestamped and window stores, each kind's cases failovers
// on the real client with a standby and without, at the same settings
// (rate, kills, session timeout) so that their gaps compare, and a window
// case with the fill's retention.
func TestFailoverKindsProfile(t *testing.T) {
	p, err := Load("failover-kinds")
	if err != nil {
		t.Fatal(err)
	}
	want := []loadgen.StoreKind{loadgen.KindKeyValue, loadgen.KindTimestampedKeyValue, loadgen.KindWindow}
	if len(p.KindSpecs) != len(want) {
		t.Fatalf("%d kinds, want %v", len(p.KindSpecs), want)
	}
	for i, spec := range p.KindSpecs {
		if spec.StoreKind.Of() != want[i] {
			t.Fatalf("kind %d: %s, want %s", i, spec.StoreKind, want[i])
		}
		cases, err := p.CasesFor(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec.StoreKind, err)
		}
		standby := map[bool]bool{}
		for _, c := range cases {
			f := c.Failover
			if c.Scenario != config.ScenarioFailover || c.Engine != config.EngineKafkaStreams || f == nil || c.Queries != nil {
				t.Fatalf("%s case %s: %s on %s, failover %+v", spec.StoreKind, c.Name, c.Scenario, c.Engine, f)
			}
			if f.Rate != 500 || f.Kills != 3 || c.Streams["session.timeout.ms"] != "6000" {
				t.Errorf("%s case %s: rate %v, kills %d, session %s", spec.StoreKind, c.Name, f.Rate, f.Kills, c.Streams["session.timeout.ms"])
			}
			if want[i] == loadgen.KindWindow && c.Retention.D().Milliseconds() != spec.RetentionMs {
				t.Errorf("window case %s: retention %s, the fill's %d ms", c.Name, c.Retention, spec.RetentionMs)
			}
			standby[f.Standby] = true
		}
		if !standby[true] || !standby[false] {
			t.Errorf("%s: standby cases %v, want on and off", spec.StoreKind, standby)
		}
	}
}
