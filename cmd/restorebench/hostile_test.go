package main

// The hostile-input suite: each test drives the CLI in-process, as a user
// (or a careless script) would, with input meant to break it, and asserts
// that the error names the problem and that nothing is reported verified
// that is not. Everything runs on the embedded broker (hermetic).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restorebench/restorebench/internal/statedir"
	"github.com/restorebench/restorebench/runs"
)

// cli runs the CLI in-process and returns what it wrote and its error.
// It runs in a fresh working directory, so default output paths
// (results/<run-id>) land there, not in the source tree.
func cli(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	t.Chdir(t.TempDir())
	cmd := newRootCmd()
	cmd.SetArgs(args)
	var o, e bytes.Buffer
	cmd.SetOut(&o)
	cmd.SetErr(&e)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err = cmd.ExecuteContext(ctx)
	return o.String(), e.String(), err
}

// wantErr fails t unless err is non-nil and names every one of want.
func wantErr(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want one naming %q", what, want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("%s: error %q does not name %q", what, err, w)
		}
	}
}

// smallFill are fill flags for a fill of a few MB that takes well under a second.
var smallFill = []string{"--records", "20000", "--keys", "3000", "--partitions", "2", "--value-size", "10-200"}

// TestHostileExplicitInvalidValues: an explicit invalid value is an error
// naming the flag or field, never silently the default.
func TestHostileExplicitInvalidValues(t *testing.T) {
	dir := t.TempDir()
	n := 0
	profile := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("p%d.yaml", n))
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"fill", "--records", "10", "--keys", "0"}, "--keys: 0 must be positive"},
		{[]string{"fill", "--records", "10", "--partitions", "0"}, "--partitions: 0 must be positive"},
		{[]string{"fill", "--records", "0"}, "--records: 0 must be positive"},
		{[]string{"fill", "--size", "0"}, "--size: 0 must be positive"},
		{[]string{"fill", "--size", "1MB", "--records", "5"}, "--size: set size or records, not both"},
		{[]string{"fill", "--records", "10", "--tombstone-ratio", "NaN"}, "--tombstone-ratio"},
		{[]string{"fill", "--records", "10", "--value-size", "1.5"}, "--value-size: value size: size \"1.5\" is not a whole number of bytes"},
		{[]string{"fill", "--records", "10", "--application-id", ".."}, "--application-id"},
		{[]string{"fill", "--records", "10", "--topic", "a/b"}, "--topic"},
		{[]string{"restore", "--batch-records", "0"}, "--batch-records: 0 must be positive"},
		{[]string{"restore", "--threads", "0"}, "--threads: 0 must be positive"},
		{[]string{"restore", "--repeats", "0"}, "--repeats"},
		{[]string{"restore", "--sort-buffer", "0"}, "--sort-buffer"},
		{[]string{"restore", "--store", ".."}, "--store"},
		{[]string{"restore", "--partitions", ""}, "--partitions: no partition named"},
		{[]string{"restore", "--partitions", "3,1,3"}, "--partitions: partition 3 is named twice"},
		{[]string{"restore", "--partitions", "one"}, `--partitions: "one" is not a partition number`},
		{[]string{"restore", "--partitions", "-2"}, `--partitions: "-2" is not a partition number`},
		{[]string{"run", "quick", "--repeats", "0"}, "--repeats: 0 must be positive"},
		{[]string{"--stall-timeout", "0", "restore"}, "--stall-timeout"},
		{[]string{"--stall-timeout", "-1s", "restore"}, "--stall-timeout"},
		{[]string{"--connect-timeout", "-1s", "restore"}, "--connect-timeout"},
		{[]string{"run", profile("fill: {records: 10, keys: 0}\n")}, "line 1: fill.keys: 0 must be positive"},
		{[]string{"run", profile("fill: {records: 10}\nrepeats: 0\n")}, "line 2: repeats: 0 must be positive"},
		{[]string{"run", profile("fill: {records: 10}\ncases:\n  - name: a\n    batch_records: 0\n")}, "line 4: cases[0].batch_records: 0 must be positive"},
		{[]string{"run", profile("fill: {keys: \"lots\", records: 10}\n")}, `line 1: fill.keys: "lots" is not an integer`},
		{[]string{"run", profile("fill: {records: 10, tombstone_ratio: .nan}\n")}, "fill.tombstone_ratio"},
		{[]string{"audit", "--application-id", "orders", "--streams-config", profile("session.timeout.ms=1\n")},
			"session.timeout.ms 1 is outside 6000..1800000"},
		{[]string{"audit", "--application-id", "orders", "--streams-config", profile("session.timeout.ms=10000\nheartbeat.interval.ms=20000\n")},
			"heartbeat.interval.ms 20000 is not lower than session.timeout.ms 10000"},
		{[]string{"audit", "--application-id", strings.Repeat("a", 2000)}, "--application-id: \"aaaa"},
		{[]string{"audit", "--application-id", "orders/" + strings.Repeat("a", 2000)}, "may hold only letters"},
		{[]string{"fill", "--records", "10", "--application-id", strings.Repeat("a", 2000)}, "is 2000 characters; at most 237"},
		{[]string{"restore", "--application-id", strings.Repeat("a", 238), "--topic", "t"}, "is 238 characters; at most 237"},
		{[]string{"audit", "--application-id", "orders", "--max-read", "-2"}, "--max-read: -2 is negative"},
	}
	for _, c := range cases {
		_, _, err := cli(t, append([]string{"--data-dir", dir}, c.args...)...)
		wantErr(t, strings.Join(c.args, " "), err, c.want)
		if len(err.Error()) > 500 { // an invalid value is named, not echoed in full
			t.Errorf("%.80s: an error of %d characters", strings.Join(c.args, " "), len(err.Error()))
		}
	}
}

// TestHostileTamperedManifest: a fill manifest is a claim, not evidence.
// Edited to name another seed (or size), it must not make a topic holding
// seed-1 data pass for the seed-2 fill: the run refuses the topic, and no
// restore is reported verified.
func TestHostileTamperedManifest(t *testing.T) {
	for name, edit := range map[string]func(spec map[string]any){
		"seed":      func(s map[string]any) { s["seed"] = 2 },
		"value_max": func(s map[string]any) { s["value_max"] = 201 },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, _, err := cli(t, append([]string{"-q", "--data-dir", dir, "fill", "--seed", "1"}, smallFill...)...); err != nil {
				t.Fatal(err)
			}
			manifests, _ := filepath.Glob(filepath.Join(dir, "fills", "*", "*.json"))
			if len(manifests) != 1 {
				t.Fatalf("manifests %v", manifests)
			}
			b, _ := os.ReadFile(manifests[0])
			var m map[string]any
			json.Unmarshal(b, &m)
			edit(m["spec"].(map[string]any))
			spec := m["spec"].(map[string]any)
			b, _ = json.Marshal(m)
			os.WriteFile(manifests[0], b, 0o644)

			// A profile asking for exactly what the edited manifest claims.
			prof := filepath.Join(dir, "claimed.yaml")
			os.WriteFile(prof, []byte(strings.Join([]string{
				"fill:",
				"  records: 20000",
				"  keys: 3000",
				"  partitions: 2",
				"  value_size: 10-" + jsonNumber(spec["value_max"]),
				"  seed: " + jsonNumber(spec["seed"]),
				"cases: [{name: a}]",
			}, "\n")+"\n"), 0o644)
			out := filepath.Join(dir, "out")
			_, stderr, err := cli(t, "-q", "--data-dir", dir, "run", prof, "--out", out, "--no-plots")
			wantErr(t, "run over a tampered manifest", err, "does not hold this fill", "--refill")
			if strings.Contains(stderr, "reusing") {
				t.Fatalf("the tampered fill was reused:\n%s", stderr)
			}
			if res, err := runs.Load(filepath.Join(out, "results.json")); err == nil {
				for _, r := range res.Restores {
					if r.Verified {
						t.Fatalf("restore %s #%d reported verified over the wrong data", r.Case, r.Repeat)
					}
				}
			}
		})
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestHostileForceWipesOnlyOwnState: --force may wipe only state
// restorebench created; the embedded broker's log, the fill manifests and
// a results directory are refused, and stay as they were.
func TestHostileForceWipesOnlyOwnState(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := cli(t, append([]string{"-q", "--data-dir", dir, "fill"}, smallFill...)...); err != nil {
		t.Fatal(err)
	}
	before := du(t, filepath.Join(dir, "broker"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", dir, "--state-dir", dir, "restore", "--application-id", "broker", "--force"}, "broker"},
		{[]string{"--data-dir", dir, "--state-dir", dir, "restore", "--application-id", "fills", "--force"}, "fills"},
		{[]string{"--data-dir", dir, "--state-dir", filepath.Dir(dir), "restore", "--application-id", filepath.Base(dir), "--force"}, "contains"},
	} {
		_, _, err := cli(t, append([]string{"-q"}, c.args...)...)
		wantErr(t, strings.Join(c.args, " "), err, c.want, "refusing")
	}
	if after := du(t, filepath.Join(dir, "broker")); after != before || !exists(filepath.Join(dir, "broker", ".lock")) {
		t.Fatalf("the broker's log changed: %d bytes before, %d after", before, after)
	}
	// A results directory.
	res := t.TempDir()
	os.WriteFile(filepath.Join(res, "results.json"), []byte("{}"), 0o644)
	_, _, err := cli(t, "-q", "--data-dir", dir, "--state-dir", filepath.Dir(res), "restore", "--application-id", filepath.Base(res), "--force")
	wantErr(t, "restore into a results dir", err, "results")
	if !exists(filepath.Join(res, "results.json")) {
		t.Fatal("results.json was wiped")
	}
	// A directory restorebench did not create.
	foreign := filepath.Join(dir, "state", "mine")
	os.MkdirAll(filepath.Join(foreign, "precious"), 0o755)
	_, _, err = cli(t, "-q", "--data-dir", dir, "restore", "--application-id", "mine", "--force")
	wantErr(t, "restore into a foreign dir", err, "did not create")
	if !exists(filepath.Join(foreign, "precious")) {
		t.Fatal("a directory restorebench did not create was wiped")
	}
}

// TestHostileEmptyValues: a fill of empty values restores and verifies:
// empty values are live keys, not tombstones.
func TestHostileEmptyValues(t *testing.T) {
	dir := t.TempDir()
	for _, vs := range []string{"0", "0-20"} {
		args := []string{"-q", "--data-dir", dir, "fill", "--records", "10000", "--keys", "2000", "--partitions", "2", "--value-size", vs, "--refill"}
		if _, _, err := cli(t, args...); err != nil {
			t.Fatal(err)
		}
		for _, store := range []string{"rocksdb", "memory"} {
			out := filepath.Join(t.TempDir(), "out")
			_, _, err := cli(t, "-q", "--data-dir", dir, "restore", "--store-type", store, "--out", out)
			if err != nil {
				t.Fatalf("value size %s, %s store: %v", vs, store, err)
			}
			res, _ := runs.Load(filepath.Join(out, "results.json"))
			if res == nil || len(res.Restores) != 1 || !res.Restores[0].Verified {
				t.Fatalf("value size %s, %s store: not verified", vs, store)
			}
		}
	}
}

// TestHostileStateDirInUse: two restores into one state directory: the
// second is refused while the first holds it, --force or not.
func TestHostileStateDirInUse(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := cli(t, append([]string{"-q", "--data-dir", dir, "fill"}, smallFill...)...); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	held, err := statedir.Claim(filepath.Join(state, "restorebench"), "restore")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	os.MkdirAll(filepath.Join(state, "restorebench", "0_0"), 0o755)
	_, _, err = cli(t, "-q", "--data-dir", dir, "--state-dir", state, "restore", "--force")
	wantErr(t, "restore into a state dir in use", err, "in use by another restorebench process")
	if !exists(filepath.Join(state, "restorebench", "0_0")) {
		t.Fatal("the other process's state was wiped")
	}
}

// TestHostileBrokenManifest: a truncated or empty manifest is named, with
// what to do, and --refill gets past it.
func TestHostileBrokenManifest(t *testing.T) {
	for name, body := range map[string]string{"truncated": `{"version": 1, "topic": "restorebench-bal`, "empty": ""} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fill := append([]string{"-q", "--data-dir", dir, "fill"}, smallFill...)
			if _, _, err := cli(t, fill...); err != nil {
				t.Fatal(err)
			}
			manifests, _ := filepath.Glob(filepath.Join(dir, "fills", "*", "*.json"))
			os.WriteFile(manifests[0], []byte(body), 0o644)
			_, _, err := cli(t, fill...)
			wantErr(t, "fill over a broken manifest", err, manifests[0], "broken", "--refill")
			_, _, err = cli(t, "-q", "--data-dir", dir, "restore")
			wantErr(t, "restore over a broken manifest", err, manifests[0], "broken")
			if _, _, err := cli(t, append(fill, "--refill")...); err != nil {
				t.Fatalf("--refill did not get past the broken manifest: %v", err)
			}
			if _, _, err := cli(t, "-q", "--data-dir", dir, "restore"); err != nil {
				t.Fatalf("restore after the refill: %v", err)
			}
		})
	}
}

// TestHostileDiskFullOnEmbeddedBroker: a fill whose broker log runs out of
// space says so, and where, instead of UNKNOWN_SERVER_ERROR. The fill's
// estimate (2 MB) passes the free-space check before writing; the log's
// own overhead is what fills the disk. It needs a
// small filesystem: a tmpfs, which root can mount (CI runs as root).
func TestHostileDiskFullOnEmbeddedBroker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; CI runs this test as root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
		t.Fatalf("mount a 2 MiB tmpfs at %s: %v", dir, err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	_, _, err := cli(t, "-q", "--data-dir", dir, "fill", "--size", "2MB", "--keys", "1000")
	wantErr(t, "fill onto a full disk", err, "no space left on device", dir)
	if strings.Contains(err.Error(), "UNKNOWN_SERVER_ERROR") && !strings.Contains(err.Error(), "no space") {
		t.Fatalf("error hides the cause: %v", err)
	}
}

// TestHostileMisleadingResults: summary and plot never present partial or
// empty results as a whole run, name the file they read, and a run never
// replaces another run's results.
func TestHostileMisleadingResults(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(prof, []byte("fill: {records: 8000, keys: 1000, partitions: 2}\ncases: [{name: a}]\n"), 0o644)
	out := filepath.Join(dir, "out")
	if _, _, err := cli(t, "-q", "--data-dir", dir, "run", prof, "--out", out, "--no-plots"); err != nil {
		t.Fatal(err)
	}
	_, _, err := cli(t, "-q", "--data-dir", dir, "run", prof, "--out", out, "--no-plots")
	wantErr(t, "a second run into the same --out", err, "already holds a run's results")
	_, _, err = cli(t, "-q", "--data-dir", dir, "restore", "--application-id", "x", "--topic", "none", "--out", out)
	wantErr(t, "a restore into a run's --out", err, "already holds a run's results")

	path := filepath.Join(out, "results.json")
	res, err := runs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, edit func(*runs.Results)) string {
		r := *res
		edit(&r)
		p := filepath.Join(dir, name)
		if err := r.Save(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	renamed := write("renamed.json", func(*runs.Results) {})
	stdout, _, err := cli(t, "summary", renamed)
	if err != nil || !strings.Contains(stdout, "results: "+renamed) {
		t.Fatalf("summary of a renamed file: %v\n%s", err, stdout)
	}
	interrupted := write("interrupted.json", func(r *runs.Results) { r.Complete, r.Error = false, "interrupted during case b #1: context canceled" })
	stdout, _, err = cli(t, "summary", interrupted)
	wantErr(t, "summary of an interrupted run", err, "incomplete")
	if !strings.Contains(stdout, "INCOMPLETE") {
		t.Fatalf("summary of an interrupted run shows no note:\n%s", stdout)
	}
	killed := write("killed.json", func(r *runs.Results) { r.Complete, r.Error = false, runs.ErrorInProgress })
	stdout, _, err = cli(t, "summary", killed)
	wantErr(t, "summary of a killed run", err, "never finished")
	empty := write("empty.json", func(r *runs.Results) { r.Restores = nil })
	_, _, err = cli(t, "summary", empty)
	wantErr(t, "summary of a run without restores", err, "nothing to summarize")
	_, _, err = cli(t, "plot", empty, "--out", filepath.Join(dir, "plots"))
	wantErr(t, "plot of a run without restores", err, "nothing to plot")
	_, _, err = cli(t, "plot", interrupted, "--out", filepath.Join(dir, "plots"))
	wantErr(t, "plot of an interrupted run", err, "incomplete")
}

// TestHostileOrphanedStateIsCleaned: stores a killed run left under the
// state dir are removed (and said so) by the next run.
func TestHostileOrphanedStateIsCleaned(t *testing.T) {
	dir := t.TempDir()
	orphan := filepath.Join(dir, "state", "20260101-000000-killed")
	d, err := statedir.Claim(orphan, "run")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(orphan, "a-1", "restorebench", "0_0", "rocksdb"), 0o755)
	os.WriteFile(filepath.Join(orphan, "a-1", "restorebench", "0_0", "rocksdb", "000001.sst"), make([]byte, 4096), 0o644)
	d.Release() // as SIGKILL would
	prof := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(prof, []byte("fill: {records: 4000, keys: 500}\ncases: [{name: a}]\n"), 0o644)
	_, stderr, err := cli(t, "--data-dir", dir, "run", prof, "--out", filepath.Join(dir, "out"), "--no-plots")
	if err != nil {
		t.Fatal(err)
	}
	if exists(orphan) || !strings.Contains(stderr, "left by a run that did not finish") {
		t.Fatalf("orphaned state: still there=%v; log:\n%s", exists(orphan), stderr)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "state")); len(ents) != 0 {
		t.Fatalf("state dir not empty after the run: %v", ents)
	}
}

// TestHostileForeignTopicIsReported: restoring a topic restorebench did
// not fill prints what a user came for (time, MB/s, records, live keys and
// bytes) and says it was verified against an independent read of the
// topic.
func TestHostileForeignTopicIsReported(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := cli(t, append([]string{"-q", "--data-dir", dir, "fill", "--topic", "their-changelog"}, smallFill...)...); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "fills"))
	stdout, _, err := cli(t, "-q", "--data-dir", dir, "restore", "--topic", "their-changelog", "--out", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"verified against an independent read", "20000 records", "restored in", "MB/s", "live keys", "MB live"} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("restore of a foreign topic does not print %q:\n%s", want, stdout)
		}
	}
}

// TestHostileProgressOffTerminal: progress written to a pipe or a log has
// no carriage-return frames.
func TestHostileProgressOffTerminal(t *testing.T) {
	dir := t.TempDir()
	_, stderr, err := cli(t, append([]string{"--data-dir", dir, "fill"}, smallFill...)...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(stderr, '\r') {
		t.Fatalf("carriage returns in non-terminal output: %q", stderr)
	}
}

// TestCPUProfileSurvivesFailure: --cpuprofile is written when the command
// fails, as main stops the profile after Execute returns either way.
func TestCPUProfileSurvivesFailure(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	root, g := newRoot()
	root.SetArgs([]string{"--cpuprofile", prof, "run", "no-such-profile"})
	root.SetOut(new(bytes.Buffer))
	root.SetErr(new(bytes.Buffer))
	err := root.Execute()
	g.stopProfile()
	if err == nil {
		t.Fatal("the command did not fail")
	}
	if st, serr := os.Stat(prof); serr != nil || st.Size() == 0 {
		t.Fatalf("CPU profile after a failure: %v (size %v)", serr, st)
	}
	// A profile left running would make the next StartCPUProfile fail.
	if err := pprof.StartCPUProfile(new(bytes.Buffer)); err != nil {
		t.Fatalf("the CPU profile was not stopped: %v", err)
	}
	pprof.StopCPUProfile()
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func du(t *testing.T, dir string) int64 {
	t.Helper()
	out, err := exec.Command("du", "-sb", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range strings.Fields(string(out))[0] {
		n = n*10 + int64(c-'0')
	}
	return n
}

// TestHostileFailoverOnTheEmbeddedBroker: the failover profile on the
// embedded broker is refused before any fill, with the way to a real one.
func TestHostileFailoverOnTheEmbeddedBroker(t *testing.T) {
	dir := t.TempDir()
	_, _, err := cli(t, "-q", "--data-dir", dir, "run", "failover", "--out", filepath.Join(dir, "out"))
	wantErr(t, "failover on the embedded broker", err, "needs a real broker", "--brokers")
	if _, statErr := os.Stat(filepath.Join(dir, "out", "results.json")); statErr == nil {
		t.Fatal("a refused run wrote results")
	}
}
