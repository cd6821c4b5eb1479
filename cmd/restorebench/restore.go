package main

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/profiles"
)

func newRestoreCmd(g *globalFlags) *cobra.Command {
	var (
		topic, appID, store, out string
		p                        = measure.CaseParams{Scenario: "cold"}
		repeats                  int
		force, keepState         bool
		noReady                  bool
		fetchMax, partFetchMax   string
		sortBuffer               string
	)
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Cold-restore a changelog topic into fresh stores, measure it and verify it",
		Long: `restore reads every partition of a changelog from its log start to the end
offsets captured when the restore begins, into one store per partition, as a
Kafka Streams instance with no local state does. A topic restorebench filled is
verified against the expected state; any other topic (a copy of your real
changelog) is restored and counted, and reported as not verified.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if topic == "" {
				topic = profiles.ChangelogTopic(appID, store)
			}
			// The same validation as a profile case, so flags and profiles agree.
			c, err := profiles.ResolveCase(profiles.CaseSpec{
				Strategy: p.Strategy, BatchRecords: p.BatchRecords, Threads: p.Threads, RocksDB: p.RocksDB, Store: p.Store,
				FetchMaxBytes: fetchMax, MaxPartitionFetchBytes: partFetchMax, SortBuffer: sortBuffer,
			})
			if err != nil {
				return err
			}
			p = bench.ParamsOf(c)
			env, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer env.Close()
			runID := bench.NewRunID("restore")
			if out == "" {
				out = filepath.Join("results", runID)
			}
			res, err := env.RestoreTopic(cmd.Context(), bench.RestoreTopicOptions{
				Topic: topic, AppID: appID, StoreName: store, Params: p, Repeats: repeats,
				OutDir: out, RunID: runID, Force: force, KeepState: keepState, Ready: !noReady,
			})
			if res != nil {
				printSummary(res, out)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&topic, "topic", "", "changelog topic to restore (default <application-id>-<store>-changelog)")
	fl.StringVar(&appID, "application-id", "restorebench", "Kafka Streams application.id (state.dir/<application.id>/...)")
	fl.StringVar(&store, "store", "balances", "state store name")
	fl.IntVar(&p.BatchRecords, "batch-records", 1000, "records per poll and WriteBatch (the restore consumer's max.poll.records)")
	fl.IntVar(&p.Threads, "threads", 1, "restore consumers in parallel, each owning a share of the partitions (stream threads)")
	fl.StringVar(&p.RocksDB, "rocksdb", "kstreams", "RocksDB option preset (kstreams = Kafka Streams' RocksDBStore defaults)")
	fl.StringVar(&p.Store, "store-type", "rocksdb", "store kind: rocksdb or memory")
	fl.StringVar(&p.Strategy, "strategy", "put", "how records reach the store: put (a WriteBatch per poll), bulk (KIP-167 bulk load), ingest (sorted SST files), memory")
	fl.StringVar(&fetchMax, "fetch-max-bytes", "50MiB", "the restore consumer's fetch.max.bytes")
	fl.StringVar(&partFetchMax, "max-partition-fetch-bytes", "1MiB", "the restore consumer's max.partition.fetch.bytes")
	fl.StringVar(&sortBuffer, "sort-buffer", "64MiB", "memory per partition for the ingest strategy's external sort")
	fl.BoolVar(&noReady, "no-ready", false, "skip the ready phase (flush, settled compactions, point reads)")
	fl.IntVar(&repeats, "repeats", 1, "restores to run, each into fresh stores")
	fl.StringVar(&out, "out", "", "directory for results.json and plots (default results/<run-id>)")
	fl.BoolVar(&force, "force", false, "wipe existing state under <state-dir>/<application-id> first")
	fl.BoolVar(&keepState, "keep-state", false, "leave the restored stores on disk")
	return cmd
}
