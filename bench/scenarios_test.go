package bench

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

const warmProfile = `
name: warm-test
fill:
  records: 40000
  keys: 6000
  value_size: 20-200
  tombstone_ratio: 0.05
  partitions: 3
cases:
  - name: warm
    scenario: warm
    warm:
      changed: [0, 2000, 10%]
repeats: 2
`

// TestWarmSequenceVerifiesEveryRestart: a warm-restart case restores cold,
// then restarts after 0, 2,000 and 4,000 changed records, reading exactly
// those, and finally falls back to the log start when its committed offsets
// lie below it; every restore verifies against what the changelog holds
// then. The next run refills the changed topic by itself.
func TestWarmSequenceVerifiesEveryRestart(t *testing.T) {
	plan, err := profiles.Parse([]byte(warmProfile), "warm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	env := connect(t, dataDir)
	res, err := env.Run(context.Background(), plan, RunOptions{OutDir: filepath.Join(t.TempDir(), "out")})
	env.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restores) != 10 {
		t.Fatalf("%d records, want 2 × (cold + 3 warm + fallback)", len(res.Restores))
	}
	// The second repeat starts from the fill again: the same sequence.
	for i := 0; i < 5; i++ {
		if a, b := res.Restores[i], res.Restores[i+5]; a.Case != b.Case || a.Records != b.Records || !b.Verified {
			t.Fatalf("repeat 2 step %d: %s with %d records (verified %v), repeat 1 had %s with %d", i, b.Case, b.Records, b.Verified, a.Case, a.Records)
		}
	}
	want := []struct {
		step    runs.StepKind
		records int64
	}{{runs.StepCold, 40000}, {runs.StepWarm, 0}, {runs.StepWarm, 2000}, {runs.StepWarm, 4000}}
	for i, w := range want {
		r := res.Restores[i]
		if !r.Verified || r.Warm == nil || r.Warm.Step != w.step || r.Records != w.records {
			t.Fatalf("record %d: verified=%v step=%v records=%d, want %s with %d records (%s)", i, r.Verified, r.Warm, r.Records, w.step, w.records, r.Error)
		}
		if w.step == runs.StepWarm && (r.Warm.WarmTasks != 3 || r.Warm.FallbackTasks != 0 || r.Warm.Changed != w.records) {
			t.Fatalf("record %d: %+v", i, r.Warm)
		}
	}
	fb := res.Restores[4]
	if !fb.Verified || fb.Warm.Step != runs.StepFallback || fb.Warm.FallbackTasks == 0 || !strings.Contains(strings.Join(fb.Warm.Fallbacks, " "), "below the log start") {
		t.Fatalf("fallback: verified=%v %+v (%s)", fb.Verified, fb.Warm, fb.Error)
	}
	env = connect(t, dataDir)
	defer env.Close()
	out, err := env.EnsureFill(context.Background(), FillRequest{Topic: plan.Topic, Spec: plan.Spec, Compression: plan.Compression})
	if err != nil || out.Reused {
		t.Fatalf("the changed topic was not refilled: reused=%v, %v", out.Reused, err)
	}
}

const standbyProfile = `
name: standby-test
fill:
  records: 30000
  keys: 5000
  value_size: 20-200
  partitions: 2
cases:
  - name: standby
    scenario: standby
    standby:
      rates: [2000, 5000]
      duration: 2s
      pauses: [1s]
      pause_rate: 3000
      find_max: false
`

// TestStandbyFollowsAndCatchesUp: a model standby restores, follows the
// changelog written at two rates, catches up after a pause, and verifies
// after every step; its lag is sampled and the catch-up time recorded.
func TestStandbyFollowsAndCatchesUp(t *testing.T) {
	res := runYAML(t, standbyProfile, "standby.yaml")
	steps := []runs.StepKind{runs.StepInitial, runs.StepRate, runs.StepRate, runs.StepPause}
	if len(res.Restores) != len(steps) {
		t.Fatalf("%d records, want %d", len(res.Restores), len(steps))
	}
	for i, r := range res.Restores {
		if !r.Verified || r.Standby == nil || r.Standby.Step != steps[i] {
			t.Fatalf("record %d: verified=%v %+v (%s)", i, r.Verified, r.Standby, r.Error)
		}
		sb := r.Standby
		switch sb.Step {
		case "rate":
			if len(sb.Lag) < 4 || sb.WrittenRate < 0.5*sb.TargetRate || sb.AppliedRate <= 0 || r.Records < int64(sb.TargetRate) {
				t.Fatalf("rate step %d: %d lag samples, written %.0f of %.0f/s, applied %.0f/s, %d records", i, len(sb.Lag), sb.WrittenRate, sb.TargetRate, sb.AppliedRate, r.Records)
			}
		case "pause":
			if sb.PauseSeconds != 1 || sb.CatchUpSeconds <= 0 || !sb.Sustained {
				t.Fatalf("pause step: %+v", sb)
			}
		}
	}
}

// TestSizeSweepRunsEveryCasePerSize: a profile with sizes fills one topic
// per size and runs every case on each, naming the records by size.
func TestSizeSweepRunsEveryCasePerSize(t *testing.T) {
	res := runYAML(t, "fill: {keys: 3000, partitions: 2}\nsizes: [200KB, 600KB]\ncases: [{name: a}, {name: b, threads: 2}]\n", "sweep.yaml")
	if len(res.Fills) != 2 || res.Fills[0].Bytes >= res.Fills[1].Bytes || res.Fills[0].Topic == res.Fills[1].Topic {
		t.Fatalf("fills %+v", res.Fills)
	}
	var names []string
	for _, r := range res.Restores {
		if !r.Verified {
			t.Fatalf("%s not verified: %s", r.Case, r.Error)
		}
		names = append(names, r.Case)
	}
	if got, want := strings.Join(names, " "), "a@200KB b@200KB a@600KB b@600KB"; got != want {
		t.Fatalf("records %q, want %q", got, want)
	}
}

// TestStoreKindSweepRestoresEachKind: a profile with store_kinds fills one
// changelog per kind from its one fill section and restores every case on
// each as that kind, verified, the records named by kind; a window store
// serves fewer entries than its key-value twin holds keys when its
// retention covers only part of the events.
func TestStoreKindSweepRestoresEachKind(t *testing.T) {
	res := runYAML(t, "store_kinds: [key-value, window]\nfill: {records: 4000, keys: 200, partitions: 2, time_range: 4h, window_size: 30m, retention: 1h}\ncases: [{name: a}]\n", "kinds.yaml")
	if len(res.Fills) != 2 || res.Fills[0].Topic == res.Fills[1].Topic || res.Fills[1].Spec.StoreKind != loadgen.KindWindow {
		t.Fatalf("fills %+v", res.Fills)
	}
	var names []string
	for _, r := range res.Restores {
		if !r.Verified {
			t.Fatalf("%s not verified: %s", r.Case, r.Error)
		}
		names = append(names, r.Case+"/"+string(r.Params.StoreKind))
	}
	if got, want := strings.Join(names, " "), "a@key-value/key-value a@window/window"; got != want {
		t.Fatalf("records %q, want %q", got, want)
	}
	kvKeys, _ := res.Restores[0].Verification.Totals()
	winKeys, _ := res.Restores[1].Verification.Totals()
	// 4 h of events, 30 min windows, 1 h retention: the window store
	// serves the last two or three windows of a key, not all eight.
	if kvKeys == 0 || winKeys == 0 || winKeys > 3*kvKeys || res.Restores[1].Records >= res.Fills[1].Records {
		t.Errorf("key-value keys %d, window entries %d, window records read %d of %d", kvKeys, winKeys, res.Restores[1].Records, res.Fills[1].Records)
	}
}

// TestCompactionMeasuresRestoreAmplification: an overwrite-heavy fill
// written to a changelog the cleaner compacts is restored from what the
// cleaner left: fewer records than written, verified, amplification ≥ 1
// and within the bound the settings allow.
func TestCompactionMeasuresRestoreAmplification(t *testing.T) {
	res := runYAML(t, `
fill: {records: 50000, keys: 500, partitions: 2, value_size: 50}
cases:
  - name: compacted
    scenario: compaction
    compaction:
      settle: 0s
      topic_configs: {segment.bytes: "102400", min.cleanable.dirty.ratio: "0.01"}
`, "c.yaml")
	r := res.Restores[0]
	c := r.Compaction
	if !r.Verified || c == nil || c.Written != 50000 || c.Read >= c.Written || c.LiveKeys != 500 || c.Amplification < 1 || c.Amplification > c.Bound {
		t.Fatalf("verified=%v %+v (%s)", r.Verified, c, r.Error)
	}
}

// hookLog is a run's log that calls on with each line as it is written
// (tests use it to act at a point of a scenario, as Ctrl-C would).
type hookLog struct {
	mu sync.Mutex
	on func(line string)
}

func (h *hookLog) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.on(string(b))
	return len(b), nil
}

// interruptAt runs plan and cancels its context when the log says when
// (the start of a step), returning what results.json kept.
func interruptAt(t *testing.T, plan *profiles.Plan, when string) *runs.Results {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := false
	log := &hookLog{on: func(line string) {
		if strings.Contains(line, when) {
			cancelled = true
			cancel()
		}
	}}
	env, err := Connect(context.Background(), Options{DataDir: t.TempDir(), Log: log, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	out := t.TempDir()
	_, err = env.Run(ctx, plan, RunOptions{OutDir: out})
	if !cancelled {
		t.Fatalf("the run never logged %q (%v)", when, err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	res, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete {
		t.Fatal("an interrupted run saved as complete")
	}
	return res
}

// wantSteps fails t unless res holds exactly the verified records named.
func wantSteps(t *testing.T, res *runs.Results, names ...string) {
	t.Helper()
	var got []string
	for _, r := range res.Restores {
		got = append(got, r.Case)
		if !r.Counts() {
			t.Errorf("%s kept but not a verified measurement: verified=%v error=%q", r.Case, r.Verified, r.Error)
		}
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Fatalf("results.json kept %q, want %q", got, names)
	}
}

// TestInterruptedWarmKeepsFinishedSteps: Ctrl-C during the write before a
// warm restart keeps every restart that finished and verified before it,
// the last one included (the write that failed made no record of its own).
func TestInterruptedWarmKeepsFinishedSteps(t *testing.T) {
	plan, err := profiles.Parse([]byte(`
fill: {records: 20000, keys: 3000, partitions: 2, value_size: 10-200}
cases:
  - name: a
    scenario: warm
    warm: {changed: [1000, 15000], fallback: false}
`), "warm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := interruptAt(t, plan, "writing 15000 records while the instance is down")
	wantSteps(t, res, "a/cold", "a/changed=1000")
	if w := res.Restores[1].Warm; w == nil || w.Changed != 1000 || res.Restores[1].Records != 1000 {
		t.Fatalf("the kept restart: %+v, %d records", w, res.Restores[1].Records)
	}
}

// TestInterruptedStandbyKeepsFinishedSteps: Ctrl-C at the start of a
// standby's pause step (before it has a record) keeps the initial restore
// and the rate step that finished and verified before it.
func TestInterruptedStandbyKeepsFinishedSteps(t *testing.T) {
	plan, err := profiles.Parse([]byte(`
fill: {records: 20000, keys: 3000, partitions: 2, value_size: 10-200}
cases:
  - name: s
    scenario: standby
    standby: {rates: [2000], duration: 1s, sample: 100ms, pauses: [1s], pause_rate: 2000, find_max: false}
`), "standby.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := interruptAt(t, plan, "paused for 1s")
	wantSteps(t, res, "s/initial", "s/rate=2000")
}

// TestStandbyTooSparseSamplingRefusedByTheEngine: settings that give a
// rate step fewer lag samples than a verdict needs (one sample, at the
// step's start, which reads 0 whatever follows) are refused by the model
// engine too, not only by a profile: driven past the profile's validation
// the case runs no step and claims nothing sustained.
func TestStandbyTooSparseSamplingRefusedByTheEngine(t *testing.T) {
	plan, err := profiles.Parse([]byte(`
fill: {records: 20000, keys: 3000, partitions: 2, value_size: 10-200}
cases:
  - name: s
    scenario: standby
    standby: {rates: [2000], duration: 2s, pauses: [], find_max: false}
`), "standby.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	fill, err := env.EnsureFill(ctx, FillRequest{Topic: plan.Topic, Spec: plan.Spec, Compression: plan.Compression})
	if err != nil {
		t.Fatal(err)
	}
	c := plan.Cases[0].Clone()
	c.Standby.Sample = config.Duration(10 * time.Hour)
	recs, err := env.RunCaseAll(ctx, fill, plan.AppID, plan.StoreName, c, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "standby.sample") || !strings.Contains(err.Error(), "standby.duration") {
		t.Fatalf("got %v, want a refusal naming standby.sample and standby.duration", err)
	}
	for _, r := range recs {
		if r.Standby != nil && r.Standby.Step != "initial" {
			t.Fatalf("a %s step ran: sustained=%v with %d lag samples", r.Standby.Step, r.Standby.Sustained, len(r.Standby.Lag))
		}
	}
}

// TestInterruptedChangeDoesNotBlockTheNextRun: Ctrl-C while a warm
// restart's change is being written leaves the changelog holding the fill
// plus part of it; the manifest says the change did not settle, so the
// next run refills the topic itself instead of refusing it as one that
// does not hold what its manifest says.
func TestInterruptedChangeDoesNotBlockTheNextRun(t *testing.T) {
	plan, err := profiles.Parse([]byte(`
fill: {records: 20000, keys: 3000, partitions: 2, value_size: 10-200}
cases:
  - name: a
    scenario: warm
    warm: {changed: [1000, 15000], fallback: false}
`), "warm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	log := &hookLog{on: func(line string) {
		if strings.Contains(line, "writing 15000 records while the instance is down") {
			cancel()
		}
	}}
	env, err := Connect(context.Background(), Options{DataDir: data, Log: log, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Run(ctx, plan, RunOptions{OutDir: t.TempDir()}); !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v, want context.Canceled", err)
	}
	env.Close()
	var lines []string
	env, err = Connect(context.Background(), Options{DataDir: data, Log: &hookLog{on: func(l string) { lines = append(lines, l) }}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res, err := env.Run(context.Background(), plan, RunOptions{OutDir: t.TempDir()})
	if err != nil {
		t.Fatalf("the run after the interrupted one: %v", err)
	}
	wantSteps(t, res, "a/cold", "a/changed=1000", "a/changed=15000")
	if !strings.Contains(strings.Join(lines, "\n"), "did not finish") {
		t.Errorf("the refill does not say why:\n%s", strings.Join(lines, "\n"))
	}
}

// TestColdAfterAWarmCaseRestoresTheFill: a warm case before a cold one
// leaves the changelog changed; the cold case refills it first and
// restores the fill, verified, instead of failing every repeat.
func TestColdAfterAWarmCaseRestoresTheFill(t *testing.T) {
	plan, err := profiles.Parse([]byte(`
fill: {records: 5000, keys: 800, partitions: 2}
cases:
  - name: w
    scenario: warm
    warm: {changed: [1000], fallback: false}
  - name: c
`), "order.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, t.TempDir())
	defer env.Close()
	res, err := env.Run(context.Background(), plan, RunOptions{OutDir: t.TempDir()})
	if err != nil {
		t.Fatalf("warm then cold: %v", err)
	}
	wantSteps(t, res, "w/cold", "w/changed=1000", "c")
}
