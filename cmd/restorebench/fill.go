package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// fillFlags bind the fill command's flags to a profile's fill section.
type fillFlags struct {
	appID, store string
	fill         config.Fill
	size         config.Size
	records      int64
	txnRecords   int
	refill       bool
	sf           *settingFlags
}

func addFillFlags(cmd *cobra.Command, f *fillFlags) {
	f.appID, f.store, f.fill = config.DefaultAppID, config.DefaultStore, config.DefaultFill()
	sf := newSettingFlags(cmd.Flags())
	f.sf = sf
	sf.stringVar(&f.appID, "application-id", "application_id", "Kafka Streams application.id (names the changelog)")
	sf.stringVar(&f.store, "store", "store", "state store name (names the changelog)")
	sf.stringVar(&f.fill.Topic, "topic", "topic", "changelog topic (default <application-id>-<store>-changelog)")
	sf.value(&f.size, "size", "size", "key+value bytes to write, e.g. 512MB, 2GiB (or use --records)")
	sf.int64Var(&f.records, "records", "records", "number of records to write (instead of --size)")
	sf.int64Var(&f.fill.Keys, "keys", "keys", "distinct keys")
	sf.intVar(&f.fill.KeyBytes, "key-bytes", "key_bytes", "key bytes: \"k\" and the key id in key-bytes-1 digits, 4-64 (default 16)")
	sf.value(&f.fill.ValueSize, "value-size", "value_size", "value bytes: fixed (200) or a range (100-1000); 0 is an empty value, not a tombstone")
	cmd.Flags().Float64Var(&f.fill.TombstoneRatio, "tombstone-ratio", 0, "fraction of records that are deletes (tombstones)")
	sf.note("tombstone-ratio", "tombstone_ratio")
	sf.value(stringValue[loadgen.KeyOrder]{&f.fill.KeyOrder}, "key-order", "key_order", "key choice: uniform, zipf or sequential")
	sf.int32Var(&f.fill.Partitions, "partitions", "partitions", "changelog partitions (one task and store each)")
	sf.stringVar(&f.fill.Compression, "compression", "compression", "producer compression.type: none, gzip, snappy, lz4, zstd")
	cmd.Flags().Uint64Var(&f.fill.Seed, "seed", f.fill.Seed, "generator seed: equal seeds and parameters give identical fills")
	cmd.Flags().BoolVar(&f.fill.Transactional, "transactional", false, "write with a transactional producer "+
		"(transactional.id), as an exactly_once_v2 application writes its changelog")
	sf.note("transactional", "transactional")
	f.txnRecords = loadgen.DefaultTransactionRecords
	sf.intVar(&f.txnRecords, "transaction-records", "transaction_records", "records per transaction (with --transactional)")
	cmd.Flags().Float64Var(&f.fill.AbortRatio, "abort-ratio", 0, "share of transactions aborted, in [0, 0.9] (with "+
		"--transactional); the aborted records stay in the log")
	sf.note("abort-ratio", "abort_ratio")
	cmd.Flags().BoolVar(&f.refill, "refill", false, "delete and refill the topic if it holds a different fill")
}

// request validates the flags into a fill request.
func (f *fillFlags) request() (bench.FillRequest, error) {
	if f.sf.changed("size") {
		f.fill.Size = &f.size
	}
	if f.sf.changed("records") {
		f.fill.Records = &f.records
	}
	if f.sf.changed("transaction-records") {
		f.fill.TransactionRecords = &f.txnRecords
	}
	spec, err := f.fill.Spec()
	if err != nil {
		return bench.FillRequest{}, f.sf.rename(err)
	}
	if err := config.CheckNames(f.appID, f.store, f.fill.Topic); err != nil {
		return bench.FillRequest{}, f.sf.rename(err)
	}
	topic := f.fill.Topic
	if topic == "" {
		topic = config.ChangelogTopic(f.appID, f.store)
	}
	return bench.FillRequest{Topic: topic, Spec: spec, Compression: f.fill.Compression, Refill: f.refill}, nil
}

func newFillCmd(g *globalFlags) *cobra.Command {
	f := &fillFlags{}
	cmd := &cobra.Command{
		Annotations: map[string]string{drawsProgress: "true"},
		Use:         "fill",
		Short:       "Create a compacted changelog topic and fill it with deterministic records",
		Long: `fill creates <application-id>-<store>-changelog (cleanup.policy=compact) and
writes records generated from --seed, then records a fill manifest with the
per-partition end offsets. The state a correct restore must produce is derived
from the parameters alone. A fill whose parameters match one the topic really
holds is reused, not rewritten.`,
		Example: `  # 2 GiB over 8 partitions, a million keys, values of 100-1000 bytes
  restorebench fill --size 2GiB --partitions 8 --keys 1000000 --value-size 100-1000

  # an overwrite-heavy changelog with 10% deletes, skewed keys
  restorebench fill --records 5000000 --keys 50000 --key-order zipf --tombstone-ratio 0.1

  # an exactly-once application's changelog: transactions of 1000 records, 10% aborted
  restorebench fill --records 1000000 --transactional --abort-ratio 0.1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := f.request()
			if err != nil {
				return err
			}
			env, err := g.connect(cmd)
			if err != nil {
				return err
			}
			defer env.Close()
			out, err := env.EnsureFill(cmd.Context(), req)
			if err != nil {
				return err
			}
			m, tot := out.Manifest, out.Derived.Totals
			state := "filled"
			if out.Reused {
				state = "reused"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s: %d records (%d tombstones), %d key+value bytes, %d partitions; fill took %.2fs (%.1f MB/s)\n",
				state, m.Topic, tot.Records, tot.Tombstones, tot.Bytes, len(m.Offsets), m.DurationSeconds,
				float64(tot.Bytes)/1e6/max(m.DurationSeconds, 1e-9))
			if l := out.Derived.Log; m.Spec.Transactional {
				fmt.Fprintf(cmd.OutOrStdout(), "  transactional: %d transactions of %d records, %d aborted (%d records, %d key+value bytes), %d markers; %d offsets\n",
					l.Transactions, m.Spec.TransactionRecords, l.AbortedTransactions, l.AbortedRecords, l.AbortedBytes, l.Markers, l.Offsets())
			}
			return nil
		},
	}
	addFillFlags(cmd, f)
	return cmd
}
