package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/runs"
)

func newCalibrationCmd() *cobra.Command {
	var format string
	var out reportOut
	cmd := &cobra.Command{
		Use:   "calibration RESULTS.json|RUN-DIR",
		Short: "Model vs real Kafka Streams per setting: restore time ratio with spread",
		Long: `calibration pairs, in one run, every kafka-streams case with the model case of
the same settings (everything but the engine and the JVM and Kafka
Streams-only properties) and prints, per setting, both engines' median restore
seconds and the ratio model / kafka-streams: median and min-max over repeat
pairs (repeat i of both cases, both verified). Run the built-in profile
calibrate to make such a run; its cases alternate the engines.

A model time divided by the ratio predicts Kafka Streams' time for that setting.`,
		Example: `  restorebench --brokers 127.0.0.1:19092 run calibrate
  restorebench calibration results/20261129-120000-calibrate
  restorebench calibration results/x --format markdown --out calibration.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "markdown" {
				return fmt.Errorf("--format %q: want table or markdown", format)
			}
			if err := out.check(cmd); err != nil {
				return err
			}
			_, res, err := loadArg(args[0])
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := compare.NewCalibrationReporter(compare.EnginePairs(res.Restores), format == "markdown")(&buf); err != nil {
				return err
			}
			return out.write(cmd, buf.Bytes())
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or markdown")
	out.register(cmd.Flags())
	return cmd
}

// printCalibration prints the model vs kafka-streams table of a run that
// ran settings on both engines, and nothing otherwise: run calls it after
// the summary.
func printCalibration(w io.Writer, res *runs.Results) {
	pairs := compare.EnginePairs(res.Restores)
	if len(pairs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nmodel vs kafka-streams (restore seconds):")
	compare.NewCalibrationReporter(pairs, false)(w)
}
