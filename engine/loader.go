package engine

import (
	"context"
	"fmt"
)

// Restore strategies: how a partition's changelog records become a store.
const (
	// StrategyPut writes each poll's records as one WriteBatch, as Kafka
	// Streams restores today.
	StrategyPut = "put"
	// StrategyBulk is Kafka Streams' old bulk-load mode (KIP-167, removed by
	// KAFKA-10005): auto compactions off and L0 triggers out of reach while
	// loading, then one manual full compaction.
	StrategyBulk = "bulk"
	// StrategyIngest sorts and de-duplicates the changelog by key with an
	// external sort, writes SST files and ingests them.
	StrategyIngest = "ingest"
	// StrategyMemory restores into an in-memory store: the baseline without RocksDB.
	StrategyMemory = "memory"
)

// Strategies lists the strategy names.
var Strategies = []string{StrategyPut, StrategyBulk, StrategyIngest, StrategyMemory}

// Loader turns one partition's changelog records, in offset order, into a
// store.
type Loader interface {
	// Write takes one poll's records for the partition. The slices are only
	// valid during the call.
	Write(entries []Entry) error
	// Finish completes the load after the last record (bulk: the manual
	// compaction; ingest: the sort, the SST files and their ingestion) and
	// returns the store, open for reads.
	Finish(ctx context.Context) (Store, error)
	// Abort releases everything after a failure.
	Abort()
}

// newLoader opens the loader for partition p under strategy c.Strategy.
func newLoader(c RestoreConfig, p int32) (Loader, error) {
	switch c.Strategy {
	case StrategyPut, "":
		if c.Store == "memory" {
			return storeLoader{NewMemoryStore()}, nil
		}
		s, err := OpenRocks(c.StorePath(p), c.RocksDB)
		if err != nil {
			return nil, err
		}
		return storeLoader{s}, nil
	case StrategyMemory:
		return storeLoader{NewMemoryStore()}, nil
	case StrategyBulk:
		return newBulkLoader(c.StorePath(p), c.RocksDB)
	case StrategyIngest:
		return newIngestLoader(c.StorePath(p), c.TaskDir(p), c.RocksDB, c.sortBufferPerPartition())
	case strategyDiscard:
		return discardLoader{}, nil
	case strategyDump:
		return newDumpLoader(dumpFile(c.StateDir, p))
	}
	return nil, fmt.Errorf("strategy %q is not one of put, bulk, ingest, memory", c.Strategy)
}

// sortBufferPerPartition shares the sort budget among the partitions.
func (c RestoreConfig) sortBufferPerPartition() int64 {
	n := int64(max(c.partitions, 1))
	return max(c.SortBufferBytes/n, 1<<20)
}

// storeLoader writes straight into a store: nothing is left to do at Finish.
type storeLoader struct{ s Store }

func (l storeLoader) Write(entries []Entry) error           { return l.s.Write(entries) }
func (l storeLoader) Finish(context.Context) (Store, error) { return l.s, nil }
func (l storeLoader) Abort()                                { l.s.Close() }
