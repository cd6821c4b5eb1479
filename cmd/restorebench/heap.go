package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/heapsearch"
	"github.com/restorebench/restorebench/internal/atomicfile"
	"github.com/restorebench/restorebench/internal/boundedread"
	"github.com/restorebench/restorebench/profiles"
)

// heapScenarios are the scenarios a heap search runs: a restore, and a
// restore with a standby following a write load.
var heapScenarios = []config.Scenario{config.ScenarioCold, config.ScenarioStandby}

// heapFlags are heap's own flags.
type heapFlags struct {
	caseName              string
	out                   string
	low, high, resolution config.Size
}

func newHeapCmd(g *globalFlags) *cobra.Command {
	f := &heapFlags{}
	cmd := &cobra.Command{
		Annotations: map[string]string{drawsProgress: "true"},
		Use:         "heap PROFILE --case NAME",
		Short:       "Find the smallest JVM heap with which a kafka-streams case restores (and keeps a standby) and verifies",
		Long: `heap bisects the jvm_heap (-Xmx) of one kafka-streams case of a profile, a cold
restore or a standby under a write load, between --low and --high: each step runs
the case once on the profile's fill (filled once, then reused) and counts only if
every restore verified. A step whose JVM runs out of memory is a finding, the heap
below the answer, not a failure of the search; a step that fails for another
reason makes the answer inconclusive. Kafka Streams buffers restoring and standby
records without a cap of its own, so the answer holds for the fill's record sizes
and the case's max.poll.records only. Writes heap.json (schema
restorebench.heap/v1) and each step's results.json under --out.`,
		Example: `  restorebench --brokers 127.0.0.1:19092 heap my-profile.yaml --case standby-1k
  restorebench --brokers 127.0.0.1:19092 heap my-profile.yaml --case cold --low 32MiB --high 1GiB --resolution 8MiB`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, g, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.caseName, "case", "", "the profile's kafka-streams case to search (cold or standby); required")
	fl.StringVar(&f.out, "out", "", "directory for heap.json and each step's results (default results/<run-id>); must not hold another run's "+
		"results, heap.json or step directories (heap-<N>MiB)")
	fl.Var(&f.low, "low", "the smallest heap to try (default 64MiB)")
	fl.Var(&f.high, "high", "the largest heap to try, tried first (default 2GiB)")
	fl.Var(&f.resolution, "resolution", "stop once the verified and the out-of-memory heaps lie this close (default 16MiB)")
	cmd.MarkFlagRequired("case")
	return cmd
}

// run searches the heap of the profile's case and writes heap.json.
func (f *heapFlags) run(cmd *cobra.Command, g *globalFlags, profile string) error {
	cfg, err := f.config(cmd)
	if err != nil {
		return err
	}
	plan, err := profiles.Load(profile)
	if err != nil {
		return err
	}
	c, err := heapCase(plan, f.caseName)
	if err != nil {
		return err
	}
	runID, out, env, done, err := g.claimAndConnect(cmd, plan.Name+"-heap", f.out, heapOutputs...)
	if err != nil {
		return err
	}
	defer done()
	fmt.Fprintf(cmd.ErrOrStderr(), "heap %s: case %s of profile %s, results in %s\n", runID, c.Name, plan.Name, out)
	try := heapStep(cmd, env, plan, c, runID, out)
	res, searchErr := heapsearch.Search(cmd.Context(), cfg, try)
	if res == nil {
		return searchErr
	}
	res.Profile, res.Case, res.Records = plan.Name, c.Name, heapRecords(plan, c)
	return finishHeap(cmd, res, out, searchErr)
}

// maxHeapUnknownHost bounds --high where this host's memory is unknown
// (no /proc/meminfo).
const maxHeapUnknownHost = 1 << 40

// config is the search's bounds from the flags: one given as 0 is an
// error naming it (0 is not the default), and --high is at most this
// host's memory, so no JVM is started with an -Xmx the host cannot give.
func (f *heapFlags) config(cmd *cobra.Command) (heapsearch.Config, error) {
	for _, b := range []struct {
		name  string
		v     config.Size
		least int64
	}{{"low", f.low, heapsearch.MinHeap}, {"high", f.high, heapsearch.MinHeap}, {"resolution", f.resolution, heapsearch.MiB}} {
		if cmd.Flags().Changed(b.name) && b.v <= 0 {
			return heapsearch.Config{}, fmt.Errorf("--%s: %s is under %d MiB, the least it may be (leave the flag out for its default)",
				b.name, b.v, b.least/heapsearch.MiB)
		}
	}
	limit := int64(config.HostMemory())
	if limit <= 0 {
		limit = maxHeapUnknownHost
	}
	return heapsearch.Config{Low: int64(f.low), High: int64(f.high), Resolution: int64(f.resolution), Max: limit}.Resolve()
}

// heapOutputs are what a search writes into --out besides the steps'
// results.json: its heap.json and a directory per step. A --out already
// holding one is another search's, refused (claimOutDir).
var heapOutputs = []string{heapsearch.FileName, "heap-*MiB"}

// heapStep is the search's step: the case once at a heap, on the run's
// fill, its results under out/heap-<N>MiB, classified.
func heapStep(cmd *cobra.Command, env *bench.Env, plan *profiles.Plan, c config.Case, runID, out string,
) func(ctx context.Context, heap int64) (heapsearch.Step, error) {
	step := 0
	return func(ctx context.Context, heap int64) (heapsearch.Step, error) {
		step++
		sc := c.Clone()
		sc.JVMHeap = config.Size(heap)
		p := *plan
		p.Cases, p.Repeats = []config.Case{sc}, 1
		dir, err := mkdirOwn(out, fmt.Sprintf("heap-%dMiB", heap/heapsearch.MiB))
		if err != nil {
			return heapsearch.Step{}, fmt.Errorf("heap: step %d: %w", step, err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "heap: step %d, jvm_heap %d MiB\n", step, heap/heapsearch.MiB)
		start := time.Now()
		res, runErr := env.Run(ctx, &p, bench.RunOptions{OutDir: dir, RunID: fmt.Sprintf("%s-%dmib", runID, heap/heapsearch.MiB)})
		if ctx.Err() != nil {
			return heapsearch.Step{}, ctx.Err()
		}
		var errs []string
		verified := res != nil && len(res.Restores) > 0
		if res != nil {
			for _, r := range res.Restores {
				errs = append(errs, r.Error)
				verified = verified && r.Verified
			}
		}
		outcome, msg := heapsearch.Classify(runErr, errs, verified)
		fmt.Fprintf(cmd.ErrOrStderr(), "heap: %d MiB: %s\n", heap/heapsearch.MiB, outcome)
		return heapsearch.Step{Outcome: outcome, Error: msg, Seconds: time.Since(start).Seconds(), Run: dir}, nil
	}
}

// finishHeap writes the search's heap.json, prints it, and fails a search
// that a step made inconclusive.
func finishHeap(cmd *cobra.Command, res *heapsearch.Result, out string, searchErr error) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, heapsearch.FileName), append(b, '\n')); err != nil {
		return err
	}
	printHeap(cmd.OutOrStdout(), res)
	if searchErr != nil {
		return searchErr
	}
	for _, s := range res.Steps {
		if s.Outcome == heapsearch.Failed {
			return fmt.Errorf("heap: the step at %d MiB failed for another reason than memory, so the search is inconclusive: %s",
				s.HeapBytes/heapsearch.MiB, heapsearch.FirstLine(s.Error))
		}
	}
	return nil
}

// heapCase is the case a heap search runs: case name of the plan, a
// kafka-streams cold or standby case, on a plan with one fill.
func heapCase(plan *profiles.Plan, name string) (config.Case, error) {
	if plan.Fills() > 1 {
		return config.Case{}, fmt.Errorf("heap: profile %s sweeps %d fills; a heap search runs one (write a profile with one)", plan.Name, plan.Fills())
	}
	var names []string
	for _, c := range plan.Cases {
		names = append(names, c.Name)
		if c.Name != name {
			continue
		}
		if c.Engine != config.EngineKafkaStreams {
			return c, fmt.Errorf("heap: case %s runs on the %s engine, which has no JVM heap; search a kafka-streams case", name, c.Engine)
		}
		for _, s := range heapScenarios {
			if c.Scenario == s {
				return c, nil
			}
		}
		return c, fmt.Errorf("heap: case %s runs scenario %s; a heap search runs %s or %s", name, c.Scenario, heapScenarios[0], heapScenarios[1])
	}
	return config.Case{}, fmt.Errorf("heap: --case %q is not a case of profile %s (its cases: %s)", name, plan.Name, strings.Join(names, ", "))
}

// heapRecords says the records a heap search's answer holds for: the
// fill's value sizes and the case's max.poll.records.
func heapRecords(plan *profiles.Plan, c config.Case) string {
	values := fmt.Sprintf("%d B", plan.Spec.ValueMin)
	if plan.Spec.ValueMax != plan.Spec.ValueMin {
		values = fmt.Sprintf("%d-%d B", plan.Spec.ValueMin, plan.Spec.ValueMax)
	}
	poll := c.Streams["max.poll.records"]
	if poll == "" {
		poll = "1000 (Kafka Streams' default)"
	}
	return fmt.Sprintf("values of %s, max.poll.records %s", values, poll)
}

// printHeap prints a search's steps and its answer.
func printHeap(w io.Writer, res *heapsearch.Result) {
	fmt.Fprintf(w, "heap search: case %s of profile %s (%s)\n", res.Case, res.Profile, res.Records)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tjvm_heap\toutcome\tseconds\t")
	for i, s := range res.Steps {
		fmt.Fprintf(tw, "%d\t%d MiB\t%s\t%.1f\t\n", i+1, s.HeapBytes/heapsearch.MiB, s.Outcome, s.Seconds)
	}
	tw.Flush()
	for _, s := range res.Steps {
		if s.Outcome == heapsearch.OutOfMemory {
			fmt.Fprintf(w, "  %d MiB: %s\n", s.HeapBytes/heapsearch.MiB, oomExcerpt(s.Error))
		}
	}
	fmt.Fprintf(w, "answer: %s\n", res.Answer)
}

// oomExcerpt is what an out-of-memory step died of: the instance that
// exited and the JVM's error ("instance i0: java.lang.OutOfMemoryError:
// Java heap space"), else the error's first line.
func oomExcerpt(msg string) string {
	i := strings.Index(msg, "java.lang.OutOfMemoryError")
	if i < 0 {
		return heapsearch.FirstLine(msg)
	}
	what := msg[i:]
	if j := strings.IndexAny(what, ")\n"); j >= 0 {
		what = what[:j]
	}
	if k := strings.LastIndex(msg[:i], "instance i"); k >= 0 {
		name, _, _ := strings.Cut(msg[k+len("instance "):], " ")
		what = "instance " + name + ": " + what
	}
	return what
}

// maxHeapFile bounds a heap.json plan reads: a search's is a few kB.
const maxHeapFile = 1 << 20

// loadHeap reads a heap.json (--heap): nil for "", else the search, or
// an error naming the file and what is wrong with it.
func loadHeap(path string) (*heapsearch.Result, error) {
	if path == "" {
		return nil, nil
	}
	b, err := boundedread.ReadFile(path, maxHeapFile)
	if err != nil {
		return nil, fmt.Errorf("--heap: %w", err)
	}
	var res heapsearch.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("--heap %s: not a heap search's JSON: %v", path, err)
	}
	if res.Schema != heapsearch.Schema {
		return nil, fmt.Errorf("--heap %s: schema %q, want %q (the heap.json of restorebench heap)", path, res.Schema, heapsearch.Schema)
	}
	if len(res.Steps) == 0 || res.SmallestVerifiedBytes < 0 || res.LargestOutOfMemoryBytes < 0 {
		return nil, fmt.Errorf("--heap %s: it holds no step of a search", path)
	}
	// The answer is what the steps decide, not what the file says: an
	// interrupted search's heap.json is labelled inconclusive.
	if answer, inconclusive := heapsearch.Verdict(&res); inconclusive {
		res.Answer, res.Inconclusive = answer, true
	}
	return &res, nil
}
