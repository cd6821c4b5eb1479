package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/audit"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/boundedread"
	"github.com/restorebench/restorebench/internal/javaprops"
	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/warmup"
)

// defaultAuditMaxRead is how many offsets of each changelog audit reads
// for its shape by default: 5 M (seconds on a local broker).
const defaultAuditMaxRead = 5_000_000

// auditFlags are audit's own flags.
type auditFlags struct {
	app, format, streamsConfig, caseName string
	from, changelogs                     []string
	maxRead                              int64
}

func newAuditCmd(g *globalFlags) *cobra.Command {
	f := &auditFlags{}
	cmd := &cobra.Command{
		Use:   "audit --application-id APP [--from RUN...]",
		Short: "Read a running Kafka Streams application (read-only) and say what each instance's loss would cost to restore",
		Long: `audit reads a running Kafka Streams application as it is now, strictly
read-only: its changelog topics (APP-*-changelog: partitions, records, bytes on
disk, shape) and its consumer group APP: on the classic protocol its members'
Kafka Streams userdata name each instance's active and standby tasks and how far
its copies of other tasks were behind at the last rebalance; on the streams
protocol (KIP-1071) StreamsGroupDescribe names the tasks and which subtopology
writes which changelog, but no lags. It joins no group, commits nothing and
creates, writes or alters no topic or config.

Per instance it answers which tasks it holds, their state, and, if it fails now,
which tasks the others take over warm (a copy within acceptable.recovery.lag) and
which they restore; with --from (results of restorebench runs) also how long:
failure detection and rejoin (the session timeout, less up to one heartbeat
interval before the death, plus up to one after), an assumed 0.5 s (0.2-1.5 s)
handover, and the largest surviving thread's restore at the measured rate, each
with its interval. The same for a restart on its state dir and on an empty disk,
and the warmup model's prediction (as restorebench predict gives it) for one
instance added now, over the application's own tasks, their sizes and the
changelog write rate seen while audit read. The instance whose loss costs
most is marked.`,
		Example: `  restorebench --brokers kafka1:9092 audit --application-id orders
  restorebench --brokers kafka1:9092 audit --application-id orders --from results/size-1GB --streams-config streams.properties --format json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, g, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.app, "application-id", "", "the application's application.id: its consumer group and the prefix of its changelog topics (APP-*-changelog)")
	fl.StringSliceVar(&f.changelogs, "changelog", nil, "the application's changelog topics, named explicitly (repeatable): read instead of "+
		"every APP-*-changelog, which decides a topic another application whose id extends APP may own (default: the prefix)")
	fl.StringSliceVar(&f.from, "from", nil, "results.json files or run directories to take measured restore rates from (repeatable); without, no times")
	fl.StringVar(&f.caseName, "case", "", "with --from: the case whose rate to use (default: the one with Kafka Streams' default settings)")
	fl.StringVar(&f.streamsConfig, "streams-config", "", fmt.Sprintf("the application's Streams properties file: session.timeout.ms and "+
		"heartbeat.interval.ms (failure detection; else Kafka's %.0f s and %.0f s, said ASSUMED), acceptable.recovery.lag, max.warmup.replicas and "+
		"probing.rebalance.interval.ms (the scale-out answer) are taken from it (a streams-protocol group's own configuration is read instead)",
		warmup.DefaultSessionTimeout.Seconds(), warmup.DefaultHeartbeatInterval.Seconds()))
	fl.Int64Var(&f.maxRead, "max-read", defaultAuditMaxRead, "read at most about this many offsets of each changelog for its shape "+
		"(a prefix of each partition, said so); 0 reads no shape, -1 whole topics")
	fl.StringVar(&f.format, "format", "text", "text, or json (snake_case fields, units in their names)")
	return cmd
}

// auditStreamsConfig reads the settings audit takes from an application's
// properties file: session.timeout.ms and heartbeat.interval.ms (as Kafka
// Streams takes them, the main.consumer. prefix first, then consumer.,
// then none) and acceptable.recovery.lag.
func auditStreamsConfig(path string) (audit.Options, error) {
	o := audit.Options{}
	if path == "" {
		return o, nil
	}
	data, err := boundedread.ReadFile(path, boundedread.StreamsConfig)
	if err != nil {
		return o, fmt.Errorf("--streams-config: %w", err)
	}
	props, err := javaprops.Parse(data)
	if err != nil {
		return o, fmt.Errorf("--streams-config %s: %w", path, err)
	}
	m := map[string]javaprops.Property{}
	for _, p := range props {
		m[p.Key] = p
	}
	num := func(key string) (int64, bool, error) {
		p, ok := m[key]
		if !ok {
			return 0, false, nil
		}
		n, err := strconv.ParseInt(p.Value, 10, 64)
		if err != nil || n < 0 {
			return 0, false, fmt.Errorf("--streams-config %s line %d: %s is not a non-negative whole number", path, p.Line, key)
		}
		return n, true, nil
	}
	// A consumer setting as Kafka Streams takes it for the main consumer
	// (config.ConsumerKeys).
	consumerMs := func(name string) (time.Duration, error) {
		for _, key := range config.ConsumerKeys(config.PrefixMainConsumer, name) {
			n, ok, err := num(key)
			if err != nil || ok {
				return time.Duration(n) * time.Millisecond, err
			}
		}
		return 0, nil
	}
	if o.SessionTimeout, err = consumerMs("session.timeout.ms"); err != nil {
		return o, err
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout, o.SessionTimeoutAssumed = warmup.DefaultSessionTimeout, true
	}
	if o.HeartbeatInterval, err = consumerMs("heartbeat.interval.ms"); err != nil {
		return o, err
	}
	if err := checkGroupTimeouts(o); err != nil {
		return o, fmt.Errorf("--streams-config %s: %w", path, err)
	}
	if p, ok := m["topology.optimization"]; ok {
		o.TopologyOptimization = p.Value
	}
	n, ok, err := num("max.warmup.replicas")
	if err != nil {
		return o, err
	}
	if ok {
		o.MaxWarmupReplicas = int(n)
	}
	if n, ok, err = num("probing.rebalance.interval.ms"); err != nil {
		return o, err
	} else if ok {
		o.ProbingInterval = time.Duration(n) * time.Millisecond
	}
	n, ok, err = num("acceptable.recovery.lag")
	if err != nil {
		return o, err
	}
	if ok {
		o.AcceptableRecoveryLag = n
	}
	return o, nil
}

// The range of session.timeout.ms a classic group's broker accepts by
// default (group.min.session.timeout.ms, group.max.session.timeout.ms):
// a JoinGroup outside it fails with INVALID_SESSION_TIMEOUT.
const (
	minSessionTimeout = 6 * time.Second
	maxSessionTimeout = 30 * time.Minute
)

// checkGroupTimeouts refuses what Kafka refuses, with no clamp: a
// session.timeout.ms outside the broker's default range (the classic
// group coordinator's check), and a heartbeat.interval.ms not lower than
// the session timeout (the consumer's Heartbeat: "Heartbeat must be set
// lower than the session timeout").
func checkGroupTimeouts(o audit.Options) error {
	s, hb := o.SessionTimeout, o.HeartbeatInterval
	if !o.SessionTimeoutAssumed && (s < minSessionTimeout || s > maxSessionTimeout) {
		return fmt.Errorf("session.timeout.ms %d is outside %d..%d, the range the broker accepts by default "+
			"(group.min.session.timeout.ms .. group.max.session.timeout.ms): Kafka refuses the member's join",
			s.Milliseconds(), minSessionTimeout.Milliseconds(), maxSessionTimeout.Milliseconds())
	}
	if hb > 0 && hb >= s {
		return fmt.Errorf("heartbeat.interval.ms %d is not lower than session.timeout.ms %d: the Kafka consumer refuses it "+
			"(the heartbeat must be lower than the session timeout)", hb.Milliseconds(), s.Milliseconds())
	}
	return nil
}

// run reads the application, answers what each instance's loss would
// cost, and writes the answer as --format says.
func (f *auditFlags) run(cmd *cobra.Command, g *globalFlags, args []string) error {
	if f.format != "text" && f.format != "json" {
		return fmt.Errorf("--format %q: want text or json", f.format)
	}
	if f.app == "" {
		return errors.New("--application-id is required: the application's application.id (its group and the prefix of its topics)")
	}
	if err := config.CheckAppID(f.app); err != nil {
		return fmt.Errorf("--application-id: %w", err)
	}
	if f.maxRead < -1 {
		return fmt.Errorf("--max-read: %d is negative; 0 reads no shape, -1 whole topics", f.maxRead)
	}
	o, err := f.options(args)
	if err != nil {
		return err
	}
	cc, err := g.clusterConfig(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	for _, c := range f.changelogs {
		if err := config.ValidateTopicName(c); err != nil {
			return fmt.Errorf("--changelog %q: %w", c, err)
		}
	}
	ro := audit.ReadOptions{MaxRead: f.maxRead, Changelogs: f.changelogs}
	if !g.quiet {
		ro.Progress = cmd.ErrOrStderr()
	}
	r, err := audit.Read(ctx, cc, f.app, ro)
	// Only an audit that saw nothing is still written as JSON (with what
	// it could not see); an interrupted one is not written at all.
	if err != nil && (r == nil || f.format != "json" || !errors.Is(err, audit.ErrNothing)) {
		return err
	}
	audit.Answer(r, o)
	write := audit.WriteText
	if f.format == "json" {
		write = audit.WriteJSON
	}
	if werr := write(cmd.OutOrStdout(), r); werr != nil {
		return werr
	}
	return err
}

// options are the audit's settings: the application's Streams
// properties, and the measured runs of --from and args with --case.
func (f *auditFlags) options(args []string) (audit.Options, error) {
	o, err := auditStreamsConfig(f.streamsConfig)
	if err != nil {
		return o, err
	}
	inputs := append(append([]string(nil), f.from...), args...)
	if len(inputs) > 0 {
		rs, err := capacity.LoadRuns(inputs)
		if err != nil {
			return o, err
		}
		for _, r := range rs {
			termsafe.Scrub(r.Results)
		}
		o.Runs, o.Case = rs, f.caseName
	}
	return o, nil
}
