package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/profiles"
)

// fillFlags mirror a profile's fill section.
type fillFlags struct {
	appID, store string
	fill         profiles.FillSpec
	seed         uint64
	refill       bool
}

func addFillFlags(cmd *cobra.Command, f *fillFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.appID, "application-id", "restorebench", "Kafka Streams application.id (names the changelog)")
	fl.StringVar(&f.store, "store", "balances", "state store name (names the changelog)")
	fl.StringVar(&f.fill.Topic, "topic", "", "changelog topic (default <application-id>-<store>-changelog)")
	fl.StringVar(&f.fill.Size, "size", "", "key+value bytes to write, e.g. 512MB, 2GiB (or use --records)")
	fl.Int64Var(&f.fill.Records, "records", 0, "number of records to write (instead of --size)")
	fl.Int64Var(&f.fill.Keys, "keys", 100000, "distinct keys")
	fl.StringVar(&f.fill.ValueSize, "value-size", "100", "value bytes: fixed (200) or a range (100-1000)")
	fl.Float64Var(&f.fill.TombstoneRatio, "tombstone-ratio", 0, "fraction of records that are deletes (tombstones)")
	fl.StringVar(&f.fill.KeyOrder, "key-order", "uniform", "key choice: uniform, zipf or sequential")
	fl.Int32Var(&f.fill.Partitions, "partitions", 1, "changelog partitions (one task and store each)")
	fl.StringVar(&f.fill.Compression, "compression", "none", "producer compression.type: none, gzip, snappy, lz4, zstd")
	fl.Uint64Var(&f.seed, "seed", 1, "generator seed: equal seeds and parameters give identical fills")
	fl.BoolVar(&f.refill, "refill", false, "delete and refill the topic if it holds a different fill")
}

func (f *fillFlags) request() (bench.FillRequest, error) {
	f.fill.Seed = &f.seed
	spec, compression, err := profiles.FillToSpec(f.fill)
	if err != nil {
		return bench.FillRequest{}, flagError(err)
	}
	topic := f.fill.Topic
	if topic == "" {
		topic = profiles.ChangelogTopic(f.appID, f.store)
	}
	return bench.FillRequest{Topic: topic, Spec: spec, Compression: compression, Refill: f.refill}, nil
}

func newFillCmd(g *globalFlags) *cobra.Command {
	f := &fillFlags{}
	cmd := &cobra.Command{
		Use:   "fill",
		Short: "Create a compacted changelog topic and fill it with deterministic records",
		Long: `fill creates <application-id>-<store>-changelog (cleanup.policy=compact) and
writes records generated from --seed, then records a fill manifest with the
per-partition end offsets and the state a correct restore must produce. A fill
whose parameters match an existing one is reused, not rewritten.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := f.request()
			if err != nil {
				return err
			}
			env, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer env.Close()
			out, err := env.EnsureFill(cmd.Context(), req)
			if err != nil {
				return err
			}
			m := out.Manifest
			state := "filled"
			if out.Reused {
				state = "reused"
			}
			fmt.Printf("%s %s: %d records (%d tombstones), %d key+value bytes, %d partitions; fill took %.2fs (%.1f MB/s)\n",
				state, m.Topic, m.Totals.Records, m.Totals.Tombstones, m.Totals.Bytes, len(m.Offsets), m.DurationSeconds,
				float64(m.Totals.Bytes)/1e6/max(m.DurationSeconds, 1e-9))
			return nil
		},
	}
	addFillFlags(cmd, f)
	return cmd
}

// flagError names the flag where the validator named a profile field:
// "fill.value_size: ..." becomes "--value-size: ...".
func flagError(err error) error {
	msg := err.Error()
	if field, rest, ok := strings.Cut(strings.TrimPrefix(msg, "fill."), ":"); ok && strings.HasPrefix(msg, "fill.") {
		return fmt.Errorf("--%s:%s", strings.ReplaceAll(field, "_", "-"), rest)
	}
	return err
}
