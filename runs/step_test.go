package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/verify"
)

// fixtures are the saved schema-1 runs of the built-in profiles.
func fixtures(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "results", "*", "results.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no saved runs (%v)", err)
	}
	return paths
}

// TestSchema1FixturesLoadWithTheirSteps: a schema-1 file's records get the
// step a run of this build writes for them: case, sweep size, kind and the
// kind's parameter, named as the record is.
func TestSchema1FixturesLoadWithTheirSteps(t *testing.T) {
	// What the runners write (scenario's newRecord, bench's SetSize) for
	// these records.
	want := map[string]map[string]Step{
		"capacity": {
			"kstreams-default@1GiB":        {Case: "kstreams-default", Size: "1GiB", Kind: StepRestore},
			"warm@256MiB/cold":             {Case: "warm", Size: "256MiB", Kind: StepCold},
			"warm@256MiB/changed=0":        {Case: "warm", Size: "256MiB", Kind: StepWarm},
			"warm@256MiB/changed=10000":    {Case: "warm", Size: "256MiB", Kind: StepWarm, Changed: 10000},
			"warm@256MiB/fallback":         {Case: "warm", Size: "256MiB", Kind: StepFallback},
			"standby@256MiB/initial":       {Case: "standby", Size: "256MiB", Kind: StepInitial},
			"standby@256MiB/rate=50000":    {Case: "standby", Size: "256MiB", Kind: StepRate, Rate: 50000},
			"standby@256MiB/pause=10s":     {Case: "standby", Size: "256MiB", Kind: StepPause, PauseSeconds: 10},
			"scaleout@256MiB":              {Case: "scaleout", Size: "256MiB", Kind: StepScaleOut},
			"compaction-aggressive@256MiB": {Case: "compaction-aggressive", Size: "256MiB", Kind: StepCompaction},
		},
		"standby": {
			"standby-kstreams/max=40000": {Case: "standby-kstreams", Kind: StepMax, Rate: 40000},
			"standby-model/pause=5s":     {Case: "standby-model", Kind: StepPause, PauseSeconds: 5},
		},
		"warm":      {"warm-model/changed=210198": {Case: "warm-model", Kind: StepWarm, Changed: 210198}},
		"quick":     {"threads-2": {Case: "threads-2", Kind: StepRestore}},
		"calibrate": {"t2-b1000-kafka-streams": {Case: "t2-b1000-kafka-streams", Kind: StepRestore}},
		"rolling":   {"persistent-static": {Case: "persistent-static", Kind: StepRolling}},
		"scaleout":  {"warmups-2": {Case: "warmups-2", Kind: StepScaleOut}},
	}
	for _, path := range fixtures(t) {
		name := filepath.Base(filepath.Dir(path))
		r, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.SchemaVersion != SchemaVersion {
			t.Errorf("%s: loaded as schema %d, want %d", name, r.SchemaVersion, SchemaVersion)
		}
		kills := map[string]int{}
		seen := map[string]bool{}
		for _, rec := range r.Restores {
			s := rec.Step
			if s == nil || s.Name() != rec.Case {
				t.Fatalf("%s: %s #%d: step %+v", name, rec.Case, rec.Repeat, s)
			}
			if w, ok := want[name][rec.Case]; ok && *s != w {
				t.Errorf("%s: %s #%d: step %+v, want %+v", name, rec.Case, rec.Repeat, *s, w)
			}
			seen[rec.Case] = true
			if name == "failover" {
				kills[fmt.Sprintf("%s #%d", rec.Case, rec.Repeat)]++
				if w := (Step{Case: rec.Case, Kind: StepKill, Kill: rec.Failover.Kill}); *s != w || s.Kill < 1 {
					t.Errorf("failover: %s #%d: step %+v, want %+v", rec.Case, rec.Repeat, *s, w)
				}
			}
		}
		for k, n := range kills {
			if n != 5 {
				t.Errorf("failover: %s has %d kills, want 5", k, n)
			}
		}
		for c := range want[name] {
			if !seen[c] {
				t.Errorf("%s holds no record %q", name, c)
			}
		}
		if name == "failover" && len(kills) != 6 {
			t.Errorf("failover: %d sequences, want 6", len(kills))
		}
	}
}

// TestSavedRunsRoundTrip: a loaded file saved again is written as this
// schema, every record with its step, and loads back the same.
func TestSavedRunsRoundTrip(t *testing.T) {
	for _, path := range fixtures(t) {
		r, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "results.json")
		if err := r.Save(out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var raw struct {
			SchemaVersion int `json:"schema_version"`
			Restores      []struct {
				Step *Step `json:"step"`
			} `json:"restores"`
		}
		b, _ := os.ReadFile(out)
		if err := json.Unmarshal(b, &raw); err != nil || raw.SchemaVersion != SchemaVersion {
			t.Fatalf("%s saved as schema %d (%v)", path, raw.SchemaVersion, err)
		}
		for i, rec := range raw.Restores {
			if rec.Step == nil || *rec.Step != *r.Restores[i].Step {
				t.Fatalf("%s: restores[%d] written with step %+v, want %+v", path, i, rec.Step, r.Restores[i].Step)
			}
		}
		again, err := Load(out)
		if err != nil {
			t.Fatalf("%s as schema %d: %v", path, SchemaVersion, err)
		}
		if !reflect.DeepEqual(again, r) {
			t.Errorf("%s: schema %d does not load back what was saved", path, SchemaVersion)
		}
	}
}

// writeSchema1 writes r as a schema-1 file would hold it: no record's
// step, schema_version 1.
func writeSchema1(t *testing.T, r *Results) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["schema_version"] = 1
	for _, rec := range m["restores"].([]any) {
		delete(rec.(map[string]any), "step")
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stepRecord is a verified record of step s in scenario sc.
func stepRecord(sc config.Scenario, s Step) Restore {
	r := Restore{Repeat: 1, Params: config.Case{Scenario: sc}, Verified: true,
		Verification: verify.Result{Mode: verify.ModeExpectedState, Partitions: []verify.PartitionCheck{{OK: true}}}}
	switch sc {
	case config.ScenarioWarm:
		r.Warm = &WarmRecord{Step: s.Kind, Changed: s.Changed}
	case config.ScenarioStandby:
		r.Standby = &StandbyRecord{Step: s.Kind, TargetRate: s.Rate, PauseSeconds: s.PauseSeconds}
	case config.ScenarioFailover:
		r.Failover = &FailoverRecord{Kill: s.Kill}
		r.Verification = verify.Result{Mode: VerificationLedger}
	}
	r.SetStep(s)
	return r
}

// TestSchema1Upgrade: the one reading of names gives each kind its
// parameter, a step older builds named by its rounded rate keeps that
// name, and a failed step they never named loads without a kind.
func TestSchema1Upgrade(t *testing.T) {
	rounded := stepRecord(config.ScenarioStandby, Step{Case: "s", Kind: StepRate, Rate: 200})
	rounded.Standby.TargetRate = 200.4 // "s/rate=200", as builds before the whole rate named it
	failed := stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepWarm, Changed: 5})
	failed.Case, failed.Warm, failed.Verified, failed.Error = "w", nil, false, "restore failed"
	failed.Repeat = 2
	r := &Results{Restores: []Restore{
		stepRecord(config.ScenarioWarm, Step{Case: "w", Size: "1MB", Kind: StepWarm, Changed: 0}),
		stepRecord(config.ScenarioWarm, Step{Case: "w", Size: "1MB", Kind: StepWarm, Changed: 12}),
		stepRecord(config.ScenarioStandby, Step{Case: "s", Kind: StepMax, Rate: 62500.5}),
		stepRecord(config.ScenarioStandby, Step{Case: "s", Kind: StepPause, PauseSeconds: 0.25}),
		stepRecord(config.ScenarioFailover, Step{Case: "f", Kind: StepKill, Kill: 3}),
		stepRecord("", Step{Case: "c", Kind: StepRestore}),
		rounded, failed,
	}}
	want := []Step{
		{Case: "w", Size: "1MB", Kind: StepWarm}, {Case: "w", Size: "1MB", Kind: StepWarm, Changed: 12},
		{Case: "s", Kind: StepMax, Rate: 62500.5}, {Case: "s", Kind: StepPause, PauseSeconds: 0.25},
		{Case: "f", Kind: StepKill, Kill: 3}, {Case: "c", Kind: StepRestore},
		{Case: "s", Kind: StepRate, Rate: 200}, {Case: "w"},
	}
	got, err := Load(writeSchema1(t, r))
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range got.Restores {
		if *rec.Step != want[i] || rec.Case != r.Restores[i].Case {
			t.Errorf("restores[%d] %q: step %+v, want %+v", i, rec.Case, *rec.Step, want[i])
		}
	}

	for _, c := range []struct {
		name string
		edit func(*Restore)
		want string
	}{
		{"a step a warm record does not name", func(r *Restore) { r.Case = "w/changed=x" }, `step "changed=x"`},
		{"a cold restore named by a step", func(r *Restore) { r.Params.Scenario, r.Warm, r.Case = config.ScenarioCold, nil, "w/cold" }, "not named by its step"},
		{"a measured step without its name", func(r *Restore) { r.Case = "w" }, `step kind "" is not one of`},
	} {
		rec := stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepCold})
		c.edit(&rec)
		_, err := Load(writeSchema1(t, &Results{Restores: []Restore{rec}}))
		if err == nil || !strings.Contains(err.Error(), "restores[0]") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestCheckValidatesSteps: a record's step is checked against its name, its
// scenario and its scenario's record; the error names the record.
func TestCheckValidatesSteps(t *testing.T) {
	for _, c := range []struct {
		name string
		rec  Restore
		edit func(*Restore)
		want string
	}{
		{"no step", stepRecord("", Step{Case: "c", Kind: StepRestore}), func(r *Restore) { r.Step = nil }, "no step"},
		{"a kind of another scenario", stepRecord(config.ScenarioCold, Step{Case: "c", Kind: StepRestore}),
			func(r *Restore) { r.SetStep(Step{Case: "c", Kind: StepKill, Kill: 1}) }, `step kind "kill" is not one of the cold scenario's [restore]`},
		{"an unknown kind", stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepCold}),
			func(r *Restore) { s := *r.Step; s.Kind, r.Warm.Step = "lukewarm", "lukewarm"; r.SetStep(s) }, `step kind "lukewarm" is not one of the warm scenario's [cold warm fallback]`},
		{"a name that is not its step's", stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepWarm, Changed: 10}),
			func(r *Restore) { r.Case = "w/changed=11" }, `named "w/changed=11", but its step`},
		{"changed the warm record contradicts", stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepWarm, Changed: 10}),
			func(r *Restore) { r.Warm.Changed = 11 }, "step changed 10, but its warm record says 11 changed"},
		{"a kind the warm record contradicts", stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepCold}),
			func(r *Restore) { r.Warm.Step = StepFallback }, `step kind "cold", but its warm record's step is "fallback"`},
		{"a rate the standby record contradicts", stepRecord(config.ScenarioStandby, Step{Case: "s", Kind: StepRate, Rate: 1000}),
			func(r *Restore) { r.Standby.TargetRate = 2000 }, "step rate 1000, but its standby record's target rate is 2000"},
		{"a pause the standby record contradicts", stepRecord(config.ScenarioStandby, Step{Case: "s", Kind: StepPause, PauseSeconds: 5}),
			func(r *Restore) { r.Standby.PauseSeconds = 6 }, "step pause 5s, but its standby record paused 6s"},
		{"a kill the failover record contradicts", stepRecord(config.ScenarioFailover, Step{Case: "f", Kind: StepKill, Kill: 2}),
			func(r *Restore) { r.Failover.Kill = 3 }, "step kill 2, but its failover record is kill 3"},
		{"kill 0", stepRecord(config.ScenarioFailover, Step{Case: "f", Kind: StepKill, Kill: 1}),
			func(r *Restore) { r.Step.Kill, r.Failover.Kill = 0, 0 }, "kills count from 1"},
		{"a parameter of another kind", stepRecord(config.ScenarioStandby, Step{Case: "s", Kind: StepInitial}),
			func(r *Restore) { r.Step.Kill = 4 }, `carries a parameter its kind "initial" has not`},
		{"a scenario record of another scenario", stepRecord(config.ScenarioCold, Step{Case: "c", Kind: StepRestore}),
			func(r *Restore) { r.Warm = &WarmRecord{Step: StepRestore} }, `a warm record on a step of kind "restore"`},
		{"a step without its case", stepRecord(config.ScenarioCold, Step{Case: "c", Kind: StepRestore}),
			func(r *Restore) { r.Step.Case = "" }, "names no case"},
		{"an unmeasured kind on a verified record", stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepCold}),
			func(r *Restore) { r.Warm = nil; r.SetStep(Step{Case: "w"}) }, `step kind "" is not one of`},
	} {
		rec := c.rec
		c.edit(&rec)
		r := &Results{Restores: []Restore{stepRecord("", Step{Case: "first", Kind: StepRestore}), rec}}
		err := r.Check()
		if err == nil || !strings.Contains(err.Error(), "restores[1] (case "+`"`+rec.Case+`"`) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q naming restores[1]", c.name, err, c.want)
		}
	}

	// Two records of one step and repeat are one too many, whatever else
	// differs; two steps of one case are two records.
	a := stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepWarm, Changed: 10})
	b := stepRecord(config.ScenarioWarm, Step{Case: "w", Kind: StepWarm, Changed: 20})
	if err := (&Results{Restores: []Restore{a, b}}).Check(); err != nil {
		t.Errorf("two steps: %v", err)
	}
	b = a
	b.Phase = &RestorePhase{Seconds: 3}
	if err := (&Results{Restores: []Restore{a, b}}).Check(); err == nil || !strings.Contains(err.Error(), `restores[1] (case "w/changed=10" repeat 1) repeats restores[0]`) {
		t.Errorf("one step twice: %v", err)
	}
}

// TestHeadlineRecordsCarryNoRestoreFigures: in a schema-2 file a failover
// kill, a scale-out and a rolling restart wrote their own figure into the
// restore figures as well; loaded, each keeps it only as its headline
// (the same seconds), and a schema-3 file that still carries a restore
// figure on such a record is refused, naming the field.
func TestHeadlineRecordsCarryNoRestoreFigures(t *testing.T) {
	want := map[string]string{"failover": "gap s (longest task)", "scaleout": "assignment s", "rolling": "downtime s"}
	for name, label := range want {
		path := filepath.Join("..", "testdata", "results", name, "results.json")
		var raw struct {
			Restores []struct {
				DurationSeconds float64 `json:"duration_seconds"`
			} `json:"restores"`
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		r, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		headlines := 0
		for i, rec := range r.Restores {
			if rec.Phase != nil || rec.Model != nil {
				t.Errorf("%s: restores[%d] loaded with a restore phase %+v or model figures %+v", name, i, rec.Phase, rec.Model)
			}
			h, secs, ok := rec.Headline()
			if !ok {
				continue
			}
			headlines++
			if gap, _ := rec.Gap(); h.Label != label || secs != raw.Restores[i].DurationSeconds || gap != secs {
				t.Errorf("%s: restores[%d] headline %q %v s (Gap %v), the file's duration %v s", name, i, h.Label, secs, gap, raw.Restores[i].DurationSeconds)
			}
			if _, ok := rec.RestoreSeconds(); ok {
				t.Errorf("%s: restores[%d] has a restore time", name, i)
			}
			if rec.StepKind().IsRestore() {
				t.Errorf("%s: step kind %s counted as a restore", name, rec.StepKind())
			}
		}
		if headlines == 0 {
			t.Fatalf("%s: no record with a headline", name)
		}
		r.Restores[0].Phase = &RestorePhase{Seconds: 3}
		if err := r.Check(); err == nil || !strings.Contains(err.Error(), "carries a restore phase") {
			t.Errorf("%s: a record carrying a restore phase checked: %v", name, err)
		}

		// A figure no measurement gives is refused as the file loads, not
		// dropped unseen with the rest.
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		doc["restores"].([]any)[0].(map[string]any)["duration_seconds"] = -5
		damaged, _ := json.Marshal(doc)
		path = filepath.Join(t.TempDir(), "results.json")
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "duration_seconds is -5") {
			t.Errorf("%s: a file with duration_seconds -5 on a %s record loaded: %v", name, name, err)
		}
	}
}
