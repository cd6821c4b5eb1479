package main

// The hostile-input suite for the scenarios' settings and figures: a
// figure needs the measurement behind it (enough lag samples for a
// standby's verdict), and settings that cannot give one are refused with
// the fields at fault named.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

// TestHostileStandbySamplingTooSparse: a standby whose lag sample interval
// leaves a rate step fewer than 5 samples (one sample of 10h over a 1s
// step, say, which reads lag 0 at the step's start and calls it kept up)
// is refused before anything runs, naming standby.sample, standby.duration
// and the minimum; on the kafka-streams engine its driver's 100ms floor
// counts, and the catch-up it times from the samples needs one a second.
func TestHostileStandbySamplingTooSparse(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct {
		engine, standby string
		want            []string
	}{
		{"model", "{sample: 10h, duration: 1s}", []string{"standby.sample", "standby.duration", "at least 5", "gives 0 lag sample"}},
		{"model", "{sample: 300ms, duration: 1s}", []string{"standby.sample", "standby.duration", "at least 5"}},
		{"model", "{sample: 250ms}", nil}, // the default duration, 15s
		{"model", "{sample: 10ms, duration: 1s}", nil},
		{"model", "{sample: 200ms, duration: 1s}", nil},
		{"kafka-streams", "{sample: 10h, duration: 1s}", []string{"standby.sample", "standby.duration", "at least 5"}},
		{"kafka-streams", "{sample: 10ms, duration: 400ms}", []string{"standby.duration"}},
		{"kafka-streams", "{sample: 10ms, duration: 1s}", nil}, // 100ms reports: 10
		{"kafka-streams", "{sample: 50ms, duration: 450ms}", []string{"standby.duration"}},
		{"kafka-streams", "{sample: 250ms, duration: 1s}", []string{"standby.sample", "standby.duration", "at least 5"}},
		{"kafka-streams", "{sample: 2s, duration: 1m}", []string{"standby.sample", "over 1s"}},
	} {
		body := fmt.Sprintf("fill: {records: 1000}\ncases:\n  - name: s\n    scenario: standby\n    engine: %s\n    standby: %s\n", c.engine, c.standby)
		what := c.engine + " " + c.standby
		if c.want == nil {
			if _, err := profiles.Parse([]byte(body), "s.yaml"); err != nil {
				t.Errorf("%s: refused: %v", what, err)
			}
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", i))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := cli(t, "--data-dir", dir, "run", p)
		wantErr(t, what, err, append([]string{"cases[0]."}, c.want...)...)
	}
	// Nothing was filled: the refusal came first.
	if m, _ := filepath.Glob(filepath.Join(dir, "fills", "*", "*.json")); len(m) != 0 {
		t.Fatalf("a refused profile filled topics: %v", m)
	}
}

// TestHostileStandbyStepWithoutSamplesIsNoFigure: a results.json whose
// standby step took one lag sample while it wrote (at t = 0.001 s, lag 0)
// yet says sustained at 295,099 records/s, as a build without the
// sample check wrote: summary and report print "–" for its verdict and
// lags, and the highest sustained rate is the one the judged steps
// measured (80,000 records/s), not the unjudged step's.
func TestHostileStandbyStepWithoutSamplesIsNoFigure(t *testing.T) {
	scen := capacitytest.ScenarioRun(len(capacitytest.Sizes))
	var model runs.Restore
	for _, r := range scen.Restores {
		if r.Standby != nil && r.Standby.Step == "max" && r.Standby.Sustained {
			model = r
		}
	}
	if model.Standby == nil {
		t.Fatal("the synthetic run has no sustained max step")
	}
	sb := *model.Standby
	sb.TargetRate, sb.WrittenRate, sb.AppliedRate = 295099, 295099, 295099
	sb.Lag, sb.LagP50, sb.LagP99, sb.LagMax = []runs.LagPoint{{T: 0.001, Lag: 0}}, 0, 0, 0
	sb.LagSamples = 100 // a claim; the lag series is what counts
	sb.Sustained = true
	model.Standby = &sb
	step := *model.Step
	step.Rate = sb.TargetRate
	model.SetStep(step) // "standby/max=295099"
	scen.Restores = append(scen.Restores, model)
	dirs, err := capacitytest.Write(t.TempDir(), append(capacitytest.Runs(), scen))
	if err != nil {
		t.Fatal(err)
	}
	scenDir := dirs[len(dirs)-1]

	out, _, err := cli(t, "summary", scenDir)
	if err != nil {
		t.Fatal(err)
	}
	_, standby, _ := strings.Cut(out, "standby (records/s")
	row := lineWith(standby, "standby/max=295099")
	if row == "" || strings.Count(row, "–") != 4 || strings.Contains(row, "yes") {
		t.Errorf("summary's row for the unjudged step: %q, want – for its lags and verdict\n%s", row, out)
	}
	if !strings.Contains(out, "highest write rate a standby sustained here on the model engine: 80000 records/s") || strings.Contains(out, "295099 records/s") {
		t.Errorf("summary's highest sustained rate counts the unjudged step:\n%s", out)
	}
	if !strings.Contains(out, "fewer than 5 lag samples") {
		t.Errorf("summary does not say what – means:\n%s", out)
	}

	rep := filepath.Join(t.TempDir(), "report")
	if _, _, err := cli(t, append(append([]string{"report"}, dirs...), "--out", rep)...); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(rep, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	sustained := lineWith(string(md), "**Highest write rate sustained:**")
	if !strings.Contains(sustained, "80,000 records/s") || strings.Contains(string(md), "295,099 records/s") || !strings.Contains(sustained, "fewer than 5 lag samples") {
		t.Errorf("report's highest sustained rate: %q", sustained)
	}
	trow := lineWith(string(md), "standby/max=295099 #1 |")
	// lag p50, p99, max and kept up; then no catch-up, and verified.
	if !strings.HasSuffix(trow, "| – | – | – | – |  | yes |") {
		t.Errorf("report's row for the unjudged step: %q", trow)
	}
}

// lineWith is the first line of s holding sub, "" for none.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// TestHostileWindowsLongerThanTheirWait: the same class in the other
// scenarios' settings: a settle window or gap threshold that cannot fit
// in the wait it is measured within (a 10h gap threshold makes every
// downtime read 0) is refused, naming both settings.
func TestHostileWindowsLongerThanTheirWait(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct {
		scenario, settings string
		want               []string
	}{
		{"scaleout", "{gap_threshold: 10h}", []string{"scaleout.gap_threshold", "scaleout.timeout"}},
		{"scaleout", "{settle: 20m}", []string{"scaleout.settle", "scaleout.timeout"}},
		{"scaleout", "{settle: 5s, timeout: 5s}", []string{"scaleout.settle", "scaleout.timeout"}},
		{"rolling", "{gap_threshold: 10h}", []string{"rolling.gap_threshold", "rolling.timeout"}},
		{"rolling", "{settle: 11m}", []string{"rolling.settle", "rolling.timeout"}},
		{"scaleout", "{gap_threshold: 2s, settle: 10s, timeout: 1m}", nil},
		{"rolling", "{gap_threshold: 2s, settle: 10s, timeout: 1m}", nil},
	} {
		body := fmt.Sprintf("fill: {records: 1000}\ncases:\n  - name: x\n    scenario: %s\n    engine: kafka-streams\n    %s: %s\n", c.scenario, c.scenario, c.settings)
		what := c.scenario + " " + c.settings
		if c.want == nil {
			if _, err := profiles.Parse([]byte(body), "x.yaml"); err != nil {
				t.Errorf("%s: refused: %v", what, err)
			}
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", i))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := cli(t, "--data-dir", dir, "run", p)
		wantErr(t, what, err, append([]string{"line 6: cases[0]."}, c.want...)...)
	}
}
