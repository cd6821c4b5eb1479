package runs

import (
	"slices"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestFigureValuesReadTheScenariosCountingRecords: a declared figure's
// values are those of its scenario's records that count and measured it,
// in order; another scenario's record, an unverified one, one with an
// error and one that measured nothing are left out. Format writes each
// unit as units does.
func TestFigureValuesReadTheScenariosCountingRecords(t *testing.T) {
	fig := DeclaredFigure{Name: "time to ready", Unit: "s", Column: "ready s", Title: "t", Axis: "a", Paragraph: "p",
		Read: func(r Restore) (float64, bool) { return r.TimeToReady() }}
	cold := config.DefaultCase()
	warm := cold
	warm.Scenario = config.ScenarioWarm
	rec := func(p config.Case, secs float64, verified bool, err string) Restore {
		r := Restore{Case: p.Name, Params: p, Verified: verified, Error: err}
		if secs > 0 {
			r.Phase = &RestorePhase{TotalSeconds: secs}
		}
		return r
	}
	restores := []Restore{rec(cold, 2, true, ""), rec(warm, 9, true, ""), rec(cold, 7, false, ""), rec(cold, 8, true, "boom"),
		rec(cold, 0, true, ""), rec(cold, 3, true, "")}
	if got := FigureValues(fig, config.ScenarioCold, restores); !slices.Equal(got, []float64{2, 3}) {
		t.Errorf("values %v, want [2 3]", got)
	}
	for unit, want := range map[string]string{"s": "0.35 s", "B": "350 kB", "keys": "0.35 keys"} {
		f := fig
		f.Unit = unit
		v := 0.35
		if unit == "B" {
			v = 350e3
		}
		if got := f.Format(v); got != want {
			t.Errorf("Format(%v) in %s = %q, want %q", v, unit, got, want)
		}
	}
	if _, ok := FigureOf(config.ScenarioWarm); ok {
		t.Error("warm declares a figure: its views are its own")
	}
}
