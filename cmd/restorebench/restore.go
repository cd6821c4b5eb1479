package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/profiles"
	rpt "github.com/restorebench/restorebench/report"
)

// restoreLong is restore's help: what it reads, how each engine restores
// a topic, and what it verifies.
const restoreLong = `restore reads every partition of a changelog from its log start to the end
offsets captured when the restore begins, into one store per partition, as a
Kafka Streams instance with no local state does. A topic restorebench filled is
verified against the expected state; any other topic (your real changelog, or
a copy) is first read independently (a consumer of its own, each key's last
value, tombstones, records without a key, aborted transactions and a window
store's expired windows applied as Kafka Streams applies them) and the
restore verified against that read; a topic with more live keys than that
read keeps (16 M) is counted, not verified. --partitions restores only the
partitions it names, each at its full size, and reads only those to verify
them (a sample of a large changelog's tasks). On --engine kafka-streams the
sample is first copied, verbatim, to a topic of restorebench's with the same
partition count (<application-id>-sample-<topic>, only the sampled
partitions holding records), checked against that read and restored by Kafka
Streams as the topic would be; the copy's time and bytes are reported apart
(sample_copy) and the copy is deleted when the restore ends.

--engine kafka-streams restores with the real client (one JVM): the topic
named <application-id>-<store>-changelog as that store's changelog, any other
topic as the changelog of a KTable over it (source-topic reuse), or with
--store-kind window or timestamped-window (what a DSL windowed count or
aggregate keeps) or session of a read-only window or session store over it
(Topology.addReadOnlyStateStore); no topic is created or written. Kafka
Streams restores such a topic only up to the application's committed offsets,
so restorebench commits them at the topic's end offsets in the group
<application-id> (restorebench's own application, default "restorebench", not
yours) before the restore, and deletes them after.`

func newRestoreCmd(g *globalFlags) *cobra.Command {
	var (
		topic, out       string
		appID, store     = config.DefaultAppID, config.DefaultStore
		c                = config.DefaultCase()
		repeats          = 1
		force, keepState bool
		noReady          bool
		retention        config.Duration
		partitions       string
	)
	cmd := &cobra.Command{
		Annotations: map[string]string{drawsProgress: "true"},
		Use:         "restore",
		Short:       "Cold-restore a changelog topic into fresh stores (model or real Kafka Streams), measure it and verify it",
		Long:        restoreLong,
		Example: `  # restore the changelog restorebench filled, with Kafka Streams' defaults
  restorebench restore

  # a copy of your own changelog on your cluster, 2 stream threads, 3 times
  restorebench --brokers kafka1:9092 restore --topic myapp-orders-changelog --threads 2 --repeats 3

  # two of its partitions only, each at its full size
  restorebench --brokers kafka1:9092 restore --topic myapp-orders-changelog --partitions 3,17

  # the same topic restored by the real Kafka Streams client
  restorebench --brokers kafka1:9092 restore --engine kafka-streams --topic myapp-orders-changelog

  # how much faster would a sorted SST ingest be?
  restorebench restore --strategy ingest --sort-buffer 256MiB`,
		Args: cobra.NoArgs,
	}
	sf := newSettingFlags(cmd.Flags())
	resolve := caseFlags(cmd.Flags(), &c)
	fl := cmd.Flags()
	fl.StringVar(&topic, "topic", "", "changelog topic to restore (default <application-id>-<store>-changelog)")
	sf.stringVar(&appID, "application-id", "application_id", "Kafka Streams application.id (state.dir/<application.id>/...)")
	sf.stringVar(&store, "store", "store", "state store name")
	sf.intVar(&repeats, "repeats", "repeats", "restores to run, each into fresh stores")
	fl.BoolVar(&noReady, "no-ready", false, "skip the ready phase (flush, settled compactions, point reads)")
	fl.StringVar(&out, "out", "", "directory for results.json (default results/<run-id>); must not hold another run's results")
	fl.BoolVar(&force, "force", false, "wipe existing state under <state-dir>/<application-id> first (only state restorebench created)")
	fl.BoolVar(&keepState, "keep-state", false, "leave the restored stores on disk")
	fl.StringVar(&partitions, "partitions", "", "restore only these partitions of --topic (e.g. 3,17), each at its full size and verified against an "+
		"independent read of that partition alone; the others are never read (kafka-streams: restored from a copy of them; default: every partition)")
	fl.Var(&retention, "retention", "with --store-kind window, timestamped-window or session, the store's retention (Materialized.withRetention; "+
		"default: the topic's retention.ms minus a day, windowstore.changelog.additional.retention.ms's default)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := resolve(); err != nil {
			return err
		}
		if fl.Changed("retention") {
			if !c.StoreKind.Segmented() || retention <= 0 {
				return fmt.Errorf("--retention %s: it is a window or session store's retention, above 0, for --store-kind window, timestamped-window or session", retention)
			}
			c.Retention = retention
		}
		if repeats <= 0 {
			return sf.rename(&config.FieldError{Path: "repeats", Msg: "must be positive"})
		}
		if repeats > profiles.MaxRepeats {
			return sf.rename(&config.FieldError{Path: "repeats", Msg: fmt.Sprintf("%d is over %d", repeats, profiles.MaxRepeats)})
		}
		if err := config.CheckNames(appID, store, topic); err != nil {
			return sf.rename(err)
		}
		sample, err := samplePartitions(fl.Changed("partitions"), partitions)
		if err != nil {
			return err
		}
		if topic == "" {
			topic = config.ChangelogTopic(appID, store)
		}
		runID, out, env, done, err := g.claimAndConnect(cmd, "restore", out)
		if err != nil {
			return err
		}
		defer done()
		res, err := env.RestoreTopic(cmd.Context(), bench.RestoreTopicOptions{
			Topic: topic, AppID: appID, StoreName: store, Case: c, Repeats: repeats,
			OutDir: out, RunID: runID, Force: force, KeepState: keepState, Ready: !noReady, Partitions: sample,
		})
		if res != nil {
			rpt.PrintSummary(cmd.OutOrStdout(), res, filepath.Join(out, "results.json"))
		}
		return err
	}
	return cmd
}

// samplePartitions is --partitions as RestoreTopic takes it, ascending:
// nil when not given (every partition), else the partitions named, comma
// separated, which must be at least one and each once (whether the topic
// has them is checked against it, before anything is written).
func samplePartitions(given bool, list string) ([]int32, error) {
	if !given {
		return nil, nil
	}
	var ps []int32
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := strconv.ParseInt(f, 10, 32)
		if err != nil || p < 0 {
			return nil, fmt.Errorf("--partitions: %s is not a partition number (0, 1, ...)", termsafe.Prefix(f, 40))
		}
		ps = append(ps, int32(p))
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("--partitions: no partition named; name one or more, e.g. --partitions 3,17")
	}
	slices.Sort(ps)
	for i := 1; i < len(ps); i++ {
		if ps[i] == ps[i-1] {
			return nil, fmt.Errorf("--partitions: partition %d is named twice", ps[i])
		}
	}
	return ps, nil
}
