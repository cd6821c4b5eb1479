package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/profiles"
)

// userAppsSweepProfile is a shape sweep as a user runs one before `plan
// --from-topic` (`restorebench run shapes`), cut to what the user-style
// applications' small size needs: the kafka-streams engine alone, with
// Kafka Streams' defaults and one stream thread, over 16 B and 40 B
// records at 1 and 20 records per key, each at two sizes so a fixed cost
// per restore is told from the cost per record. It runs on this machine
// beside the applications, so the plan answers from what this machine
// does now, not from a run of another day (the 2-core machine here ran
// the built-in sweep's restores 1.7-2× slower on one day than on
// another).
const userAppsSweepProfile = `
name: userapps-shapes
application_id: %s
fill:
  key_order: uniform
  partitions: 2
  compression: none
  seed: 1
shapes:
  - {name: k8-v8-r1-150k,   key_bytes: 8, value_size: 8, records: 150000, keys: 1500000}
  - {name: k8-v8-r1-300k,   key_bytes: 8, value_size: 8, records: 300000, keys: 3000000}
  - {name: k8-v8-r20-150k,  key_bytes: 8, value_size: 8, records: 150000, keys: 7500}
  - {name: k8-v8-r20-300k,  key_bytes: 8, value_size: 8, records: 300000, keys: 15000}
  - {name: v24-r1-150k,     value_size: 24, records: 150000, keys: 1500000}
  - {name: v24-r1-300k,     value_size: 24, records: 300000, keys: 3000000}
  - {name: v24-r20-150k,    value_size: 24, records: 150000, keys: 7500}
  - {name: v24-r20-300k,    value_size: 24, records: 300000, keys: 15000}
` + userAppsSweepSetting

// userAppsWindowSweepProfile is userAppsSweepProfile's sweep over window
// stores (fill.store_kind: window, one-minute windows over 50 minutes of
// events kept two hours, as the windowed count's), so a plan for a window
// store's changelog answers from a cost fitted on window stores. A
// window store's changelog key is the record key and its window: the
// "r3" shapes draw from 50 windows × 3 records fewer keys than records,
// so each key's window is updated about 3 times, as a count per window
// is. The 8-byte keys make 28 B a record (key, window start and
// sequence number, value), about the windowed count's.
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
  - {name: w-v8-r1-150k,   key_bytes: 8, value_size: 8, records: 150000, keys: 1500000}
  - {name: w-v8-r1-300k,   key_bytes: 8, value_size: 8, records: 300000, keys: 3000000}
  - {name: w-v8-r3-150k,   key_bytes: 8, value_size: 8, records: 150000, keys: 1000}
  - {name: w-v8-r3-300k,   key_bytes: 8, value_size: 8, records: 300000, keys: 2000}
  - {name: w-v40-r3-150k,  value_size: 40, records: 150000, keys: 1000}
  - {name: w-v40-r3-300k,  value_size: 40, records: 300000, keys: 2000}
` + userAppsSweepSetting

// userAppsSweepSetting is both sweeps' one setting: Kafka Streams'
// defaults, one stream thread, the kafka-streams engine alone, the
// cleaner held, one repeat.
const userAppsSweepSetting = `restore:
  batch_records: 1000
  threads: 1
  rocksdb: kstreams
cases:
  - name: kafka-streams
    engine: kafka-streams
hold_cleaner: true
ready: false
repeats: 1
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
func sweepShapes(t *testing.T, env *bench.Env) []*capacity.Run {
	t.Helper()
	userAppsSweep.Lock()
	defer userAppsSweep.Unlock()
	if userAppsSweep.runs != nil {
		return userAppsSweep.runs
	}
	var dirs []string
	for i, profile := range []string{userAppsSweepProfile, userAppsWindowSweepProfile} {
		app := fmt.Sprintf("%s-shapes%d", testkafka.TopicName(t), i)
		t.Cleanup(func() { deleteUserApp(env, app, app) })
		plan, err := profiles.Parse(fmt.Appendf(nil, profile, app), "userapps-shapes.yaml")
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), plan.Name)
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
