package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/warmup"
)

// newPredictCmd is `restorebench predict`, the models that answer what
// cannot be run here; `predict scaleout` is the warmup model.
func newPredictCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Predict what cannot be run here, from a model (every answer labelled a prediction)",
	}
	cmd.AddCommand(newPredictScaleOutCmd())
	return cmd
}

// predictFlags are predict scaleout's flags as given.
type predictFlags struct {
	from                                             string
	tasks, before, after, threads, standbys, warmups int
	taskSize, recordSize, restoreRate                string
	taskOffsets                                      int64
	writeRate                                        rateValue
	writeRecords                                     float64
	acceptable                                       int64
	probing, startup, rebalance, followUp            time.Duration
	protocol                                         string
	samples                                          int
	seed                                             uint64
	asJSON                                           bool
}

func newPredictScaleOutCmd() *cobra.Command {
	f := &predictFlags{}
	cmd := &cobra.Command{
		Use:   "scaleout",
		Short: "Predict the warmup-assignment time of adding Kafka Streams instances (KIP-441)",
		Long: `predict scaleout simulates the classic group protocol's HighAvailabilityTaskAssignor
(Kafka Streams 4.4) round by round: the balanced target in process-id order,
warmups for tasks whose target client is not within acceptable.recovery.lag
(at most max.warmup.replicas per rebalance, group-wide), a probing rebalance
every probing.rebalance.interval.ms while tasks still have to move, warmups
restoring at the restore rate per stream thread while the changelogs grow at
the write rate. It prints the predicted time until the assignment is balanced
and every task runs, the probing rounds and the round timeline. With
--protocol streams it models KIP-1071 in 4.4 instead: no warmups, moved tasks
restore from scratch.

Nothing is measured: the output is labelled a prediction and lists its
inputs. The restore rate comes from --restore-rate or from a results file
(--from: a scale-out run's setup, else its verified cold restores). Where the
new instances' process ids sort decides which tasks move; unknown here, the
model samples random orders and reports the median and the spread.

With --from a scale-out run and no shape flags, the run's own measured
scale-out is predicted again and shown beside what was measured.`,
		Example: `  restorebench predict scaleout --tasks 200 --task-size 20GB --before 6 --after 12 --restore-rate 50MB
  restorebench predict scaleout --tasks 8 --task-size 20MB --before 2 --after 4 --restore-rate 25MB --probing-interval 1m
  restorebench predict scaleout --from results/20261129-120000-scaleout --tasks 200 --task-size 20GB --before 6 --after 12
  restorebench predict scaleout --from results/20261129-120000-scaleout`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPredictScaleOut(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "results.json (or run directory) to take the restore rate from, and, for a scale-out run, its measured inputs")
	fl.IntVar(&f.tasks, "tasks", 0, "stateful tasks (changelog partitions)")
	fl.StringVar(&f.taskSize, "task-size", "", "state per task as key+value bytes (20GB, 500MiB)")
	fl.Int64Var(&f.taskOffsets, "task-offsets", 0, "state per task as changelog offsets (instead of --task-size)")
	fl.StringVar(&f.recordSize, "record-size", "", "key+value bytes per changelog record (default: from --from, else 1000)")
	fl.IntVar(&f.before, "before", 0, "instances before the scale-out")
	fl.IntVar(&f.after, "after", 0, "instances after it")
	fl.StringVar(&f.restoreRate, "restore-rate", "", "bytes a second one stream thread restores (50MB, 80MiB; \"/s\" optional)")
	fl.Var(&f.writeRate, "write-rate", "bytes a second written to the changelogs in all, e.g. 5MB/s (as in plan and "+
		"report; converted to records with the record size)")
	fl.Float64Var(&f.writeRecords, "write-records", 0, "records a second written to the changelogs in all (instead of --write-rate)")
	fl.IntVar(&f.warmups, "max-warmup-replicas", warmup.DefaultMaxWarmupReplicas, "max.warmup.replicas: warmups per rebalance, group-wide")
	fl.DurationVar(&f.probing, "probing-interval", warmup.DefaultProbingIntervalSeconds*time.Second, "probing.rebalance.interval.ms (at least 1m)")
	fl.Int64Var(&f.acceptable, "acceptable-recovery-lag", warmup.DefaultAcceptableRecoveryLag, "acceptable.recovery.lag, in offsets")
	fl.IntVar(&f.standbys, "standbys", 0, "num.standby.replicas")
	fl.IntVar(&f.threads, "threads", 1, "num.stream.threads per instance")
	fl.StringVar(&f.protocol, "protocol", warmup.ProtocolClassic, "group.protocol: classic or streams")
	fl.DurationVar(&f.startup, "startup", warmup.DefaultStartupSeconds*time.Second, "new instances' start to their first rebalance")
	fl.DurationVar(&f.rebalance, "rebalance", warmup.DefaultRebalanceSeconds*time.Second, "how long a rebalance takes to take effect")
	fl.DurationVar(&f.followUp, "follow-up", warmup.DefaultFollowUpSeconds*time.Second, "delay of the follow-up "+
		"rebalance that hands revoked tasks over (about heartbeat.interval.ms)")
	fl.IntVar(&f.samples, "samples", warmup.DefaultSamples, "random process-id orders to simulate")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the sampled orders")
	fl.BoolVar(&f.asJSON, "json", false, "print the prediction as JSON")
	return cmd
}

// runPredictScaleOut builds the inputs, predicts and prints.
func runPredictScaleOut(cmd *cobra.Command, f *predictFlags) error {
	var res *runs.Results
	if f.from != "" {
		var err error
		if _, res, err = loadArg(f.from); err != nil {
			return err
		}
	}
	shape := cmd.Flags().Changed("tasks") || cmd.Flags().Changed("before") || cmd.Flags().Changed("after")
	if res != nil && !shape {
		return replayScaleOuts(cmd, res)
	}
	in, err := f.inputs(cmd, res)
	if err != nil {
		return err
	}
	p, err := warmup.PredictContext(cmd.Context(), in)
	if err != nil {
		return err
	}
	return printPrediction(cmd, p, f.asJSON)
}

// inputs turns the flags (and the rate a results file gives) into the
// model's inputs.
func (f *predictFlags) inputs(cmd *cobra.Command, res *runs.Results) (warmup.Inputs, error) {
	in := warmup.Settings{Protocol: f.protocol, Before: f.before, After: f.after, Threads: f.threads, Standbys: f.standbys,
		MaxWarmupReplicas: f.warmups, AcceptableRecoveryLag: f.acceptable, ProbingIntervalSeconds: f.probing.Seconds()}.Inputs()
	in.WriteRate, in.StartupSeconds, in.RebalanceSeconds, in.FollowUpSeconds = f.writeRecords, f.startup.Seconds(), f.rebalance.Seconds(), f.followUp.Seconds()
	if f.writeRate > 0 && f.writeRecords > 0 {
		return in, errors.New("--write-rate and --write-records: give one (bytes a second, or records a second)")
	}
	in.Samples, in.Seed, in.Source = f.samples, f.seed, "flags"
	if f.protocol == warmup.ProtocolStreams && !cmd.Flags().Changed("follow-up") {
		in.FollowUpSeconds = warmup.DefaultStreamsGroupHeartbeatInterval.Seconds()
	}
	if !cmd.Flags().Changed("startup") || !cmd.Flags().Changed("rebalance") || !cmd.Flags().Changed("follow-up") {
		in.Source += " (startup, rebalance and follow-up times assumed unless given)"
	}
	switch {
	case f.tasks <= 0 && cmd.Flags().Changed("tasks"):
		return in, fmt.Errorf("--tasks: %d must be positive", f.tasks)
	case f.tasks <= 0:
		return in, errors.New("--tasks: say how many tasks (changelog partitions)")
	case f.tasks > warmup.MaxTasks:
		// Refused before the tasks' sizes are allocated.
		return in, fmt.Errorf("--tasks: %d is over %d", f.tasks, warmup.MaxTasks)
	case f.samples < 1 || f.samples > warmup.MaxSamples:
		return in, fmt.Errorf("--samples: %d must be between 1 and %d", f.samples, warmup.MaxSamples)
	case f.after > warmup.MaxClients:
		return in, fmt.Errorf("--after: %d is over %d", f.after, warmup.MaxClients)
	case f.after*f.tasks > warmup.MaxCells:
		return in, fmt.Errorf("--after × --tasks: %d × %d is over %d (the simulation's state)", f.after, f.tasks, warmup.MaxCells)
	case f.threads > warmup.MaxThreads:
		return in, fmt.Errorf("--threads: %d is over %d", f.threads, warmup.MaxThreads)
	}
	recordSize := 1000.0
	rate := 0.0
	if res != nil {
		tr, ok := runs.RestoreRateOf(res)
		if !ok {
			return in, fmt.Errorf("--from %s: no scale-out and no verified cold restore to take a restore rate from", f.from)
		}
		rate, in.RestoreRateFrom = tr.OffsetsPerSec, tr.From+" in "+f.from
		if tr.BytesPerOffset > 0 {
			recordSize = tr.BytesPerOffset
		}
	}
	if f.recordSize != "" {
		n, err := config.ParseSize(f.recordSize)
		if err != nil || n <= 0 {
			return in, fmt.Errorf("--record-size %q: want a positive size such as 1000 or 1KiB", f.recordSize)
		}
		recordSize = float64(n)
	}
	in.BytesPerOffset = recordSize
	if f.writeRate > 0 {
		in.WriteRate = float64(f.writeRate) / recordSize
	}
	if f.restoreRate != "" {
		n, err := config.ParseSize(strings.TrimSuffix(strings.TrimSpace(f.restoreRate), "/s"))
		if err != nil || n <= 0 {
			return in, fmt.Errorf("--restore-rate %q: want bytes a second such as 50MB", f.restoreRate)
		}
		rate, in.RestoreRateFrom = float64(n)/recordSize, "--restore-rate "+f.restoreRate
	}
	if rate <= 0 {
		return in, errors.New("--restore-rate or --from: the model needs the rate one stream thread restores")
	}
	in.RestoreRate = rate
	offsets, err := f.offsetsPerTask(recordSize)
	if err != nil {
		return in, err
	}
	in.TaskOffsets = warmup.Uniform(f.tasks, offsets)
	return in, nil
}

// offsetsPerTask is --task-offsets, or --task-size over the record size.
func (f *predictFlags) offsetsPerTask(recordSize float64) (int64, error) {
	switch {
	case f.taskOffsets > 0 && f.taskSize != "":
		return 0, errors.New("--task-size and --task-offsets: give one")
	case f.taskOffsets > 0:
		return f.taskOffsets, nil
	case f.taskSize == "":
		return 0, errors.New("--task-size (or --task-offsets): the state per task")
	}
	n, err := config.ParseSize(f.taskSize)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--task-size %q: want a positive size such as 20GB", f.taskSize)
	}
	return int64(float64(n) / recordSize), nil
}

// replayScaleOuts predicts again, from their recorded inputs, the
// scale-outs a run measured, and shows each beside the measurement.
func replayScaleOuts(cmd *cobra.Command, res *runs.Results) error {
	w := cmd.OutOrStdout()
	n := 0
	for _, r := range res.Restores {
		so := r.ScaleOut
		if so == nil || so.Prediction == nil {
			continue
		}
		in := so.Prediction.Inputs
		if in.FollowUpSeconds == 0 {
			in.FollowUpSeconds = so.FollowUpSeconds() // files written before the model had it
		}
		p, err := warmup.PredictContext(cmd.Context(), in)
		if err != nil {
			return fmt.Errorf("case %s #%d: %w", r.Case, r.Repeat, err)
		}
		if n > 0 {
			fmt.Fprintln(w)
		}
		n++
		fmt.Fprintf(w, "case %s #%d: MEASURED warmup-assignment %s, %d probing rounds, %d rebalances (verified %v)\n",
			r.Case, r.Repeat, units.SecondsTerse(so.WarmupAssignmentSeconds), so.ProbingRounds, so.Rebalances, r.Verified)
		if err := printPrediction(cmd, p, false); err != nil {
			return err
		}
		if m := so.WarmupAssignmentSeconds; m > 0 {
			fmt.Fprintf(w, "prediction vs measured: %+.1f%%\n", (p.TotalSeconds-m)/m*100)
		}
	}
	if n == 0 {
		return errors.New("the run has no scale-out with a prediction to replay; give --tasks, --task-size, --before and " +
			"--after to predict a scale-out with its restore rate")
	}
	return nil
}

func printPrediction(cmd *cobra.Command, p warmup.Prediction, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	return p.WriteSummary(cmd.OutOrStdout())
}
