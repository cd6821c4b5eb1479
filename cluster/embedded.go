package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/restorebench/restorebench/internal/filelock"
)

// Embedded is the in-process broker (franz-go's kfake) used when no
// --brokers are given. With a data directory its log lives on disk, so a fill
// of tens of GB costs disk rather than memory, and it survives restarts: a
// later run finds an earlier fill and can reuse it.
type Embedded struct {
	cluster *kfake.Cluster
	lock    *filelock.Lock
	log     *storageErrors
	// DataDir is where the broker keeps its log; empty when in memory.
	DataDir string
}

// storageErrors keeps the last error the broker logged about writing its
// log: kfake answers a produce it could not persist with
// UNKNOWN_SERVER_ERROR, and this says why (no space left on device, ...).
type storageErrors struct {
	mu   sync.Mutex
	last string
}

func (s *storageErrors) Logf(level kfake.LogLevel, msg string, args ...any) {
	if level > kfake.LogLevelWarn || !strings.HasPrefix(msg, "persist") {
		return
	}
	s.mu.Lock()
	s.last = fmt.Sprintf(msg, args...)
	s.mu.Unlock()
}

// StorageError returns the last error the broker hit writing its log to
// disk, or nil.
func (e *Embedded) StorageError() error {
	e.log.mu.Lock()
	defer e.log.mu.Unlock()
	if e.log.last == "" {
		return nil
	}
	return fmt.Errorf("the embedded broker could not write its log in %s: %s", e.DataDir, e.log.last)
}

// embeddedCleanerIntervalMs is the embedded broker's cleaner interval: in
// effect never (see StartEmbedded).
const embeddedCleanerIntervalMs = "3153600000000"

// StartEmbedded starts a one-node embedded broker on a free 127.0.0.1 port.
// dataDir "" keeps the log in memory (tests); otherwise the directory is
// created and locked, so two processes never share one broker log.
func StartEmbedded(dataDir string) (*Embedded, error) {
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.DefaultNumPartitions(1),
		// The cleaner runs on this interval (Kafka's log.cleaner.backoff.ms);
		// kfake's default is an hour, and its compaction honours no topic
		// setting (min.compaction.lag.ms included) and holds every key of a
		// partition in memory. Fills are written once and restored many
		// times, so a run's restores must all read one log: the embedded
		// broker compacts only when a compaction scenario asks (Compact).
		// 100 years, in milliseconds: the largest that fits a Duration.
		kfake.BrokerConfigs(map[string]string{"log.cleaner.backoff.ms": embeddedCleanerIntervalMs}),
	}
	// Kafka Streams' admin client cannot read kfake's DescribeTopicPartitions
	// answers (they lack the eligible leader replicas of KIP-966): without
	// the API it falls back to Metadata, so the kafka-streams engine runs
	// against the embedded broker too.
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(75, -1) // DescribeTopicPartitions
	opts = append(opts, kfake.MaxVersions(versions))
	e := &Embedded{DataDir: dataDir, log: &storageErrors{}}
	opts = append(opts, kfake.WithLogger(e.log))
	if dataDir != "" {
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, fmt.Errorf("embedded broker data dir: %w", err)
		}
		lock, err := os.OpenFile(filepath.Join(dataDir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("embedded broker data dir: %w", err)
		}
		if e.lock, err = filelock.TryLockFile(lock); err != nil {
			if errors.Is(err, filelock.ErrHeld) {
				return nil, fmt.Errorf("embedded broker data dir %s is in use by another restorebench process", dataDir)
			}
			return nil, fmt.Errorf("embedded broker data dir %s: %w", dataDir, err)
		}
		opts = append(opts, kfake.DataDir(dataDir))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		e.unlock()
		return nil, fmt.Errorf("start embedded broker: %w", err)
	}
	e.cluster = c
	return e, nil
}

// Addrs returns the broker's listen addresses (host:port).
func (e *Embedded) Addrs() []string { return e.cluster.ListenAddrs() }

// Compact runs the log cleaner on every compacted topic now.
func (e *Embedded) Compact() { e.cluster.Compact() }

// Close stops the broker, flushing its log to disk.
func (e *Embedded) Close() {
	if e.cluster != nil {
		e.cluster.Close()
	}
	e.unlock()
}

func (e *Embedded) unlock() {
	e.lock.Unlock()
	e.lock = nil
}
