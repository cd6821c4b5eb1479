package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// limitMeter measures and caches the limits of a run's cases: fetch-only
// once per distinct consumer configuration, write-only once per distinct
// store configuration, both against a local dump of the changelog, one
// per isolation level (read committed, a transactional changelog's
// aborted records are not in it).
type limitMeter struct {
	env       *Env
	topic     string
	appID     string
	storeName string
	dumpDir   string
	dumped    map[string]bool       // by isolation level
	offsets   *cluster.TopicOffsets // listed on the first measurement
	fetch     map[string]measure.Limit
	write     map[string]measure.Limit
}

func newLimitMeter(env *Env, topic, appID, storeName, dir string) *limitMeter {
	return &limitMeter{env: env, topic: topic, appID: appID, storeName: storeName, dumpDir: dir,
		dumped: map[string]bool{}, fetch: map[string]measure.Limit{}, write: map[string]measure.Limit{}}
}

// limitRuns is how many times each limit is measured; the fastest counts.
const limitRuns = 2

// forCase returns the limits of case c.
func (m *limitMeter) forCase(ctx context.Context, c config.Case) (*runs.Limits, error) {
	if m.offsets == nil {
		o, err := m.env.Offsets(ctx, m.topic)
		if err != nil {
			return nil, err
		}
		m.offsets = &o
	}
	offsets := *m.offsets
	instance := func(stateDir string) *engine.Instance {
		return &engine.Instance{Cluster: m.env.Cluster, StateDir: stateDir, AppID: m.appID, StoreName: m.storeName,
			Case: c, StallTimeout: m.env.Opts.StallTimeout}
	}
	iso := c.IsolationLevel()
	fetchKey := fmt.Sprintf("t%d b%d f%d p%d %s", c.Threads, c.BatchRecords, c.FetchMaxBytes, c.MaxPartitionFetchBytes, iso)
	fetch, ok := m.fetch[fetchKey]
	if !ok {
		m.env.Logf("limits: fetch-only (%s), best of %d", fetchKey, limitRuns)
		for i := 0; i < limitRuns; i++ {
			l, err := instance(filepath.Join(m.dumpDir, "fetch-only")).FetchOnly(ctx, offsets)
			if err != nil {
				return nil, err
			}
			fetch = faster(fetch, l)
		}
		m.fetch[fetchKey] = fetch
	}
	opts, _ := json.Marshal(c.RocksDB)
	writeKey := fmt.Sprintf("%s %s b%d t%d s%d %s %s", c.Strategy, c.Store, c.BatchRecords, c.Threads, c.SortBuffer, opts, iso)
	write, ok := m.write[writeKey]
	if !ok {
		dump := filepath.Join(m.dumpDir, iso)
		if !m.dumped[iso] {
			m.env.Logf("limits: copying the changelog (%s) to local disk for write-only replays", iso)
			if err := instance(filepath.Join(m.dumpDir, "dump-state")).Dump(ctx, offsets, dump); err != nil {
				return nil, err
			}
			m.dumped[iso] = true
		}
		m.env.Logf("limits: write-only (strategy %s, batch %d, threads %d), best of %d", c.Strategy, c.BatchRecords, c.Threads, limitRuns)
		for i := 0; i < limitRuns; i++ {
			debug.FreeOSMemory()
			l, err := instance(filepath.Join(m.dumpDir, "write-only")).WriteOnly(ctx, dump, offsets.Partitions())
			if err != nil {
				return nil, err
			}
			write = faster(write, l)
		}
		m.write[writeKey] = write
	}
	l := runs.NewLimits(fetch, write, limitRuns, runtime.NumCPU())
	return &l, nil
}

// faster returns the faster of two measurements of one limit (a zero Limit
// is no measurement yet).
func faster(a, b measure.Limit) measure.Limit {
	if a.Duration == 0 || (b.Duration > 0 && b.Duration < a.Duration) {
		return b
	}
	return a
}

// close removes the dump.
func (m *limitMeter) close() { os.RemoveAll(m.dumpDir) }
