package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/compare"
	rpt "github.com/restorebench/restorebench/report"
	"github.com/restorebench/restorebench/runs"
)

const calibrationLong = `calibration pairs, in each run, every kafka-streams case with the model case of
the same settings on the same changelog (everything but the engine and the JVM
and Kafka Streams-only properties; in a size sweep, each size with itself) and
prints, per setting, both engines' median restore seconds and the ratio
model / kafka-streams: median and min-max over repeat pairs (repeat i of both
cases, both verified). Run the built-in profile calibrate to make such a run;
its cases alternate the engines.

Then the factor the planner applies, Kafka Streams / model, with a row per
setting, changelog shape and size (bytes a thread): its median and range over
the repeat pairs, and per setting and shape a least-squares fit against log
size with its residuals, across every run given (a run per size, or the
size sweep of calibrate-sizes; runs of other key orders, such as
calibrate-sizes-zipf, give rows of their own shape).

A model time divided by the ratio (multiplied by the factor) predicts Kafka
Streams' time for that setting; plan and report take the factor at the size
they are asked about.`

func newCalibrationCmd() *cobra.Command {
	var format string
	var out reportOut
	cmd := &cobra.Command{
		Use:   "calibration RESULTS.json|RUN-DIR...",
		Short: "Model vs real Kafka Streams per setting and size: restore time ratio with spread, and the factor against size",
		Long:  calibrationLong,
		Example: `  restorebench --brokers 127.0.0.1:19092 run calibrate
  restorebench calibration results/20261129-120000-calibrate
  restorebench calibration results/x-calibrate-sizes results/y-calibrate-sizes-zipf
  restorebench calibration results/x --format markdown --out calibration.md`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "markdown" {
				return fmt.Errorf("--format %q: want table or markdown", format)
			}
			if err := out.check(cmd); err != nil {
				return err
			}
			rs, err := calibrationRuns(args)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := writeCalibration(&buf, rs, format == "markdown"); err != nil {
				return err
			}
			return out.write(cmd, buf.Bytes())
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or markdown")
	out.register(cmd.Flags())
	return cmd
}

// calibrationRuns loads each argument for the terminal, labelled R1, R2,
// … as plan labels them; a run given twice is refused (its pairs would
// count twice in every fit).
func calibrationRuns(args []string) ([]*capacity.Run, error) {
	var rs []*capacity.Run
	seen := map[string]string{}
	for i, a := range args {
		path, res, err := loadArg(a)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[res.RunID]; dup {
			return nil, fmt.Errorf("%s: run %s is given twice (also as %s): each run counts once", a, res.RunID, prev)
		}
		seen[res.RunID] = a
		rs = append(rs, &capacity.Run{Label: fmt.Sprintf("R%d", i+1), Path: path, Results: res})
	}
	return rs, nil
}

// writeCalibration writes each run's engine pairs (one run: its table
// alone, as before; several: each under its label), then the factor
// against size across them all.
func writeCalibration(w io.Writer, rs []*capacity.Run, markdown bool) error {
	for _, r := range rs {
		if len(rs) > 1 {
			fmt.Fprintf(w, "%s = %s (run %s):\n\n", r.Label, r.Path, r.Results.RunID)
		}
		if err := compare.NewCalibrationReporter(compare.EnginePairs(r.Results.Restores), markdown)(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	c := capacity.Calibrate(rs)
	if c == nil {
		return nil
	}
	fmt.Fprintln(w, "factor against size (Kafka Streams / model, what plan and report multiply model times by), per setting, changelog shape and size:")
	fmt.Fprintln(w)
	return rpt.NewCalibrationFitReporter(c, markdown)(w)
}

// printCalibration prints the model vs kafka-streams table of a run that
// ran settings on both engines, and nothing otherwise: run calls it after
// the summary. A run that calibrated at several sizes (a size sweep) gets
// the factor against size too.
func printCalibration(w io.Writer, res *runs.Results) {
	pairs := compare.EnginePairs(res.Restores)
	if len(pairs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nmodel vs kafka-streams (restore seconds):")
	compare.NewCalibrationReporter(pairs, false)(w)
	c := capacity.Calibrate([]*capacity.Run{{Label: "R1", Results: res}})
	if c == nil {
		return
	}
	for _, cv := range c.Curves {
		if cv.Fit != nil || cv.NoFit != "" {
			fmt.Fprintln(w, "\nfactor against size (Kafka Streams / model):")
			rpt.NewCalibrationFitReporter(c, false)(w)
			return
		}
	}
}
