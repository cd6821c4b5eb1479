package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

// agentsFill fills app's changelog: 30k records, 5k keys, 3 partitions.
func agentsFill(t *testing.T, env *bench.Env, app string, keys int64) bench.FillOutcome {
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.ValueMin, spec.ValueMax, spec.Partitions = 30_000, keys, 100, 200, 3
	return ksFill(t, env, app, spec, "lz4")
}

// TestAgentsColdAndWarmOnAnAgent runs the kafka-streams cold restore and
// the warm-restart sequence with their one instance on an agent chosen by
// placement (role active pinned to zone b, the second of two agents):
// each verifies, names that agent, records the stores' bytes on its disk
// and the JVM's CPU; each warm restart runs on the same agent over the
// state it kept there and restores only what was written while it was
// down; nothing of the run stays on this machine or on the agents.
func TestAgentsColdAndWarmOnAnAgent(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 2)
	agents := []*agentProc{startAgent(t, names[0], "zone=a", t.TempDir()), startAgent(t, names[1], "zone=b", t.TempDir())}
	env := connect(t, bench.Options{Agents: names})
	env.Agents.SetPlacement([]config.PlacementRule{{Role: config.RoleActive, Labels: map[string]string{"zone": "b"}}})
	app := ksApp(t, env)
	fill := agentsFill(t, env, app, 5_000)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	dir := t.TempDir()

	cold := ksCase("cold-agent", 1)
	cold.Scenario = config.ScenarioCold
	if err := cold.Finalize(); err != nil {
		t.Fatal(err)
	}
	rec, err := env.RunCase(ctx, fill, app, ksStore, cold, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, rec)
	if !rec.Verified || rec.Records != 30_000 || rec.KafkaStreams.Placement["i0"] != names[1] || rec.Phase.DiskBytes <= 0 || rec.Phase.CPUSeconds <= 0 {
		t.Fatalf("cold on agent: verified=%v records=%d placement=%v disk=%d cpu=%.2f (%s)", rec.Verified, rec.Records, rec.KafkaStreams.Placement, rec.Phase.DiskBytes, rec.Phase.CPUSeconds, rec.Error)
	}
	t.Logf("cold restore on agent %s: %d records in %.2fs (%.1f MB/s), %d bytes on its disk, CPU %.2fs", names[1], rec.Records, rec.Phase.Seconds, rec.Phase.MBPerSec, rec.Phase.DiskBytes, rec.Phase.CPUSeconds)

	warm := ksCase("warm-agent", 1)
	warm.Scenario = config.ScenarioWarm
	warm.Warm = &config.WarmSettings{Changed: []config.Count{{N: 0}, {N: 3000}}}
	if err := warm.Finalize(); err != nil {
		t.Fatal(err)
	}
	recs, err := env.RunCaseAll(ctx, fill, app, ksStore, warm, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, recs...)
	want := []struct {
		step    runs.StepKind
		records int64
	}{{runs.StepCold, 30_000}, {runs.StepWarm, 0}, {runs.StepWarm, 3000}}
	if len(recs) != len(want) {
		t.Fatalf("%d warm records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		if !r.Verified || r.Warm.Step != w.step || r.Records != w.records || r.KafkaStreams.Placement["i0"] != names[1] {
			t.Fatalf("warm record %d: verified=%v step=%s records=%d placement=%v, want %s with %d on %s (%s)",
				i, r.Verified, r.Warm.Step, r.Records, r.KafkaStreams.Placement, w.step, w.records, names[1], r.Error)
		}
		t.Logf("warm %s on %s: %d records in %.2fs, %d bytes on its disk", r.Warm.Step, names[1], r.Records, r.Phase.Seconds, r.Phase.DiskBytes)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("the instance ran on an agent, yet this machine's state dir holds %v", left)
	}
	for _, a := range agents {
		noJVMUnder(t, a.stateDir)
		if left, _ := filepath.Glob(filepath.Join(a.stateDir, "rb-*")); len(left) > 0 {
			t.Errorf("agent %s kept %v", a.name, left)
		}
	}
}

// tinyDisk mounts a tmpfs of size bytes for the test (root only: without
// it the test is skipped, except under CI=true, where it fails) and
// unmounts it at the end.
func tinyDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("a %s tmpfs for the agent's full disk: %v: %s (the suite runs as root under CI=true)", size, err, out)
		}
		t.Skipf("a %s tmpfs for the agent's full disk needs root: %v: %s", size, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// TestAgentWithAFullDiskRefusesTheRestore gives an agent a 1 MiB state
// disk and asks it for a cold restore of a store of about 3 MB: the
// restore fails at once with one error naming the agent, its free and the
// needed bytes, no record verifies, no JVM started, and the agent stays
// up for the next command.
func TestAgentWithAFullDiskRefusesTheRestore(t *testing.T) {
	t.Parallel()
	needDriver(t)
	disk := tinyDisk(t, "1m")
	names := agentNames(t, 1)
	startAgent(t, names[0], "disk=tiny", disk)
	env := connect(t, bench.Options{Agents: names})
	app := ksApp(t, env)
	fill := agentsFill(t, env, app, 20_000)
	c := ksCase("cold-full-disk", 1)
	c.Scenario = config.ScenarioCold
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	rec, err := env.RunCase(ctx, fill, app, ksStore, c, t.TempDir())
	if err == nil || rec.Verified {
		t.Fatalf("a restore onto a full disk: verified=%v err=%v", rec.Verified, err)
	}
	for _, want := range []string{"agent " + names[0], "not starting instance i0", "has ", "free, the instance needs "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if rec.Error == "" || time.Since(start) > time.Minute {
		t.Errorf("record error %q after %s: want the refusal, at once", rec.Error, time.Since(start))
	}
	t.Logf("full disk: %v", err)
	noJVMUnder(t, disk)
	if err := env.Agents.Lost(names[0]); err != nil {
		t.Errorf("the refusal lost the agent: %v", err)
	}
}

// placementProfile is a scale-out from 1 to 2 instances of app, its
// placement block given.
func placementProfile(app, placement string) string {
	return fmt.Sprintf(`name: placement
application_id: %s
store: %s
fill: {records: 20000, keys: 10000, value_size: 100-300, partitions: 4, compression: lz4}
restore:
  engine: kafka-streams
  scenario: scaleout
  jvm_heap: 256MiB
  scaleout: {before: 1, after: 2, rate: 300, timeout: 2m, lead: 2s, settle: 3s}
  streams: {group.protocol: streams}
ready: false
placement:
%s`, app, ksStore, placement)
}

// TestAgentsProfilePlacement runs a profile whose placement block puts a
// scale-out's initial instance in zone b and the added one in zone a,
// the reverse of round robin over the agents as named (a, then b): each
// instance runs where its role was pinned and the scale-out verifies. A
// rule no agent matches is refused before anything is filled, naming the
// rule, its line and the agents' labels.
func TestAgentsProfilePlacement(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 2)
	agents := []*agentProc{startAgent(t, names[0], "zone=a", t.TempDir()), startAgent(t, names[1], "zone=b", t.TempDir())}
	env := connect(t, bench.Options{Agents: names})
	app := ksApp(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	bad, err := profiles.Parse([]byte(placementProfile(app, "  - {role: added, labels: {zone: c}}\n")), "placement.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = env.Run(ctx, bad, bench.RunOptions{OutDir: t.TempDir()})
	want := fmt.Sprintf("placement[0] (line 13) {role: added, labels: {zone: c}}: no agent of this run has labels zone=c (agents: %s {zone=a}; %s {zone=b})", names[0], names[1])
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("an unmatched rule: %v, want %q", err, want)
	}
	if ends, err := env.Offsets(ctx, config.ChangelogTopic(app, ksStore)); err == nil && len(ends.End) > 0 {
		t.Fatalf("the changelog was filled before the refusal: %v", ends)
	}

	plan, err := profiles.Parse([]byte(placementProfile(app, "  - {role: initial, labels: {zone: b}}\n  - {role: added, labels: {zone: a}}\n")), "placement.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.Run(ctx, plan, bench.RunOptions{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restores) != 1 {
		t.Fatalf("%d records, want 1", len(res.Restores))
	}
	rec := res.Restores[0]
	on := map[string]string{}
	if rec.ScaleOut != nil {
		for _, in := range rec.ScaleOut.Instances {
			on[in.ID] = in.Agent
		}
	}
	if !rec.Verified || on["i0"] != names[1] || on["i1"] != names[0] {
		t.Fatalf("verified=%v (%s), instances on %v: want i0 (initial) on %s (zone b), i1 (added) on %s (zone a)", rec.Verified, rec.Error, on, names[1], names[0])
	}
	t.Logf("scale-out placed by role: i0 on %s (zone b), i1 on %s (zone a), balanced after %.1fs", on["i0"], on["i1"], rec.ScaleOut.WarmupAssignmentSeconds)
	for _, a := range agents {
		noJVMUnder(t, a.stateDir)
	}
}
