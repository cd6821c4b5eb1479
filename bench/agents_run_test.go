package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/scenario"
)

// TestFillAndModelRestoreOnAnAgent runs a fill and a model cold restore
// with an agent (in this process, on the embedded broker): the agent
// writes the fill, which this side still checks the broker holds; the
// agent restores into its own state dir and the record, verified here
// against the fill's expected state, names it; a warm-restart sequence
// restarts on the stores the agent kept, restoring only what was written
// meanwhile, each step verified; nothing lands in this side's state dir
// and nothing stays on the agent.
func TestFillAndModelRestoresOnAnAgent(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	agentDir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key, err := agent.NewKey([]byte("the bench tests' control key, 32 bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(ctx, agent.Config{Cluster: cfg, Name: "a1", StateDir: agentDir, Fill: FillOnAgent, ModelRestore: scenario.RestoreOnAgent, Logf: t.Logf, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	actx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(actx) }()
	defer func() { stop(); <-served }()
	env, err := Connect(ctx, Options{Brokers: cfg.Brokers, DataDir: t.TempDir(), Agents: []string{"a1"}, Quiet: true, Log: testLog{t}, AgentKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 6000, 1500, 50, 150, 3
	fill, err := env.EnsureFill(ctx, FillRequest{Topic: "agent-fill", Spec: spec, Compression: "lz4"})
	if err != nil {
		t.Fatal(err)
	}
	if fill.OnAgent == nil || fill.OnAgent.Agent != "a1" || fill.ToResults().OnAgent == nil || fill.ToResults().Records != 6000 {
		t.Fatalf("fill on %+v, %d records", fill.OnAgent, fill.ToResults().Records)
	}
	c := config.DefaultCase()
	c.Name = "model-cold"
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec, err := env.RunCase(ctx, fill, "app", "store", c, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Verified || rec.Records != 6000 || rec.OnAgent == nil || rec.OnAgent.Agent != "a1" || !strings.HasPrefix(rec.OnAgent.StateDir, agentDir+string(filepath.Separator)) {
		t.Fatalf("restore: verified=%v records=%d on %+v (%s)", rec.Verified, rec.Records, rec.OnAgent, rec.Error)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("the restore ran on the agent, yet this side's state dir holds %v", left)
	}
	if _, err := os.Stat(rec.OnAgent.StateDir); !os.IsNotExist(err) {
		t.Errorf("the agent kept the restored stores at %s: %v", rec.OnAgent.StateDir, err)
	}

	w := config.DefaultCase()
	w.Name, w.Scenario = "model-warm", config.ScenarioWarm
	w.Warm = &config.WarmSettings{Changed: []config.Count{{N: 0}, {N: 900}}}
	if err := w.Finalize(); err != nil {
		t.Fatal(err)
	}
	recs, err := env.RunCaseAll(ctx, fill, "app", "store", w, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		step    runs.StepKind
		records int64
	}{{runs.StepCold, 6000}, {runs.StepWarm, 0}, {runs.StepWarm, 900}}
	if len(recs) != len(want) {
		t.Fatalf("%d warm records, want %d", len(recs), len(want))
	}
	for i, x := range want {
		r := recs[i]
		if !r.Verified || r.Warm == nil || r.Warm.Step != x.step || r.Records != x.records || r.OnAgent == nil || r.OnAgent.Agent != "a1" {
			t.Fatalf("warm record %d: verified=%v warm=%+v records=%d on %+v, want %s with %d records on a1 (%s)", i, r.Verified, r.Warm, r.Records, r.OnAgent, x.step, x.records, r.Error)
		}
		if x.step == runs.StepWarm && (r.Warm.WarmTasks != 3 || r.Warm.ColdSeconds != recs[0].Phase.Seconds) {
			t.Fatalf("warm record %d restarted %d of 3 tasks warm, cold seconds %.3f (the cold step's %.3f)", i, r.Warm.WarmTasks, r.Warm.ColdSeconds, recs[0].Phase.Seconds)
		}
	}
	if err := (&runs.Results{Restores: append([]runs.Restore{rec}, recs...)}).Check(); err != nil {
		t.Fatalf("the records would not be saved: %v", err)
	}
	if left, _ := os.ReadDir(agentDir); len(left) > 0 {
		t.Errorf("the agent kept %v after the sequence", left)
	}
}

// testLog writes a run's progress lines to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
