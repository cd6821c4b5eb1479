package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/metrics"
	"github.com/restorebench/restorebench/plots"
	"github.com/restorebench/restorebench/profiles"
	rpt "github.com/restorebench/restorebench/report"
	"github.com/restorebench/restorebench/runs"
)

// runFlags are run's own flags.
type runFlags struct {
	out          string
	repeats      int
	confirm      int
	refill, keep bool
	noPlots      bool
	agents       string
	metricsAddr  string
}

func newRunCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Annotations: map[string]string{drawsProgress: "true"},
		Use:         "run PROFILE",
		Short:       "Run a profile: fill (or reuse) the changelog, then every case, verified",
		Long: `run reads a profile (a YAML file, or a built-in name: ` + fmt.Sprint(profiles.Builtins()) + `),
fills its changelog or reuses an earlier identical fill (after checking the topic
still holds it), runs each case × repeat as its scenario asks (a cold restore into
fresh stores unless the case names another scenario), verifies each, and writes
results.json and plots (PNG and SVG) to --out. results.json is rewritten after every restore, so
an interrupted run keeps what finished.`,
		Example: `  restorebench run quick
  restorebench --brokers 127.0.0.1:19092 run tuning --repeats 4
  restorebench --brokers 127.0.0.1:19092 run tuning --confirm 3
  restorebench run my-profile.yaml --out results/my-run`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, g, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "directory for results.json and plots (default results/<run-id>); must not hold another run's results")
	fl.IntVar(&f.repeats, "repeats", 0, "override the profile's repeats")
	fl.IntVar(&f.confirm, "confirm", 0, "screen on the model, confirm on Kafka Streams: after each fill's model cases, restore "+
		"the defaults and the K fastest settings Kafka Streams can apply on the kafka-streams engine too (as <case>-ks), "+
		"interleaved, and show each setting's effect on both engines with an agreement verdict (overrides the profile's confirm; "+
		"default: the profile's, none unless it says)")
	fl.BoolVar(&f.refill, "refill", false, "delete and refill the changelog if it holds a different fill")
	fl.BoolVar(&f.keep, "keep-state", false, "leave restored stores on disk (under --state-dir)")
	fl.BoolVar(&f.noPlots, "no-plots", false, "write results.json only")
	addControlKeyFlag(cmd, g)
	addMetricsFlag(cmd, &f.metricsAddr, "the run (phase, case, fill and restore progress, agents)")
	fl.BoolVar(&g.insecureAgents, "insecure-agents", false, "command the agents without a signing key (they run "+
		"--insecure): only where the cluster's ACLs let nobody else write to "+agent.ControlTopic)
	fl.StringVar(&f.agents, "agents", "", "NAME,... or any:N: run every case's restores on these agents (`restorebench "+
		"agent`), or on N of those heard on the control topic (the first N by name), placed round robin "+
		"or by the profile's placement: the kafka-streams instances of cold, warm, standby, failover, "+
		"scaleout and rolling, the model engine's cold and warm restores, and the fill (other model "+
		"scenarios, queries beside cold or warm, and limits are refused); default: on this machine")
	return cmd
}

// run runs profile: its checks, the live metrics, the run itself, then
// the plots, summary and next steps of what it finished.
func (f *runFlags) run(cmd *cobra.Command, g *globalFlags, profile string) error {
	plan, err := profiles.Load(profile)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("repeats") && f.repeats <= 0 {
		return fmt.Errorf("--repeats: %d must be positive", f.repeats)
	}
	if f.repeats > 0 {
		if err := profiles.CheckJobs(len(plan.Cases), plan.Fills(), f.repeats); err != nil {
			return fmt.Errorf("--%w", err)
		}
	}
	if cmd.Flags().Changed("confirm") {
		if err := plan.SetConfirm(f.confirm); err != nil {
			return fmt.Errorf("--%w", err)
		}
	}
	if g.agents, g.anyAgents, err = parseAgents(f.agents); err != nil {
		return err
	}
	watch := metrics.NewRun()
	if onRunMetrics != nil {
		onRunMetrics(watch)
	}
	stopMetrics, err := serveMetrics(cmd, f.metricsAddr, watch.Registry())
	if err != nil {
		return err
	}
	defer stopMetrics()
	if f.metricsAddr != "" {
		g.watch = watch
	}
	runID, out, env, done, err := g.claimAndConnect(cmd, plan.Name, f.out)
	if err != nil {
		watch.End(err)
		return err
	}
	defer done()
	watch.Describe(runID, plan.Name)
	if env.Agents != nil {
		if err := watch.WatchAgents(env.Agents); err != nil {
			return err
		}
	}
	effective := plan.Repeats
	if f.repeats > 0 {
		effective = f.repeats
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "run %s: profile %s (%d cases × %d repeats), results in %s\n",
		runID, plan.Name, len(plan.Cases), effective, out)
	printCases(cmd.ErrOrStderr(), plan, "  ")
	res, runErr := env.Run(cmd.Context(), plan, bench.RunOptions{
		OutDir: out, RunID: runID, Refill: f.refill, KeepState: f.keep, Repeats: f.repeats,
	})
	watch.End(runErr)
	if res == nil {
		return runErr
	}
	return f.report(cmd, res, out, runErr)
}

// report writes the finished run's plots and prints its summary,
// calibration and next steps; a plot that fails joins runErr.
func (f *runFlags) report(cmd *cobra.Command, res *runs.Results, out string, runErr error) error {
	if !f.noPlots && len(res.Restores) > 0 {
		if files, err := plots.WriteAll(res, out); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("plots: %w", err))
		} else {
			fmt.Fprintf(cmd.ErrOrStderr(), "plots: %d files in %s\n", len(files), out)
		}
	}
	if res.Fill != nil {
		rpt.PrintSummary(cmd.OutOrStdout(), res, filepath.Join(out, "results.json"))
		printCalibration(cmd.OutOrStdout(), res)
	}
	printNextSteps(cmd.OutOrStdout(), res, out)
	return runErr
}

// parseAgents reads --agents: distinct agent names ("" is none), or
// "any:N", N of the agents heard on the control topic.
func parseAgents(s string) ([]string, int, error) {
	if rest, ok := strings.CutPrefix(strings.TrimSpace(s), "any:"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > maxAnyAgents {
			return nil, 0, fmt.Errorf("--agents any:%s: N must be a whole number from 1 to %d", rest, maxAnyAgents)
		}
		return nil, n, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if seen[name] {
			return nil, 0, fmt.Errorf("--agents: %s named twice", name)
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, 0, nil
}

// maxAnyAgents bounds --agents any:N: a fleet's instances, not a typo's.
const maxAnyAgents = 256

// printNextSteps names the commands that answer a capacity question from
// the run just made, with the run's own directory in them: the shortest way
// from a first run to a first answer.
func printNextSteps(w io.Writer, res *runs.Results, out string) {
	verified := 0
	for _, r := range res.Restores {
		if r.Counts() {
			verified++
		}
	}
	if verified == 0 {
		return
	}
	fmt.Fprintf(w, "\nnext: answer a capacity question for your store from this run, e.g.\n")
	fmt.Fprintf(w, "  restorebench plan --from %s --state 50GiB --partitions 16 --instances 4 --rto 2m\n", out)
	fmt.Fprintf(w, "  restorebench report %s          # the same answers with their evidence, as report.md and report.html\n", out)
}

func newPlotCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "plot RESULTS.json|RUN-DIR",
		Short: "Draw the charts of a results.json (PNG and SVG), from the file alone",
		Example: `  restorebench plot results/20261129-114156-quick
  restorebench plot copied.json --out /tmp/charts`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := resultsPath(args[0])
			if err != nil {
				return err
			}
			res, err := runs.Load(path)
			if err != nil {
				return err
			}
			if len(res.Restores) == 0 {
				return fmt.Errorf("%s: nothing to plot: it records no restore", path)
			}
			if out == "" {
				out = filepath.Dir(path)
			}
			if err := checkOutsideData(cmd, "--out", out); err != nil {
				return err
			}
			claim, err := claimPlotDir(out, path)
			if err != nil {
				return err
			}
			defer claim.release()
			files, err := plots.WriteAll(res, out)
			if err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			if res.IncompleteReason() != "" {
				return fmt.Errorf("%s: %w: %s (the charts show what finished)", path, errIncomplete, incompleteReason(res))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the images (default: beside results.json)")
	return cmd
}

// printCases lists a plan's expanded cases, each with the settings in which
// it differs from Kafka Streams' defaults, so a matrix over a RocksDB option
// shows the option it varies.
func printCases(w io.Writer, p *profiles.Plan, indent string) {
	for _, c := range p.Cases {
		fmt.Fprintf(w, "%s%s: %s\n", indent, termsafe.String(c.Name), termsafe.String(capacity.Describe(c)))
	}
}

func newProfilesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in profiles, or print one",
		Example: `  restorebench profiles
  restorebench profiles tuning > my-tuning.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if len(args) == 1 {
				p, err := profiles.Load(args[0])
				if err != nil {
					return err
				}
				fmt.Fprint(w, p.YAML)
				// The expansion, as YAML comments so the output stays a profile.
				fmt.Fprintf(w, "\n# expands to %d cases (settings that differ from Kafka Streams' defaults):\n", len(p.Cases))
				printCases(w, p, "#   ")
				return nil
			}
			names := profiles.Builtins()
			width := 0
			for _, name := range names {
				width = max(width, len(name))
			}
			for _, name := range names {
				p, err := profiles.Load(name)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%-*s  %s\n", width, name, p.Description)
			}
			return nil
		},
	}
}
