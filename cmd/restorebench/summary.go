package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	rpt "github.com/restorebench/restorebench/report"
	"github.com/restorebench/restorebench/runs"
)

// incompleteReason says why a run's results are partial.
func incompleteReason(res *runs.Results) string { return res.IncompleteReason() }

// errIncomplete makes summary and plot exit non-zero on partial results,
// after showing them.
var errIncomplete = errors.New("the results are incomplete")

func newSummaryCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "summary RESULTS.json|RUN-DIR",
		Short: "Print a run's summary table again, from its results.json alone",
		Example: `  restorebench summary results/20261129-114156-quick
  restorebench summary copied-from-prod.json
  restorebench summary results/20261129-114156-quick --format csv > restores.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "text", "json", "csv":
			default:
				return fmt.Errorf("--format %q: want text, json or csv", format)
			}
			path, res, err := loadArg(args[0])
			if err != nil {
				return err
			}
			if len(res.Restores) == 0 {
				reason := "it records no restore"
				if !res.Complete {
					reason += "; " + incompleteReason(res)
				}
				return fmt.Errorf("%s: nothing to summarize: %s", path, reason)
			}
			switch format {
			case "csv":
				if err := rpt.PrintSummaryCSV(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			case "json":
				if err := rpt.NewSummaryJSONReporter(res, path)(cmd.OutOrStdout()); err != nil {
					return err
				}
			default:
				rpt.PrintSummary(cmd.OutOrStdout(), res, path)
			}
			if res.IncompleteReason() != "" {
				return fmt.Errorf("%s: %w: %s", path, errIncomplete, incompleteReason(res))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text; json (the cold restores' per-case medians, and whether the "+
		"run is partial); or csv (one row per record, every scenario's common figures)")
	return cmd
}
