package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/restorebench/restorebench/measure"
)

// SampledKey is a key seen during a restore, with its partition.
type SampledKey struct {
	Partition int32
	Key       []byte
}

// ReadyResult is the ready phase: from the last record restored until the
// stores can serve without stalling (Settle), then the read probe (Total
// includes it).
type ReadyResult struct {
	Settle time.Duration
	Total  time.Duration
	Reads  *measure.Histogram
}

// settlePoll is how often the settle loop reads RocksDB's properties, and
// settleStable how many polls in a row must find a store settled: a
// compaction is scheduled just after the flush that causes it, so one quiet
// reading is not enough. Settling thus costs at least 100 ms.
const (
	settlePoll   = 50 * time.Millisecond
	settleStable = 3
)

// AwaitReady flushes every RocksDB store's memtables, waits until no flush
// or compaction runs or is pending, pending compaction bytes are 0 and L0
// is below its slowdown trigger, then reads each sampled key once. A store
// that has not settled within timeout is an error: compaction debt that
// large would stall the application.
func AwaitReady(ctx context.Context, stores map[int32]Store, sample []SampledKey, timeout time.Duration) (ReadyResult, error) {
	res := ReadyResult{Reads: measure.NewHistogram()}
	start := time.Now()
	deadline := start.Add(timeout)
	fo := grocksdb.NewDefaultFlushOptions()
	fo.SetWait(true)
	defer fo.Destroy()
	for p, s := range stores {
		rs, ok := s.(*RocksStore)
		if !ok {
			continue
		}
		if err := rs.db.Flush(fo); err != nil {
			return res, fmt.Errorf("partition %d: flush: %w", p, err)
		}
	}
	for p, s := range stores {
		rs, ok := s.(*RocksStore)
		if !ok {
			continue
		}
		for quiet := 0; quiet < settleStable; {
			if rs.settled() {
				quiet++
			} else {
				quiet = 0
			}
			if quiet == settleStable {
				break
			}
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if time.Now().After(deadline) {
				return res, fmt.Errorf("partition %d: compactions did not settle within %s (pending %d bytes, %d L0 files)",
					p, timeout, rs.intProp("rocksdb.estimate-pending-compaction-bytes"), rs.intProp("rocksdb.num-files-at-level0"))
			}
			time.Sleep(settlePoll)
		}
	}
	res.Settle = time.Since(start)
	for _, k := range sample {
		s, ok := stores[k.Partition]
		if !ok {
			continue
		}
		t0 := time.Now()
		_, err := s.Get(k.Key)
		res.Reads.Record(time.Since(t0))
		if err != nil {
			return res, fmt.Errorf("partition %d: read: %w", k.Partition, err)
		}
	}
	res.Total = time.Since(start)
	return res, nil
}

// settled reports whether the store has no flush or compaction running, no
// memtable waiting to flush, no compaction debt, and L0 below the slowdown
// trigger. (rocksdb.compaction-pending is not used: under universal
// compaction it can stay 1 with nothing to pick.)
func (s *RocksStore) settled() bool {
	slowdown := int64(s.opts.Level0SlowdownWritesTrigger)
	if slowdown == 0 {
		slowdown = 20 // RocksDB's default level0_slowdown_writes_trigger
	}
	return s.intProp("rocksdb.num-running-flushes") == 0 &&
		s.intProp("rocksdb.mem-table-flush-pending") == 0 &&
		s.intProp("rocksdb.num-running-compactions") == 0 &&
		s.intProp("rocksdb.estimate-pending-compaction-bytes") == 0 &&
		s.intProp("rocksdb.num-files-at-level0") < slowdown
}
