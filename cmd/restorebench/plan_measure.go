package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/profiles"
)

// checkMeasure refuses --measure without --from-topic, and a store kind
// for it that a restore of a user's topic cannot build.
func (f *capacityFlags) checkMeasure() error {
	changed := f.changed
	switch {
	case f.measure && f.fromTopic == "":
		return errors.New("--measure: it restores the topic --from-topic names; give --from-topic")
	case !f.measure && changed("measure-store-kind"):
		return errors.New("--measure-store-kind: it is the kind --measure restores into; give --measure")
	case !f.measure && changed("measure-repeats"):
		return errors.New("--measure-repeats: it is how many restores --measure runs; give --measure")
	case !f.measure && changed("measure-engines"):
		return errors.New("--measure-engines: they are the engines --measure restores on; give --measure")
	case f.measureRepeats < 1 || f.measureRepeats > profiles.MaxRepeats:
		return fmt.Errorf("--measure-repeats: %d must be between 1 and %d", f.measureRepeats, profiles.MaxRepeats)
	}
	if err := checkMeasureEngines(f.measureEngines); err != nil {
		return err
	}
	if err := f.checkAgents(); err != nil {
		return err
	}
	if config.RestoresForeign(f.measureKind) {
		return nil
	}
	return fmt.Errorf("--measure-store-kind %q: a restore of your own topic builds a %s store", f.measureKind, config.ForeignKinds())
}

// checkMeasureEngines refuses an empty --measure-engines and one naming an
// engine twice (it would restore twice and count both as one engine's
// repeats), before any broker is contacted.
func checkMeasureEngines(engines []string) error {
	if len(engines) == 0 {
		return errors.New("--measure-engines: empty; give kafka-streams, model or both")
	}
	seen := map[string]bool{}
	for _, e := range engines {
		if config.Engine(e) != config.EngineKafkaStreams && config.Engine(e) != config.EngineModel {
			return fmt.Errorf("--measure-engines: %q is not an engine (kafka-streams, model)", e)
		}
		if seen[e] {
			return fmt.Errorf("--measure-engines: %q is given twice (each engine restores --measure-repeats times once)", e)
		}
		seen[e] = true
	}
	return nil
}

// withMeasured is the plan's inputs when --measure is given: the runs
// measureTopic saves, then inputs (rs, loaded from them), loaded together
// so each run has its own label and counts once; and opts planning with
// the measured restores unless --case names another: the answers rest on
// the topic's own restores, whatever they differ from Kafka Streams'
// defaults in (a timestamped or window store is the application's kind,
// not a setting to choose another rate by). Without --measure, rs.
func (f *capacityFlags) withMeasured(cmd *cobra.Command, inputs []string, rs []*capacity.Run, opts *capacity.Options) ([]*capacity.Run, error) {
	measured, err := f.measureTopic(cmd, rs, *opts)
	if err != nil || len(measured) == 0 {
		return rs, err
	}
	if opts.Case == "" {
		opts.Case = bench.RestoreCaseName
	}
	all, err := capacity.LoadRuns(append(measured, inputs...))
	if err != nil {
		return nil, fmt.Errorf("--measure: %w", err)
	}
	return all, nil
}

// measureTopic restores --from-topic cold on each engine when --measure is
// given, as `restorebench restore --topic` does (restorebench's own
// application id, group and state dir; the user's topic is only read),
// saves each as a run under results/ and returns their results files.
func (f *capacityFlags) measureTopic(cmd *cobra.Command, inputs []*capacity.Run, opts capacity.Options) ([]string, error) {
	if !f.measure {
		return nil, nil
	}
	// Each sampled partition restores alone, as one task of the
	// deployment does, then a sample of two or more restores together on
	// one instance, which checks on the user's own tasks at full size how
	// tasks compose (capacity.CompositionCheck); nil restores the whole
	// topic once a engine.
	var restores [][]int32
	if f.sampled != nil {
		for _, p := range f.sampled.Sampled {
			restores = append(restores, []int32{p})
		}
		if len(f.sampled.Sampled) > 1 {
			restores = append(restores, f.sampled.Sampled)
		}
	} else {
		restores = [][]int32{nil}
	}
	onAgents := len(f.agentNames) > 0 || f.anyAgents > 0
	if f.sampled != nil && !onAgents {
		// On agents the partitions alone come first, one an agent side by
		// side; here they restore one after another, in the order that
		// copies least.
		restores = bench.SampleOrder(restores, f.taskSize)
	}
	f.sayMeasurePlan(cmd.ErrOrStderr(), restores, inputs, opts)
	f.sayMeasureWrites(cmd.ErrOrStderr(), opts)
	if onAgents {
		var out []string
		for _, name := range f.measureEngines {
			c, err := measureCase(config.Engine(name), f.measureKind.Of())
			if err != nil {
				return nil, err
			}
			saved, err := f.measureOnAgents(cmd, c, restores)
			out = append(out, saved...)
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return f.measureHere(cmd, restores)
}

// measureCase is --measure's case on engine: Kafka Streams' defaults, a
// store of kind.
func measureCase(engine config.Engine, kind config.StoreKind) (config.Case, error) {
	c := config.DefaultCase()
	c.Engine, c.StoreKind = engine, kind
	if err := c.Finalize(); err != nil {
		return config.Case{}, fmt.Errorf("--measure: %w", err)
	}
	return c, nil
}

// measureHere restores each of restores (the whole topic, or a sampled
// partition alone or the sample together) on each engine on this machine,
// each a run of its own, on one connection: the restores of a sample share
// its partitions' independent reads and, on kafka-streams, one copy topic
// (bench.SampleSource), deleted when they end, however they end. It
// returns the results files of the runs saved.
func (f *capacityFlags) measureHere(cmd *cobra.Command, restores [][]int32) ([]string, error) {
	env, err := f.g.connect(cmd)
	if err != nil {
		return nil, fmt.Errorf("--measure: %w", err)
	}
	defer env.Close()
	var src *bench.SampleSource
	if f.sampled != nil {
		src = env.NewSampleSource(f.fromTopic)
		src.Know(f.sampledReads)
		defer src.Close()
	}
	var out []string
	for _, name := range f.measureEngines {
		c, err := measureCase(config.Engine(name), f.measureKind.Of())
		if err != nil {
			return nil, err
		}
		for _, parts := range restores {
			dir, err := f.restoreHere(cmd, env, src, c, parts)
			if err != nil {
				return out, err
			}
			out = append(out, filepath.Join(dir, "results.json"))
		}
		if c.Engine == config.EngineKafkaStreams {
			src.Close() // the copy's last restore is done; the reads stay for the next engine
		}
	}
	return out, nil
}

// restoreHere restores parts of --from-topic (nil: the whole topic) cold
// on case c's engine on env, under a run directory of its own, and
// returns it.
func (f *capacityFlags) restoreHere(cmd *cobra.Command, env *bench.Env, src *bench.SampleSource, c config.Case, parts []int32) (string, error) {
	what := f.restoreWhat(parts)
	fmt.Fprintf(cmd.ErrOrStderr(), "--measure: restoring %s cold on the %s engine, %s (restorebench's own application %q; your topic is only read)\n",
		what, c.Engine, capacity.Plural(f.measureRepeats, "time"), config.DefaultAppID)
	runID, dir, claim, err := claimRunOut("measure", "")
	if err != nil {
		return "", fmt.Errorf("--measure: %w", err)
	}
	defer claim.release()
	o := bench.RestoreTopicOptions{Topic: f.fromTopic, AppID: config.DefaultAppID, StoreName: config.DefaultStore, Case: c,
		Repeats: f.measureRepeats, OutDir: dir, RunID: runID, Ready: true, Partitions: parts}
	if parts != nil {
		o.Sample = src
	}
	if _, err := env.RestoreTopic(cmd.Context(), o); err != nil {
		return "", fmt.Errorf("--measure: the %s engine's restore of %s: %w", c.Engine, what, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "--measure: saved %s\n", dir)
	return dir, nil
}

// taskSize is a sampled partition's size as the sample measured it (its
// log segments, else its offsets); 0 for one it did not.
func (f *capacityFlags) taskSize(p int32) float64 {
	if f.sampled == nil {
		return 0
	}
	for _, t := range f.sampled.Tasks {
		if t.Partition == p {
			return t.Size
		}
	}
	return 0
}

// registerAgents adds --agents and the control key flags (as run has
// them) to plan and report: --measure's restores on the user's hosts.
func (f *capacityFlags) registerAgents(cmd *cobra.Command) {
	if f.g == nil {
		return
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agents, "agents", "", "NAME,... or any:N: with --measure, restore on these agents (restorebench agent processes), "+
		"or on N of those heard on the control topic (the first N by name): each sampled partition alone on one agent, the "+
		"agents in parallel, each taking the next partition when free, so each figure is its host's; default: on this machine")
	addControlKeyFlag(cmd, f.g)
	fl.BoolVar(&f.g.insecureAgents, "insecure-agents", false, "command the agents without a signing key (they run "+
		"--insecure): only where the cluster's ACLs let nobody else write to "+agent.ControlTopic)
}

// checkAgents parses --agents as run does (parseAgents), refusing it
// without --measure and a name that is not an agent's, before any broker
// is contacted.
func (f *capacityFlags) checkAgents() error {
	if !f.changed("agents") {
		return nil
	}
	if !f.measure {
		return errors.New("--agents: they are where --measure restores; give --measure")
	}
	names, n, err := parseAgents(f.agents)
	if err != nil {
		return err
	}
	if len(names) == 0 && n == 0 {
		return errors.New("--agents: no agent named; name one or more, e.g. --agents host-a,host-b, or any:N")
	}
	for _, name := range names {
		if err := agent.CheckAgentName(name); err != nil {
			return fmt.Errorf("--agents: %w", err)
		}
	}
	f.agentNames, f.anyAgents = names, n
	return nil
}

// measureOnAgents restores each of restores (one sampled partition each,
// or nil for the whole topic) cold on case c's engine on the agents, in
// parallel: each agent is reached on a connection of its own, and once
// every one is (so their restores start together, and the wall time is
// the slowest task's, not their sum) each restores one at a time, taking
// the next when free, each restore under its own claim and run directory.
// The first failure cancels the others and is returned naming the
// partition and the agent; Ctrl-C stops them all. It returns the results
// files of the restores that finished, in restores' order.
func (f *capacityFlags) measureOnAgents(cmd *cobra.Command, c config.Case, restores [][]int32) ([]string, error) {
	names, err := f.measureAgents(cmd)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 || len(restores) == 0 {
		return nil, errors.New("--agents: no agent to restore on")
	}
	names = names[:min(len(names), len(restores))]
	// The restores log side by side: one line at a time, no bars.
	log := &lockedWriter{w: cmd.ErrOrStderr()}
	cmd.SetErr(log)
	defer cmd.SetErr(log.w)
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	saved := make([]string, len(restores))
	var mu sync.Mutex
	var first error
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel()
	}
	jobs := make(chan int)
	var connected, wg sync.WaitGroup
	connected.Add(len(names))
	for slot, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, err := f.connectAgent(cmd, name)
			connected.Done()
			if err != nil {
				fail(err)
				return
			}
			defer env.Close()
			connected.Wait()
			for j := range jobs {
				dir, err := f.restoreOnAgent(ctx, cmd, env, c, restores[j], name, slot)
				if err != nil {
					fail(err)
					return
				}
				saved[j] = filepath.Join(dir, "results.json")
			}
		}()
	}
	connected.Wait()
feed:
	for j := range restores {
		select {
		case jobs <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	var out []string
	for _, p := range saved {
		if p != "" {
			out = append(out, p)
		}
	}
	if first == nil {
		first = cmd.Context().Err()
	}
	return out, first
}

// connectAgent connects as this command does, with agent name alone and
// no progress bars (the restores share the terminal).
func (f *capacityFlags) connectAgent(cmd *cobra.Command, name string) (*bench.Env, error) {
	g := *f.g
	g.agents, g.anyAgents, g.quiet = []string{name}, 0, true
	env, err := g.connect(cmd)
	if err != nil {
		return nil, fmt.Errorf("--measure: agent %s: %w", name, err)
	}
	return env, nil
}

// restoreOnAgent restores parts of --from-topic cold on env's one agent,
// name, under restorebench's application id for slot (restores side by
// side each need their own), as measureTopic does here, and returns the
// run directory it saved.
func (f *capacityFlags) restoreOnAgent(ctx context.Context, cmd *cobra.Command, env *bench.Env, c config.Case, parts []int32,
	name string, slot int) (string, error) {
	what := f.restoreWhat(parts)
	appID := agentAppID(fmt.Sprint(slot + 1))
	fmt.Fprintf(cmd.ErrOrStderr(), "--measure: restoring %s cold on the %s engine on agent %s, %s (restorebench's own application %q; "+
		"your topic is only read)\n", what, c.Engine, name, capacity.Plural(f.measureRepeats, "time"), appID)
	runID, dir, claim, err := claimRunOut("measure", "")
	if err != nil {
		return "", fmt.Errorf("--measure: %s on agent %s: %w", what, name, err)
	}
	defer claim.release()
	_, err = env.RestoreTopic(ctx, bench.RestoreTopicOptions{Topic: f.fromTopic, AppID: appID, StoreName: config.DefaultStore, Case: c,
		Repeats: f.measureRepeats, OutDir: dir, RunID: runID, Ready: true, Partitions: parts})
	if err != nil {
		return "", fmt.Errorf("--measure: the %s engine's restore of %s on agent %s: %w", c.Engine, what, name, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "--measure: saved %s (restored on agent %s)\n", dir, name)
	return dir, nil
}

// agentAppID is the application id of --measure's restores in agent slot
// n (1, 2, …; "N" to name them all): restores side by side each need
// their own.
func agentAppID(n string) string { return config.DefaultAppID + "-agent-" + n }

// restoreWhat names what a --measure restore of parts restores: --from-topic
// whole (nil), or a sampled partition of it.
func (f *capacityFlags) restoreWhat(parts []int32) string {
	if parts == nil {
		return f.fromTopic
	}
	if len(parts) > 1 {
		return fmt.Sprintf("partitions %s of %s together on one instance, each at its full size (how your tasks restore together)",
			capacity.FormatPartitions(parts), f.fromTopic)
	}
	return fmt.Sprintf("partition %s of %s at its full size", capacity.FormatPartitions(parts), f.fromTopic)
}

// measureAgents are the agents --measure restores on: --agents' names,
// or for any:N the N first by name of those heard, asked once.
func (f *capacityFlags) measureAgents(cmd *cobra.Command) ([]string, error) {
	if f.anyAgents == 0 {
		return f.agentNames, nil
	}
	g := *f.g
	g.agents, g.anyAgents = nil, f.anyAgents
	env, err := g.connect(cmd)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	return env.Agents.Names(), nil
}

// lockedWriter writes each Write whole, one at a time: the log of
// restores running side by side.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sayMeasurePlan says, before --measure starts, what it restores on each
// engine (each restore's partitions and size, its repeats) and what that
// should take: the bytes at the cold-restore rate of the inputs (--from)
// when they have one, else that there is nothing to price it by. The
// sizes are the partitions' log segments (the sample's) or the topic read
// (--from-topic); each restore also starts a process, reads its
// partitions to verify against (unless the read of the topic's shape
// did) and, on kafka-streams, copies them, which the estimate leaves out
// and says so.
func (f *capacityFlags) sayMeasurePlan(w io.Writer, restores [][]int32, inputs []*capacity.Run, opts capacity.Options) {
	var parts []string
	var total float64
	sizes := make([]float64, len(restores))
	for i, ps := range restores {
		b := f.restoreBytes(ps, opts)
		if b <= 0 {
			return // sizes in offsets only: nothing to price or show in bytes
		}
		sizes[i], total = b, total+b
		what := "the whole topic"
		if ps != nil {
			what = "partition " + capacity.FormatPartitions(ps)
			if len(ps) > 1 {
				what = "partitions " + capacity.FormatPartitions(ps) + " together"
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", what, capacity.FormatBytes(b)))
	}
	restored := total * float64(f.measureRepeats)
	est := "no estimate of its time: no restore among the inputs (--from) to price it by"
	if len(inputs) > 0 {
		if a := capacity.Analyze(inputs, capacity.Options{Threads: 1}); a.Rate != nil {
			var secs float64
			for _, b := range sizes {
				secs += a.Rate.Seconds(b).Value * float64(f.measureRepeats)
			}
			read := "one read of each partition restored to verify against"
			if f.sampled != nil && len(f.sampledReads.States)+len(f.sampledReads.TooManyKeys) == len(f.sampled.Sampled) {
				read = "no read of them to verify against (the read of their shape above was it)"
			}
			est = fmt.Sprintf("about %s of restore an engine at the inputs' cold-restore rate (%s/s a thread), plus a process's "+
				"start for each restore, %s and, on kafka-streams, one copy of each partition", capacity.FormatSeconds(secs),
				capacity.FormatBytes(a.Rate.PerThread), read)
		}
	}
	fmt.Fprintf(w, "--measure: on %s, restoring %s, %s each: %s restored an engine, %s\n", strings.Join(f.measureEngines, " and "),
		strings.Join(parts, ", "), capacity.Plural(f.measureRepeats, "time"), capacity.FormatBytes(restored), est)
}

// sayMeasureWrites says, before --measure starts, what it writes to the
// user's cluster: on kafka-streams, the copy a sample restores from
// (bench.SampleCopyTopic), its size and where; nothing otherwise.
func (f *capacityFlags) sayMeasureWrites(w io.Writer, opts capacity.Options) {
	if f.sampled == nil || !slices.Contains(f.measureEngines, string(config.EngineKafkaStreams)) {
		return
	}
	size := "its size as the brokers' log segments hold it is not known here"
	if b := f.restoreBytes(f.sampled.Sampled, opts); b > 0 {
		size = capacity.FormatBytes(b)
	}
	where := "restorebench's topic " + bench.SampleCopyTopic(config.DefaultAppID, f.fromTopic)
	if len(f.agentNames) > 0 || f.anyAgents > 0 {
		where = "a topic of restorebench's for each agent (" + bench.SampleCopyTopic(agentAppID("N"), f.fromTopic) + ")"
	}
	fmt.Fprintf(w, "--measure: on kafka-streams it writes to your cluster a copy of the sampled partitions (%s) in %s, "+
		"from which Kafka Streams restores them, deleted when the restores end; nothing is written to your topic or group\n", size, where)
}

// restoreBytes is the size of a restore of partitions ps (nil: the whole
// topic): the sampled partitions' log segments, else the topic read's
// key+value bytes; 0 when neither says it in bytes.
func (f *capacityFlags) restoreBytes(ps []int32, opts capacity.Options) float64 {
	if ps == nil {
		if ch := opts.Deployment.Changelog; ch != nil {
			return float64(ch.Bytes)
		}
		return 0
	}
	if f.sampled == nil || f.sampled.SizeSource != cluster.SizeFromLogDirs {
		return 0
	}
	var b float64
	for _, t := range f.sampled.Tasks {
		if slices.Contains(ps, t.Partition) {
			b += t.Size
		}
	}
	return b
}
