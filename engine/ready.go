package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

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

// settlePoll is how often the settle loop asks a store whether it settled,
// and settleStable how many answers in a row must say so. Settling thus
// costs at least 100 ms.
const (
	settlePoll   = 50 * time.Millisecond
	settleStable = 3
)

// AwaitReady flushes every store, waits until each has settled (see
// Store.Settled), then reads each sampled key once. A store that has not
// settled within timeout is an error: compaction debt that large would
// stall the application.
func AwaitReady(ctx context.Context, stores map[int32]Store, sample []SampledKey, timeout time.Duration) (ReadyResult, error) {
	res := ReadyResult{Reads: measure.NewHistogram()}
	start := time.Now()
	parts := make([]int32, 0, len(stores))
	for p := range stores {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	for _, p := range parts {
		if err := stores[p].Flush(); err != nil {
			return res, fmt.Errorf("partition %d: %w", p, err)
		}
	}
	for _, p := range parts {
		if err := WaitSettled(ctx, stores[p], settlePoll, settleStable, timeout-time.Since(start)); err != nil {
			return res, fmt.Errorf("partition %d: %w", p, err)
		}
	}
	res.Settle = time.Since(start)
	for _, k := range sample {
		s, ok := stores[k.Partition]
		if !ok {
			continue
		}
		t0 := time.Now()
		_, _, err := s.Get(k.Key)
		res.Reads.Record(time.Since(t0))
		if err != nil {
			return res, fmt.Errorf("partition %d: read: %w", k.Partition, err)
		}
	}
	res.Total = time.Since(start)
	return res, nil
}
