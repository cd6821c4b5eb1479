package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/config"
	rpt "github.com/restorebench/restorebench/report"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// printSummary prints a run's fills, then one table per scenario it
// measured (rpt.PrintScenarioTables), the restores of topics it did not fill, Kafka
// Streams' own metrics where they were sampled, then what did not verify;
// every figure is read from res, i.e. from results.json at path.
func printSummary(w io.Writer, res *runs.Results, path string) {
	fills := res.Fills
	if len(fills) == 0 && res.Fill != nil {
		fills = []*runs.Fill{res.Fill}
	}
	for _, f := range fills {
		how := "filled now"
		if f.Reused {
			how = "reused fill"
		}
		if f.Spec == nil && f.ExpectedFrom == runs.ExpectedFromIndependentRead {
			var keys int64
			for _, p := range f.Expected {
				keys += p.Keys
			}
			fmt.Fprintf(w, "\nchangelog %s: existing topic, not filled by restorebench: "+
				"restores verified against an independent read of it (%d live keys)\n", f.Topic, keys)
		} else if f.Spec == nil {
			fmt.Fprintf(w, "\nchangelog %s: existing topic, not filled by restorebench\n", f.Topic)
		} else {
			fmt.Fprintf(w, "\nchangelog %s (%s): %d records, %.1f MB key+value, fill %.1f MB/s, %.0f records/s\n",
				f.Topic, how, f.Records, float64(f.Bytes)/1e6, f.MBPerSec, f.RecordsPerSec)
			if rb := res.ReadBackOf(f); rb.Compacted(f) {
				fmt.Fprintf(w, "  %s\n", rb.Describe(f))
			}
			printFillTransactions(w, f)
		}
	}
	printVersions(w, res.Restores)
	rpt.PrintScenarioTables(w, res)
	rpt.PrintConfirmations(w, res)
	rpt.PrintStoreKinds(w, res.Restores)
	rpt.PrintQueries(w, res.Restores)
	rpt.PrintReadOutages(w, res.Restores)
	printReads(w, res.Restores)
	printUnverified(w, res.Restores, res.Fill)
	printKafkaStreamsMetrics(w, res.Restores)
	for _, r := range res.Restores {
		// A ledger check's outcome is in the failover table (at-least-once
		// duplicates are reported there, not as failures).
		if r.Verification.Mode == runs.VerificationLedger {
			continue
		}
		if r.Verification.Mode != verify.ModeUnverified && !r.Verified {
			fmt.Fprintf(w, "FAILED: %s #%d: %s\n", r.Case, r.Repeat, r.Error)
		}
	}
	if reason := res.IncompleteReason(); reason != "" {
		fmt.Fprintf(w, "INCOMPLETE: %s\n", reason)
	}
	fmt.Fprintf(w, "results: %s\n", path)
}

// printVersions says, when the records ran several Kafka Streams versions,
// which profile cases ran which (the tables below name cases, and a case
// name need not carry its version); `compare` sets them side by side.
func printVersions(w io.Writer, restores []runs.Restore) {
	versions := runs.KafkaStreamsVersions(restores)
	if len(versions) < 2 {
		return
	}
	cases := map[string][]string{}
	for _, r := range restores {
		v := runs.KafkaStreamsVersionOf(r)
		if v != "" && !slices.Contains(cases[v], r.ProfileCase()) {
			cases[v] = append(cases[v], r.ProfileCase())
		}
	}
	fmt.Fprintln(w, "\nKafka Streams versions (restorebench compare RUN sets each beside the same cases on 4.4.0):")
	for _, v := range versions {
		fmt.Fprintf(w, "  %s: %s\n", v, strings.Join(cases[v], ", "))
	}
}

// printUnverified prints, for restores of a topic restorebench did not
// fill, what a user restoring a copy of their own changelog came for: time,
// throughput, records, live keys and bytes, with the note that nothing was
// checked against an expected state.
func printUnverified(w io.Writer, restores []runs.Restore, fill *runs.Fill) {
	read := fill != nil && fill.Spec == nil && fill.ExpectedFrom == runs.ExpectedFromIndependentRead
	first := true
	for _, r := range restores {
		if r.Error != "" || !(r.Verification.Mode == verify.ModeUnverified || read && r.Verified && r.Topic == fill.Topic) {
			continue
		}
		if first && r.Verification.Mode == verify.ModeUnverified {
			fmt.Fprintln(w, "not verified (a topic restorebench did not fill; its contents were counted, not checked):")
		} else if first {
			fmt.Fprintf(w, "verified against an independent read of the topic (%s, as Kafka Streams restores it):\n", readFolds(r))
		}
		first = false
		keys, live := r.Verification.Totals()
		ready := ""
		if r.Ready != nil {
			ready = fmt.Sprintf(", ready after %.2fs more", r.Ready.Seconds)
		}
		fmt.Fprintf(w, "  %s #%d: %d records (%.1f MB) restored in %.2fs (%.1f MB/s, %.0f records/s)%s; %d live keys, %.1f MB live\n",
			r.Case, r.Repeat, r.Records, float64(r.Bytes)/1e6, r.DurationSeconds, r.MBPerSec, r.RecordsPerSec, ready, keys, float64(live)/1e6)
	}
}

// readFolds says what the independent read kept of the topic a restore
// was verified against, as its store kind declares it
// (config.ForeignRead.Folds): each key's last value, and for a window
// store's changelog per window, the windows past the retention left out.
func readFolds(r runs.Restore) string {
	if r.Store == nil {
		return config.ForeignReadOf(config.StoreKeyValue).Folds
	}
	return config.ForeignReadOf(r.Store.Kind).Folds
}

// incompleteReason says why a run's results are partial.
func incompleteReason(res *runs.Results) string { return res.IncompleteReason() }

// errIncomplete makes summary and plot exit non-zero on partial results,
// after showing them.
var errIncomplete = errors.New("the results are incomplete")

// printRestoresCSV writes one row per record of the run: what every
// scenario's record has in common, with units in the header. A record's
// duration is its own scenario's (a restore, a gap, an assignment time or
// a downtime), so the scenario column says which.
func printRestoresCSV(w io.Writer, res *runs.Results) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"case", "repeat", "scenario", "engine", "verified", "error", "duration_seconds", "records",
		"bytes", "mb_per_sec", "records_per_sec", "peak_rss_bytes", "cpu_seconds", "kafka_streams_version"})
	for _, r := range res.Restores {
		sc := string(r.Params.Scenario)
		if sc == "" {
			sc = string(config.ScenarioCold)
		}
		cw.Write([]string{r.Case, strconv.Itoa(r.Repeat), sc, string(runs.EngineOf(r.Params)), strconv.FormatBool(r.Counts()), r.Error,
			strconv.FormatFloat(r.Seconds(), 'f', -1, 64), strconv.FormatInt(r.Records, 10), strconv.FormatInt(r.Bytes, 10),
			strconv.FormatFloat(r.MBPerSec, 'f', -1, 64), strconv.FormatFloat(r.RecordsPerSec, 'f', -1, 64),
			strconv.FormatInt(r.PeakRSSBytes, 10), strconv.FormatFloat(r.CPUSeconds, 'f', -1, 64), runs.KafkaStreamsVersionOf(r)})
	}
	cw.Flush()
	return cw.Error()
}

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
				if err := printRestoresCSV(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			case "json":
				if err := rpt.NewSummaryJSONReporter(res, path)(cmd.OutOrStdout()); err != nil {
					return err
				}
			default:
				printSummary(cmd.OutOrStdout(), res, path)
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
