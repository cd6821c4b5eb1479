package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/engine"
)

// limitMeter measures and caches the limits of a run's cases: fetch-only
// once per distinct consumer configuration, write-only once per distinct
// store configuration, both against one local dump of the changelog.
type limitMeter struct {
	env     *Env
	topic   string
	dumpDir string
	dumped  bool
	offsets *cluster.TopicOffsets // listed on the first measurement
	fetch   map[string]engine.Limit
	write   map[string]engine.Limit
}

func newLimitMeter(env *Env, topic, dir string) *limitMeter {
	return &limitMeter{env: env, topic: topic, dumpDir: dir, fetch: map[string]engine.Limit{}, write: map[string]engine.Limit{}}
}

// forCase returns the limits of the case configured by cfg.
func (m *limitMeter) forCase(ctx context.Context, cfg engine.RestoreConfig) (*CaseLimits, error) {
	if m.offsets == nil {
		o, err := m.env.Offsets(ctx, m.topic)
		if err != nil {
			return nil, err
		}
		m.offsets = &o
	}
	offsets := *m.offsets
	fetchKey := fmt.Sprintf("t%d b%d f%d p%d", cfg.Threads, cfg.BatchRecords, cfg.FetchMaxBytes, cfg.MaxPartitionFetchBytes)
	fetch, ok := m.fetch[fetchKey]
	if !ok {
		fc := cfg
		fc.StateDir = filepath.Join(m.dumpDir, "fetch-only")
		m.env.Logf("limits: fetch-only (%s), best of %d", fetchKey, limitRuns)
		for i := 0; i < limitRuns; i++ {
			l, err := engine.FetchOnly(ctx, m.env.Cluster, offsets, fc)
			if err != nil {
				return nil, err
			}
			fetch = faster(fetch, l)
		}
		m.fetch[fetchKey] = fetch
	}
	opts, _ := json.Marshal(cfg.RocksDB)
	writeKey := fmt.Sprintf("%s %s b%d t%d s%d %s", cfg.Strategy, cfg.Store, cfg.BatchRecords, cfg.Threads, cfg.SortBufferBytes, opts)
	write, ok := m.write[writeKey]
	if !ok {
		if !m.dumped {
			m.env.Logf("limits: copying the changelog to local disk for write-only replays")
			dc := cfg
			dc.Threads = max(cfg.Threads, 1)
			if err := engine.Dump(ctx, m.env.Cluster, offsets, dc, m.dumpDir); err != nil {
				return nil, err
			}
			m.dumped = true
		}
		wc := cfg
		wc.StateDir = filepath.Join(m.dumpDir, "write-only")
		m.env.Logf("limits: write-only (strategy %s, batch %d, threads %d), best of %d", cfg.Strategy, cfg.BatchRecords, cfg.Threads, limitRuns)
		for i := 0; i < limitRuns; i++ {
			debug.FreeOSMemory()
			l, err := engine.WriteOnly(ctx, m.dumpDir, offsets.Partitions(), wc)
			os.RemoveAll(wc.StateDir)
			if err != nil {
				return nil, err
			}
			write = faster(write, l)
		}
		m.write[writeKey] = write
	}
	return &CaseLimits{FetchOnly: fetch, WriteOnly: write, Runs: limitRuns}, nil
}

// limitRuns is how many times each limit is measured; the fastest counts.
const limitRuns = 2

// faster returns the faster of two measurements of one limit (a zero Limit
// is no measurement yet).
func faster(a, b engine.Limit) engine.Limit {
	if a.Duration == 0 || (b.Duration > 0 && b.Duration < a.Duration) {
		return b
	}
	return a
}

// close removes the dump.
func (m *limitMeter) close() { os.RemoveAll(m.dumpDir) }
