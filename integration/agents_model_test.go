package integration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
)

// TestAgentsModelColdOnAnAgent has the first agent write the fill, then
// runs a model-engine cold restore with its instance placed by the
// profile's rule (role active pinned to zone b,
// the second of two agents run as separate processes): the agent restores
// into a state dir under its own --state-dir, its record names that agent
// and its host, carries the agent process's CPU and RSS and RocksDB's
// figures, and verifies here against the fill's expected state; a restore
// checked against a different expected state does not verify; a model
// warm restart on that agent restores only the records written while it
// was down, verified; nothing of the run stays on this machine or on the
// agents.
func TestAgentsModelColdOnAnAgent(t *testing.T) {
	t.Parallel()
	names := agentNames(t, 2)
	agents := []*agentProc{startAgent(t, names[0], "zone=a", t.TempDir()), startAgent(t, names[1], "zone=b", t.TempDir())}
	env := connect(t, bench.Options{Agents: names})
	env.Agents.SetPlacement([]config.PlacementRule{{Role: config.RoleActive, Labels: map[string]string{"zone": "b"}}})
	app := ksApp(t, env)
	fill := agentsFill(t, env, app, 5_000)
	if fill.OnAgent == nil || fill.OnAgent.Agent != names[0] {
		t.Fatalf("the fill was written by %+v, not by the first agent %s", fill.OnAgent, names[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	c := config.DefaultCase()
	c.Name, c.Scenario = "model-cold-agent", config.ScenarioCold
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	rec, err := env.RunCase(ctx, fill, app, ksStore, c, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, rec)
	on := rec.OnAgent
	if !rec.Verified || rec.Records != 30_000 || on == nil || on.Agent != names[1] || on.Hostname == "" {
		t.Fatalf("model cold on an agent: verified=%v records=%d on %+v (%s)", rec.Verified, rec.Records, on, rec.Error)
	}
	if !strings.HasPrefix(on.StateDir, agents[1].stateDir+string(filepath.Separator)) {
		t.Fatalf("restored into %s, not under agent %s's --state-dir %s", on.StateDir, names[1], agents[1].stateDir)
	}
	if rec.Phase.CPUSeconds <= 0 || rec.Phase.PeakRSSBytes <= 0 || rec.Model.RocksDB.FlushBytes+rec.Model.RocksDB.MemtableBytes <= 0 || rec.Phase.DiskBytes <= 0 || len(rec.Series) == 0 {
		t.Fatalf("measured: cpu=%.2f rss=%d rocksdb=%+v disk=%d series=%d", rec.Phase.CPUSeconds, rec.Phase.PeakRSSBytes, rec.Model.RocksDB, rec.Phase.DiskBytes, len(rec.Series))
	}
	t.Logf("model cold restore on agent %s (%s): %d records in %.2fs (%.1f MB/s), CPU %.2fs, RSS %d MiB, into %s",
		on.Agent, on.Hostname, rec.Records, rec.Phase.Seconds, rec.Phase.MBPerSec, rec.Phase.CPUSeconds, rec.Phase.PeakRSSBytes>>20, on.StateDir)

	wrong := fill
	wrong.Derived.Expected = slices.Clone(fill.Derived.Expected)
	wrong.Derived.Expected[0].Keys++
	rec, err = env.RunCase(ctx, wrong, app, ksStore, c, dir)
	if !errors.Is(err, fleet.ErrUnverified) || rec.Verified || !strings.Contains(rec.Error, "partition 0") {
		t.Fatalf("a restore checked against another expected state: verified=%v err=%v (%s)", rec.Verified, err, rec.Error)
	}
	w := config.DefaultCase()
	w.Name, w.Scenario = "model-warm-agent", config.ScenarioWarm
	w.Warm = &config.WarmSettings{Changed: []config.Count{{N: 3000}}}
	if err := w.Finalize(); err != nil {
		t.Fatal(err)
	}
	recs, err := env.RunCaseAll(ctx, fill, app, ksStore, w, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, recs...)
	if len(recs) != 2 || !recs[1].Verified || recs[1].Records != 3000 || recs[1].Warm.WarmTasks != 3 || recs[1].OnAgent == nil || recs[1].OnAgent.Agent != names[1] {
		t.Fatalf("model warm on an agent: %d records; the warm step: %+v (%s)", len(recs), recs[len(recs)-1].Warm, recs[len(recs)-1].Error)
	}
	t.Logf("model warm restart on agent %s: %d records in %.2fs", names[1], recs[1].Records, recs[1].Phase.Seconds)
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("the restore ran on an agent, yet this machine's state dir holds %v", left)
	}
	for _, a := range agents {
		noJVMUnder(t, a.stateDir)
		if left, _ := filepath.Glob(filepath.Join(a.stateDir, "rb-*")); len(left) > 0 {
			t.Errorf("agent %s kept %v", a.name, left)
		}
	}
}

// TestAgentKilledMidModelRestore kills the agent (SIGKILL, so it says
// nothing) while it runs a model restore: the restore fails within
// seconds with the error a kafka-streams instance's lost agent gives,
// naming the agent, and its record is not verified.
func TestAgentKilledMidModelRestore(t *testing.T) {
	t.Parallel()
	names := agentNames(t, 1)
	victim := startAgent(t, names[0], "zone=a", t.TempDir())
	env := connect(t, bench.Options{Agents: names, AgentHeartbeatTimeout: 2 * time.Second})
	app := ksApp(t, env)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 600_000, 200_000, 50, 100, 4
	fill := ksFill(t, env, app, spec, "lz4")
	c := config.DefaultCase()
	c.Name, c.Scenario = "model-cold-killed", config.ScenarioCold
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	killed := make(chan time.Time, 1)
	go func() {
		defer close(killed)
		for range 3000 {
			victim.mu.Lock()
			started := strings.Contains(victim.log.String(), "model restore of")
			victim.mu.Unlock()
			if started {
				time.Sleep(200 * time.Millisecond)
				killed <- time.Now()
				victim.cmd.Process.Kill()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := env.RunCase(ctx, fill, app, ksStore, c, t.TempDir())
	killedAt, ok := <-killed
	if !ok {
		t.Fatalf("the agent was never killed (the restore ended: verified=%v, %v)", rec.Verified, err)
	}
	if !errors.Is(err, agent.ErrAgentLost) || !strings.Contains(err.Error(), "agent "+victim.name+" lost: it stopped heartbeating") {
		t.Fatalf("a killed agent mid-restore: %v", err)
	}
	if rec.Verified || rec.Error == "" {
		t.Fatalf("the record of the lost restore: verified=%v error %q", rec.Verified, rec.Error)
	}
	if d := time.Since(killedAt); d > 15*time.Second {
		t.Errorf("the error came %s after the kill", d)
	}
	t.Logf("error %s after the kill: %v", time.Since(killedAt).Round(100*time.Millisecond), err)
}
