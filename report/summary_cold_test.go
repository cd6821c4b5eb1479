package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// coldHeader starts the cold restores' table.
const coldHeader = "case  strategy  verified  restore s"

// coldRows returns the case names of the summary's cold table (its lines
// after the header, up to the first blank line), and whether it has one.
func coldRows(t *testing.T, out string) ([]string, bool) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.Contains(l, coldHeader) {
			continue
		}
		var cases []string
		for _, row := range lines[i+1:] {
			f := strings.Fields(row)
			if len(f) == 0 || strings.HasPrefix(row, "results:") || strings.HasPrefix(row, "  restore s, ready s") {
				break // the table ends at its legend
			}
			cases = append(cases, f[0])
		}
		return cases, true
	}
	return nil, false
}

// TestColdTableHoldsColdRestoresOnly: the cold table lists cold restores
// (either engine) and nothing else: a scale-out's warmup-assignment time,
// a standby step or a warm restart is not a cold restore, and each is in
// its own scenario's table, a file that names no scenario included.
func TestColdTableHoldsColdRestoresOnly(t *testing.T) {
	cold := config.DefaultCase()
	ks := config.DefaultCase()
	ks.Engine = config.EngineKafkaStreams
	with := func(s config.Scenario) config.Case {
		c := config.DefaultCase()
		c.Scenario = s
		return c
	}
	step := func(c string, k runs.StepKind) *runs.Step { return &runs.Step{Case: c, Kind: k} }
	sized := func(c string, k runs.StepKind) *runs.Step { return &runs.Step{Case: c, Size: "128MiB", Kind: k} }
	res := &runs.Results{Restores: []runs.Restore{
		{Case: "kstreams-default", Step: step("kstreams-default", runs.StepRestore), Repeat: 1, Params: cold, Verified: true, Records: 1000,
			Phase: &runs.RestorePhase{Seconds: 3.7, TotalSeconds: 3.7, MBPerSec: 138.5, PeakRSSBytes: 300 << 20}},
		{Case: "ks-cold", Step: step("ks-cold", runs.StepRestore), Repeat: 1, Params: ks, Verified: true, Records: 1000,
			Phase:        &runs.RestorePhase{Seconds: 4.1, TotalSeconds: 4.1, MBPerSec: 120, PeakRSSBytes: 900 << 20},
			KafkaStreams: &runs.KafkaStreamsRun{Version: "4.4.0"}},
		{Case: "scaleout@128MiB", Step: sized("scaleout", runs.StepScaleOut), Repeat: 1, Params: with(config.ScenarioScaleOut), Verified: true,
			ScaleOut: &runs.ScaleOutRecord{Protocol: "classic", Before: 2, After: 4, WarmupAssignmentSeconds: 67.03, Balanced: true}},
		{Case: "standby@128MiB/initial", Step: sized("standby", runs.StepInitial), Repeat: 1, Params: with(config.ScenarioStandby), Verified: true, Records: 81_942,
			Standby: &runs.StandbyRecord{Step: "initial"}},
		{Case: "standby@128MiB/initial", Step: sized("standby", runs.StepInitial), Repeat: 2, Params: with(config.ScenarioStandby), Verified: true, Records: 1_104_883,
			Standby: &runs.StandbyRecord{Step: "initial"}},
		{Case: "standby@128MiB/rate=1000", Step: &runs.Step{Case: "standby", Size: "128MiB", Kind: runs.StepRate, Rate: 1000}, Repeat: 1, Params: with(config.ScenarioStandby), Verified: true,
			Standby: &runs.StandbyRecord{Step: "rate", TargetRate: 1000, WrittenRate: 1000, AppliedRate: 1000, Sustained: true, Following: &runs.FollowingPhase{Seconds: 10}}},
		{Case: "warm/changed=0", Step: step("warm", runs.StepWarm), Repeat: 1, Params: with(config.ScenarioWarm), Verified: true, Warm: &runs.WarmRecord{Step: "warm", ColdSeconds: 3}},
		// An older file: no scenario in the params, a record all the same.
		{Case: "old-rolling", Step: step("old-rolling", runs.StepRolling), Repeat: 1, Params: config.Case{}, Verified: true,
			Rolling: &runs.RollingRecord{DowntimeSeconds: 12, Restarts: []runs.Restart{{DowntimeSeconds: 12}}}},
	}}
	var out bytes.Buffer
	PrintSummary(&out, res, "results.json")
	s := out.String()
	got, ok := coldRows(t, s)
	if !ok {
		t.Fatalf("no cold table:\n%s", s)
	}
	if strings.Join(got, " ") != "kstreams-default ks-cold" {
		t.Errorf("cold table rows %v, want the two cold restores only:\n%s", got, s)
	}
	for _, want := range []string{"scale-out (", "scaleout@128MiB", "standby (", "standby@128MiB/rate=1000", "warm restarts (", "warm/changed=0", "rolling restarts (", "old-rolling",
		// The standby's first restores, each repeat on its own row: no median over unlike work.
		"standby initial restore (", "standby@128MiB/initial  1    81942", "standby@128MiB/initial  2  1104883"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}

	// A run of scale-outs alone has no cold table at all.
	out.Reset()
	PrintSummary(&out, &runs.Results{Restores: res.Restores[2:3]}, "results.json")
	if _, ok := coldRows(t, out.String()); ok {
		t.Errorf("a cold table for a run without cold restores:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "scaleout@128MiB") {
		t.Errorf("the scale-out is missing:\n%s", out.String())
	}
}

// TestReadFoldsSaysWhatTheKindsReadKept: the summary of a restore of a
// topic restorebench did not fill says what the independent read kept,
// as the store kind declares it: windows or sessions past the retention
// left out for a window or session store, each key's last value for a
// key-value one (with or without a store record).
func TestReadFoldsSaysWhatTheKindsReadKept(t *testing.T) {
	for kind, want := range map[config.StoreKind]string{
		"":                              "each key's last value",
		config.StoreTimestampedKeyValue: "each key's last value",
		config.StoreWindow:              "each key's last value per window, the windows past the retention left out",
		config.StoreTimestampedWindow:   "each key's last value per window, the windows past the retention left out",
		config.StoreSession:             "each session's last value, the sessions past the retention left out",
	} {
		var r runs.Restore
		if kind != "" {
			r.Store = &runs.StoreFigures{Kind: kind}
		}
		if got := readFolds(r); got != want {
			t.Errorf("%q: %q, want %q", kind, got, want)
		}
	}
}
