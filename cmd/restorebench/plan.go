package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/loadgen"
	rpt "github.com/restorebench/restorebench/report"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/topicshape"
	"github.com/restorebench/restorebench/warmup"
)

// capacityFlags are the questions report and plan share: the objectives,
// the deployment and which measured configuration to take rates from.
type capacityFlags struct {
	rtos       []time.Duration
	threads    int
	caseName   string
	state      config.Size
	liveState  config.Size
	cleaner    map[string]string
	partitions int
	instances  int
	standbys   int
	writeRate  rateValue
	// disk and memory are what one instance has for its stores.
	disk, memory config.Size
	// heapFile is a `restorebench heap` result (heap.json), whose answer
	// the footprint answers give as the JVM heap an instance needs.
	heapFile string
	// recordsPerKey is the user's changelog's records per live key.
	recordsPerKey float64
	// hotShare is the share of the user's changelog's records whose key
	// is among the loadgen.HotKeyWindow records of its partition before it
	// (-1: not given).
	hotShare float64
	// recordBytes is the key+value bytes of one record of the user's
	// changelog: the restore cost is evaluated at it.
	recordBytes float64
	// fromTopic is the user's changelog topic to read the shape from, over
	// the connection the global flags describe (g).
	fromTopic string
	// measure restores fromTopic on both engines before answering.
	measure bool
	// measureKind is the store kind the measuring restores build, and
	// measureRepeats how many restores each engine runs.
	measureKind    config.StoreKind
	measureRepeats int
	// measureEngines are the engines --measure restores on, in order.
	measureEngines []string
	// sample is how many partitions of fromTopic to read and restore
	// (--sample; 0 the whole topic), samplePartitions which
	// (--sample-partitions); sampled is the sample readTopic chose, nil
	// when the topic is read and restored whole.
	sample           int
	samplePartitions []int
	sampled          *samplePlan
	// sampledReads are the sampled partitions' independent reads, made
	// with their shape when --measure restores them here (readShape), so
	// the restores do not read them again.
	sampledReads topicshape.Folded
	// agents is --agents as given (NAME,... or any:N; default none: every
	// restore here); agentNames and anyAgents are it parsed by checkAgents.
	agents     string
	agentNames []string
	anyAgents  int
	g          *globalFlags
	// fs tells an explicit --state 0 from none.
	fs *pflag.FlagSet
}

// Bounds of a deployment plan answers for.
const (
	// maxPlanPartitions is the most partitions a fill writes.
	maxPlanPartitions = 10_000
	// maxPlanThreads is predict's bound of num.stream.threads.
	maxPlanThreads   = warmup.MaxThreads
	maxPlanInstances = 10_000
	minPlanRTO       = time.Second
	maxPlanRTO       = 30 * 24 * time.Hour
)

func (f *capacityFlags) register(fl *pflag.FlagSet, rtos []time.Duration) {
	f.fs = fl
	fl.DurationSliceVar(&f.rtos, "rto", rtos, "recovery-time objectives, e.g. 1m,5m,15m")
	fl.IntVar(&f.threads, "threads", 1, "num.stream.threads per instance, for the per-instance answers")
	fl.StringVar(&f.caseName, "case", "", "measured case to take the restore rate from "+
		"(default: with --measure, its restores of the topic; else the one with Kafka Streams' default settings)")
	fl.Var(&f.state, "state", "changelog bytes of the store across all partitions, e.g. 50GiB")
	fl.Var(&f.liveState, "live-state", "live state of the store across all partitions (key+value bytes of its current "+
		"records) instead of --state: the changelog is estimated with the restore amplification of "+
		"--cleaner")
	fl.StringToStringVar(&f.cleaner, "cleaner", nil, "the changelog topic's cleaner settings by Kafka's names, e.g. "+
		"min.cleanable.dirty.ratio=0.1,segment.bytes=67108864 (default: Kafka's)")
	fl.IntVar(&f.partitions, "partitions", 0, "changelog partitions (tasks)")
	fl.IntVar(&f.instances, "instances", 0, "application instances sharing the tasks")
	fl.IntVar(&f.standbys, "standbys", 0, "num.standby.replicas")
	fl.Var(&f.disk, "disk", "disk one instance has for its state stores, e.g. 100GiB: the answers say whether its "+
		"active and standby stores fit")
	fl.Var(&f.memory, "memory", "memory one instance has for RocksDB (off-heap), e.g. 2GiB: the answers say whether its stores' "+
		"memtables, block caches and index and filter blocks fit")
	fl.StringVar(&f.heapFile, "heap", "", "a heap.json of `restorebench heap`: the answers add the JVM heap an instance "+
		"needed to restore and keep a standby, from that search")
	fl.Var(&f.writeRate, "write-rate", "bytes per second written to the changelog, e.g. 20MB/s")
	fl.Float64Var(&f.recordsPerKey, "records-per-key", 0, "your changelog's records per live key (1 when fully "+
		"compacted; its record count over its distinct keys): the answers warn when the rate was "+
		"measured far from it")
	fl.Float64Var(&f.hotShare, "hot-share", -1, fmt.Sprintf("the share (0 to 1) of your changelog's records whose key is "+
		"among the %d records of its partition before it (skewed keys restore faster; --from-topic reads it): a restore cost "+
		"that prices such records apart is evaluated at it; not given, the slower end measured is assumed", loadgen.HotKeyWindow))
	fl.Float64Var(&f.recordBytes, "record-bytes", 0, "key+value bytes of one record of your changelog (its bytes over its "+
		"records; --from-topic reads it): the restore time is the fitted cost per record and per byte at that size "+
		"when the inputs sweep record sizes, and the answers say how far it lies from the sizes measured")
	fl.BoolVar(&f.measure, "measure", false, "with --from-topic: restore the topic itself (or, with --sample, its sampled partitions, "+
		"each alone and all together), cold, --measure-repeats times on each of --measure-engines (the real Kafka Streams client "+
		"and the model), into restorebench's own application id, group and state dir (nothing of yours is touched; each restore "+
		"is verified against an independent read and saved as a run under results/; it says up front what it restores and "+
		"writes), and answer from those restores before any --from run")
	fl.Var(stringValue[config.StoreKind]{&f.measureKind}, "measure-store-kind", "with --measure: the store kind to restore into "+
		"(key-value; timestamped-key-value as a DSL count, aggregate or table materializes; timestamped-window as a windowed one does, "+
		"window without the timestamps; session as a session-windowed one does; a window or session store's retention is the topic's "+
		"retention.ms minus a day)")
	fl.StringSliceVar(&f.measureEngines, "measure-engines", []string{string(config.EngineKafkaStreams), string(config.EngineModel)},
		"with --measure: the engines to restore on, in order (the answers rest on kafka-streams' restores when it is among them)")
	fl.IntVar(&f.measureRepeats, "measure-repeats", 2, "with --measure: restores a engine runs (2 give the answers an interval)")
	fl.IntVar(&f.sample, "sample", 0, fmt.Sprintf("with --from-topic: read (and with --measure restore) only this many of its partitions, "+
		"each whole: the largest, the smallest, then ones between by size; the other tasks are priced between them by their "+
		"size on the brokers' disks, and an instance's restore is composed from its tasks' times (0: the whole topic; default: "+
		"with --measure, %d of a topic over %s, else the whole topic)", defaultSample, capacity.FormatBytes(autoSampleBytes)))
	fl.IntSliceVar(&f.samplePartitions, "sample-partitions", nil, "with --from-topic: the partitions to sample, e.g. 3,17 (instead of --sample)")
	fl.StringVar(&f.fromTopic, "from-topic", "", "your changelog topic, read once from log start to end over --brokers "+
		"(and the security flags) for its size, partitions, records per live key, bytes per record and "+
		"tombstone share; the flags given win over what it finds")
}

// readTopic reads --from-topic, when given, and sets the deployment's
// figures the flags left unset from what it holds.
func (f *capacityFlags) readTopic(cmd *cobra.Command, opts *capacity.Options) error {
	if f.fromTopic == "" {
		return nil
	}
	if err := config.ValidateTopicName(f.fromTopic); err != nil {
		return fmt.Errorf("--from-topic: %w", err)
	}
	if f.g == nil {
		return errors.New("--from-topic: this command has no connection flags")
	}
	env, err := f.g.connect(cmd)
	if err != nil {
		return err
	}
	defer env.Close()
	adm, closeAdm, err := env.Admin()
	if err != nil {
		return err
	}
	f.sampled, err = f.planSample(cmd, adm)
	closeAdm()
	if err != nil {
		return err
	}
	o := topicshape.Options{}
	what := "from its log start to its end offsets"
	if f.sampled != nil {
		o.Partitions = f.sampled.Sampled
		what = fmt.Sprintf("partitions %s %s", capacity.FormatPartitions(f.sampled.Sampled), what)
	}
	if !f.g.quiet {
		o.Progress, o.ProgressEvery = cmd.ErrOrStderr(), 5*time.Second
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "reading topic %s %s, read_committed (an "+
		"exactly-once application's aborted records are not counted)\n", f.fromTopic, what)
	shape, err := f.readShape(cmd, env, o)
	if err != nil {
		return fmt.Errorf("--from-topic: %w", err)
	}
	d := &opts.Deployment
	d.Changelog = &shape
	d.TombstoneShare = shape.TombstoneShare()
	changed := f.changed
	if !changed("hot-share") {
		d.HotShare, d.HotKnown = shape.HotShare()
	}
	if !changed("record-bytes") {
		d.BytesPerRecord = shape.BytesPerRecord()
	}
	sp := f.sampled
	if !changed("state") && !changed("live-state") {
		d.StateBytes = float64(shape.Bytes)
		taken := "state " + capacity.FormatBytes(d.StateBytes)
		if sp != nil {
			d.StateBytes = float64(shape.Bytes) / sp.Share()
			taken = fmt.Sprintf("state %s (the sampled partitions' %s scaled by the partitions' %s)",
				capacity.FormatBytes(d.StateBytes), capacity.FormatBytes(float64(shape.Bytes)), sp.SizeSource)
		}
		d.Taken = append(d.Taken, taken)
	}
	if sp != nil {
		s := sp.Sample
		opts.Sample = &s
	}
	if !changed("partitions") {
		d.Partitions = shape.Partitions
		d.Taken = append(d.Taken, capacity.Plural(d.Partitions, "partition"))
	}
	if !changed("records-per-key") && shape.RecordsPerKey > 0 {
		d.RecordsPerKey = shape.RecordsPerKey
		d.Taken = append(d.Taken, fmt.Sprintf("%.2f records per live key", d.RecordsPerKey))
	}
	return nil
}

// readShape reads --from-topic's shape with o. When --measure restores a
// sample of it on this machine into a key-value store (a window or session
// store's read depends on the retention the restore takes from the topic,
// so the restores read those themselves), the same read also makes the
// sampled partitions' independent reads, which the restores are verified
// against (bench.SampleSource.Know): one read of them instead of two.
func (f *capacityFlags) readShape(cmd *cobra.Command, env *bench.Env, o topicshape.Options) (topicshape.Shape, error) {
	if !f.measure || f.sampled == nil || len(f.agentNames) > 0 || f.anyAgents > 0 || len(f.measureEngines) == 0 ||
		config.ForeignReadOf(f.measureKind.Of()).Keys != config.KeysPlain {
		return topicshape.Read(cmd.Context(), env.Cluster, f.fromTopic, o)
	}
	c, err := measureCase(config.Engine(f.measureEngines[0]), f.measureKind.Of())
	if err != nil {
		return topicshape.Shape{}, err
	}
	shape, folded, err := topicshape.ReadWithStates(cmd.Context(), env.Cluster, f.fromTopic, o, bench.IndependentRead(c))
	f.sampledReads = folded
	return shape, err
}

// options validates the flags into the planner's options.
func (f *capacityFlags) options() (capacity.Options, error) {
	for _, c := range []struct {
		name string
		v    int
		min  int
	}{{"--threads", f.threads, 1}, {"--partitions", f.partitions, 0}, {"--instances", f.instances, 0}, {"--standbys", f.standbys, 0}} {
		if c.v < c.min {
			return capacity.Options{}, fmt.Errorf("%s: %d must be at least %d", c.name, c.v, c.min)
		}
	}
	for _, c := range []struct {
		name string
		v    int
		max  int
		what string
	}{{"--threads", f.threads, maxPlanThreads, "as predict"},
		{"--partitions", f.partitions, maxPlanPartitions, "the most a fill writes"},
		{"--instances", f.instances, maxPlanInstances, ""}} {
		if c.v > c.max {
			why := ""
			if c.what != "" {
				why = " (" + c.what + ")"
			}
			return capacity.Options{}, fmt.Errorf("%s: %d is over %d%s", c.name, c.v, c.max, why)
		}
	}
	if f.instances > 0 && f.standbys >= f.instances {
		return capacity.Options{}, fmt.Errorf("--standbys: %d needs more than --instances %d (each standby of a task lives "+
			"on an instance other than its active's)", f.standbys, f.instances)
	}
	if !(f.recordsPerKey == 0 || (f.recordsPerKey >= 1 && f.recordsPerKey <= 1e9)) {
		return capacity.Options{}, fmt.Errorf("--records-per-key: %v must be at least 1 (every live key has its latest record) and at most 1e9", f.recordsPerKey)
	}
	if f.changed("hot-share") && !(f.hotShare >= 0 && f.hotShare <= 1) {
		return capacity.Options{}, fmt.Errorf("--hot-share: %v is not a share from 0 to 1", f.hotShare)
	}
	if f.disk < 0 || f.memory < 0 {
		return capacity.Options{}, errors.New("--disk and --memory: a size must not be negative")
	}
	if !(f.recordBytes == 0 || (f.recordBytes >= 1 && f.recordBytes <= 1e9)) {
		return capacity.Options{}, fmt.Errorf("--record-bytes: %v must be at least 1 (a key of one byte) and at most 1e9", f.recordBytes)
	}
	for _, d := range f.rtos {
		switch {
		case d <= 0:
			return capacity.Options{}, fmt.Errorf("--rto: %s must be positive", d)
		case d < minPlanRTO:
			return capacity.Options{}, fmt.Errorf("--rto: %s is under %s (a restore's own fixed costs take longer)", d, minPlanRTO)
		case d > maxPlanRTO:
			return capacity.Options{}, fmt.Errorf("--rto: %s is over %s (30 days)", d, maxPlanRTO)
		}
	}
	if err := f.checkState(); err != nil {
		return capacity.Options{}, err
	}
	heap, err := loadHeap(f.heapFile)
	if err != nil {
		return capacity.Options{}, err
	}
	return capacity.Options{
		RTOs: f.rtos, Threads: f.threads, Case: f.caseName,
		Deployment: capacity.Deployment{StateBytes: float64(f.state), LiveBytes: float64(f.liveState), CleanerSettings: f.cleaner,
			Partitions: f.partitions, Instances: f.instances, Standbys: f.standbys, WriteRate: float64(f.writeRate),
			RecordsPerKey: f.recordsPerKey, BytesPerRecord: f.recordBytes, DiskBytes: float64(f.disk), MemoryBytes: float64(f.memory),
			HotShare: max(0, f.hotShare), HotKnown: f.changed("hot-share"), Heap: heap},
	}, nil
}

// loadRuns validates the flags (the planner's options, --measure, --sample)
// and then loads the runs in paths: plan and report take their inputs so,
// and refuse bad flags before reading any results.
func (f *capacityFlags) loadRuns(paths []string) (capacity.Options, []*capacity.Run, error) {
	opts, err := f.options()
	if err != nil {
		return opts, nil, err
	}
	if err := f.checkMeasure(); err != nil {
		return opts, nil, err
	}
	if err := f.checkSample(); err != nil {
		return opts, nil, err
	}
	rs, err := capacity.LoadRuns(paths)
	return opts, rs, err
}

// changed reports whether the flag name was given on the command line.
func (f *capacityFlags) changed(name string) bool { return f.fs != nil && f.fs.Changed(name) }

// checkState validates --state, --live-state and --cleaner: one size, not
// negative, and cleaner settings that are numbers.
func (f *capacityFlags) checkState() error {
	changed := f.changed
	switch {
	case f.state < 0:
		return fmt.Errorf("--state: %s is negative", f.state)
	case f.state == 0 && changed("state"):
		return errors.New("--state: 0 must be positive")
	case f.liveState == 0 && changed("live-state"):
		return errors.New("--live-state: 0 must be positive")
	case f.liveState < 0:
		return fmt.Errorf("--live-state: %s is negative", f.liveState)
	case f.state > 0 && f.liveState > 0:
		return errors.New("--state and --live-state: give one (the changelog's size, or the live state to estimate it from)")
	case len(f.cleaner) > 0 && f.liveState <= 0:
		return errors.New("--cleaner: the cleaner settings turn --live-state into a changelog size; give --live-state too")
	}
	keys := make([]string, 0, len(f.cleaner))
	for k := range f.cleaner {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := config.CheckTopicConfig(k, f.cleaner[k]); err != nil {
			return fmt.Errorf("--cleaner %s=%s: %w", k, f.cleaner[k], err)
		}
	}
	return nil
}

// rateValue is a --write-rate: a size per second ("20MB/s", "1GiB/s", "5MB").
type rateValue float64

func (r *rateValue) String() string {
	if *r == 0 {
		return ""
	}
	return capacity.FormatRate(float64(*r))
}

func (r *rateValue) Set(s string) error {
	b, err := config.ParseSize(strings.TrimSuffix(strings.TrimSpace(s), "/s"))
	if err != nil {
		return err
	}
	if b < 0 {
		return fmt.Errorf("rate %q is negative", s)
	}
	if b > runs.MaxPlausibleBytes {
		return fmt.Errorf("rate %q is above %s/s, more than any changelog is written at", s, capacity.FormatBytes(runs.MaxPlausibleBytes))
	}
	*r = rateValue(b)
	return nil
}

func (r *rateValue) Type() string { return "size/s" }

// errNoRuns is plan's error without results to take rates from.
var errNoRuns = errors.New("plan needs measured restore rates: give --from RUN (a results.json or a run directory made by `restorebench run`)")

// planLong is plan's help text.
const planLong = `plan prints the capacity answers a report gives, for the deployment its flags
describe: the cold-restore rate per stream thread measured in the --from runs,
the largest changelog per task and per instance that restores within each
--rto, the partitions a --state needs, and with --partitions and --instances
how long one task's and one instance's cold restore takes and whether that
meets the objective. Each answer names its inputs and the runs it came from.

With warm-restart, standby, failover, scale-out or compaction runs among the
inputs it also answers: the backlog of changes a warm restart replays within
each --rto; the highest write rate a standby sustained and, with
--write-rate, whether a standby keeps up with yours; with --standbys, the
processing gap of a failover to a standby; with --state (or --live-state)
and --partitions, whether a standby is needed for each --rto; and the
measured scale-outs. --live-state gives the store's live state instead of
its changelog: the changelog is estimated from the restore amplification
measured for the --cleaner settings (Kafka's defaults unless given), or,
without a measurement, from the worst case those settings allow, labelled so.

Runs may also be given as arguments. Nothing is run: the rates come from
the results files alone, and 'restorebench report' with the same flags shows
the same numbers in its "Your deployment" section. plan exits
non-zero, naming what is missing, when the inputs cannot answer a question
(no run to take a rate from, --standbys without a failover run, --write-rate
without a standby run).`

// newPlanCmd returns `restorebench plan`: the report's capacity answers on
// the terminal, from flags and measured runs.
func newPlanCmd() *cobra.Command { return newPlanCmdWith(nil) }

// newPlanCmdWith is newPlanCmd with the global connection flags, which
// --from-topic reads the user's changelog over.
func newPlanCmdWith(g *globalFlags) *cobra.Command {
	var from []string
	var format string
	f := capacityFlags{g: g}
	cmd := &cobra.Command{
		Use:   "plan --from RUN... [--state SIZE --partitions N --threads N --instances N --rto D]",
		Short: "Answer capacity questions (partitions, instances, state per task for an RTO) from measured runs",
		Long:  planLong,
		Example: `  restorebench plan --from results/size-1GB --from results/size-4GB --state 50GiB --partitions 16 --threads 4 --instances 6 --rto 5m
  restorebench plan --from results/tuning --case threads-2 --rto 1m,5m
  restorebench plan --from results/capacity --from results/failover --live-state 20GB --cleaner segment.bytes=67108864 ` +
			`--partitions 16 --instances 4 --standbys 1 --write-rate 5MB/s --rto 1m,5m`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: want text or json", format)
			}
			inputs := append(append([]string(nil), from...), args...)
			if len(inputs) == 0 && !f.measure {
				return errNoRuns
			}
			opts, rs, err := f.loadRuns(inputs)
			if err != nil {
				return err
			}
			if err := f.readTopic(cmd, &opts); err != nil {
				return err
			}
			if rs, err = f.withMeasured(cmd, inputs, rs, &opts); err != nil {
				return err
			}
			for _, r := range rs {
				termsafe.Scrub(r.Results)
			}
			a := capacity.Analyze(rs, opts)
			if a.Rate == nil && format != "json" {
				return a.RateErr
			}
			reporter := rpt.NewPlanReporter
			if format == "json" {
				reporter = rpt.NewPlanJSONReporter
			}
			if err := reporter(a)(cmd.OutOrStdout()); err != nil {
				return err
			}
			if n := len(a.Unanswered); n > 0 {
				return fmt.Errorf("%d question(s) cannot be answered from the inputs: %s", n, unansweredText(a.Unanswered))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&from, "from", nil, "results.json files or run directories to take measured rates from (repeatable)")
	fl.StringVar(&format, "format", "text", "text, or json: the same answers as one JSON document for scripts (checks with their margins in seconds)")
	f.register(fl, capacity.DefaultRTOs)
	f.registerAgents(cmd)
	return cmd
}

func unansweredText(us []capacity.Unanswered) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Question
	}
	return strings.Join(parts, "; ")
}
