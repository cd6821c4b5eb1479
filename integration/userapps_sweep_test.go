package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/profiles"
)

// userAppsSweepProfile is a shape sweep as a user runs one before `plan
// --from-topic` (`restorebench run shapes`), cut to what the user-style
// applications need: the kafka-streams engine alone, with Kafka Streams'
// defaults and one stream thread, over 16 B and 40 B records at 1 and 20
// records per key (and 100, the 8-byte keys: a word count of a few million
// updates holds about 50 per word), each at two sizes so a fixed cost per
// restore is told from the cost per record; and shapes of Zipf keys, as
// words and pages are, whose records restore faster. Its sizes follow the
// applications' (userAppsSweepSizes), so the plan answers for a shape it
// has not measured, not for a size ten times any it has: a task's cost
// per record grows once its memtables flush (16 MB each in Kafka Streams'
// defaults, about 300 k small records), which a sweep of smaller restores
// never sees. It runs on this machine beside the applications, so the plan
// answers from what this machine does now, not from a run of another day
// (the 2-core machine here ran the built-in sweep's restores 1.7-2× slower
// on one day than on another).
const userAppsSweepProfile = `
name: userapps-shapes
application_id: %s
fill:
  key_order: uniform
  partitions: 2
  compression: none
  seed: 1
shapes:
%s` + userAppsSweepSetting

// userAppsSweepShapes are userAppsSweepProfile's shapes: a name, the
// shape's fill fields, and how many records it holds per key (0: ten
// times as many keys as records, about 1.05 records per live key).
var userAppsSweepShapes = []userAppsShape{
	{"k8-v8-r1", k8v8, 0, 10_000_000},
	{"k8-v8-r20", k8v8, 20, 0},
	{"k8-v8-r100", k8v8, 100, 0},
	{"v24-r1", "value_size: 24", 0, 0},
	{"v24-r20", "value_size: 24", 20, 0},
	// Zipf(1.1) keys, as words and pages are: about 45% of the records
	// hot (their key among their partition's last 64), against 0–4% for
	// the uniform shapes, so the cost prices a hot record apart.
	{"k8-v8-zipf-r30", k8v8 + ", key_order: zipf", 30, 0},
	{"v24-zipf-r30", "value_size: 24, key_order: zipf", 30, 0},
}

// userAppsWindowSweepProfile is userAppsSweepProfile's sweep over window
// stores (fill.store_kind: window, one-minute windows over 50 minutes of
// events kept two hours, as the windowed count's), so a plan for a window
// store's changelog answers from a cost fitted on window stores. A
// window store's changelog key is the record key and its window: the
// "r3" shapes draw from 50 windows × 3 records fewer keys than records,
// so each key's window is updated about 3 times, as a count per window
// is at a few hundred thousand clicks; the "r10" ones about 10 times (the
// windowed count holds 6.5 at 3 M clicks). The 8-byte keys make 28 B a
// record (key, window start and sequence number, value), about the
// windowed count's.
const userAppsWindowSweepProfile = `
name: userapps-window-shapes
application_id: %s
fill:
  key_order: uniform
  partitions: 2
  compression: none
  seed: 1
  store_kind: window
  time_range: 50m
  window_size: 1m
  retention: 2h
shapes:
%s` + userAppsSweepSetting

// userAppsWindowSweepShapes are userAppsWindowSweepProfile's shapes; their
// records per key are per key and window (50 windows). The "r1" shape's
// keys stop at 3 M (150 M key-windows, still about one record each): a
// fill's expected state is derived for at most 400 M key-windows
// (loadgen's limit), and 3 M keys have 122 windows each within the
// retention.
var userAppsWindowSweepShapes = []userAppsShape{
	{"w-v8-r1", k8v8, 0, 3_000_000},
	{"w-v8-r3", k8v8, 3 * 50, 0},
	{"w-v8-r10", k8v8, 10 * 50, 0},
	{"w-v40-r3", "value_size: 40", 3 * 50, 0},
	{"w-v8-zipf-r10", k8v8 + ", key_order: zipf", 10 * 50, 0},
}

// k8v8 is the fill fields of 8-byte keys ("k" and 7 digits: at most 10 M
// of them, the "r1" shape's cap) and 8-byte values.
const k8v8 = "key_bytes: 8, value_size: 8"

// userAppsShape is one shape of a user-style sweep.
type userAppsShape struct {
	name   string
	fields string
	// perKey is how many records the shape draws per key (0: ten times
	// as many keys as records).
	perKey int
	// maxKeys caps the keys drawn from (0: no cap).
	maxKeys int
}

// userAppsSweepSizes are the record counts every shape of the sweeps is
// filled at: half the applications' updates and all of them (150 k and
// 300 k at the default size), each application writing about one
// changelog record an update.
func userAppsSweepSizes(updates int) []int { return []int{updates / 2, updates} }

// sweepShapesYAML is the shapes list of a sweep profile: every shape at
// every size, named <shape>-<records>.
func sweepShapesYAML(shapes []userAppsShape, sizes []int) string {
	var b strings.Builder
	for _, s := range shapes {
		for _, n := range sizes {
			keys := 10 * n
			if s.maxKeys > 0 {
				keys = min(keys, s.maxKeys)
			}
			if s.perKey > 0 {
				keys = max(n/s.perKey, 1)
			}
			fmt.Fprintf(&b, "  - {name: %s-%s, %s, records: %d, keys: %d}\n", s.name, shortCount(n), s.fields, n, keys)
		}
	}
	return b.String()
}

// shortCount names a record count as the sweeps' shapes do: 150k, 3m.
func shortCount(n int) string {
	switch {
	case n%1_000_000 == 0:
		return fmt.Sprintf("%dm", n/1_000_000)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// userAppsSweepSetting is both sweeps' one setting: Kafka Streams'
// defaults, one stream thread, the kafka-streams engine alone, the
// cleaner held, two repeats: a restore of one changelog swung 8.2-12.9 s
// between rounds of one test at 3 M records here, and the cost's five
// terms are fitted over these restores alone.
const userAppsSweepSetting = `restore:
  batch_records: 1000
  threads: 1
  rocksdb: kstreams
cases:
  - name: kafka-streams
    engine: kafka-streams
hold_cleaner: true
ready: false
repeats: 2
`

// userAppsSweep holds the sweep's runs once the first application's test
// has run it; the other reuses them.
var userAppsSweep struct {
	sync.Mutex
	runs []*capacity.Run
}

// sweepShapes runs userAppsSweepProfile on env once per test binary and
// returns its runs, loaded as `plan` loads a results directory. Its topics
// are deleted when the test that ran it ends.
func sweepShapes(t *testing.T, env *bench.Env, updates int) []*capacity.Run {
	t.Helper()
	userAppsSweep.Lock()
	defer userAppsSweep.Unlock()
	if userAppsSweep.runs != nil {
		return userAppsSweep.runs
	}
	var dirs []string
	sizes := userAppsSweepSizes(updates)
	for i, sweep := range []struct {
		profile string
		shapes  []userAppsShape
	}{{userAppsSweepProfile, userAppsSweepShapes}, {userAppsWindowSweepProfile, userAppsWindowSweepShapes}} {
		app := fmt.Sprintf("%s-shapes%d", testkafka.TopicName(t), i)
		t.Cleanup(func() { deleteUserApp(env, app, app) })
		plan, err := profiles.Parse(fmt.Appendf(nil, sweep.profile, app, sweepShapesYAML(sweep.shapes, sizes)), "userapps-shapes.yaml")
		if err != nil {
			t.Fatal(err)
		}
		// RESTOREBENCH_USERAPPS_KEEP=DIR keeps the sweep's results in DIR
		// (a directory per profile), to plan from or look at after the
		// test; a temporary directory otherwise.
		keep := os.Getenv("RESTOREBENCH_USERAPPS_KEEP")
		if keep == "" {
			keep = t.TempDir()
		}
		dir := filepath.Join(keep, plan.Name)
		if _, err := env.Run(context.Background(), plan, bench.RunOptions{OutDir: dir}); err != nil {
			t.Fatalf("the shape sweep %s beside the applications: %v", plan.Name, err)
		}
		dirs = append(dirs, dir)
	}
	rs, err := capacity.LoadRuns(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range rs {
		for _, r := range run.Results.Restores {
			if !r.Verified || r.Error != "" {
				t.Fatalf("the shape sweep's %s did not verify: %q", r.Case, r.Error)
			}
		}
	}
	userAppsSweep.runs = rs
	return rs
}
