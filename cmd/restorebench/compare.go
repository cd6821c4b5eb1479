package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/runs"
)

// compareFlags are compare's flags as given.
type compareFlags struct {
	format, baseline, baselineVersion string
	out                               reportOut
}

func (f *compareFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.format, "format", "table", "output format: table, markdown, json (for scripts: docs/json.md) or benchfmt")
	f.out.register(fl)
	fl.StringVar(&f.baseline, "baseline", "", "with one results file, the case the others are compared with (default: the file's first case)")
	fl.StringVar(&f.baselineVersion, "baseline-version", "", "with one results file, compare each kafka-streams case on "+
		"another Kafka Streams version with the same case on this one (default, when the records ran "+
		"several versions and --baseline is not given: 4.4.0, or the last version they ran)")
}

func newCompareCmd() *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare BASE.json [OTHER.json]",
		Short: "Compare two runs' results, or one run's cases against a baseline case",
		Long: `compare reads results.json files (or run directories holding one) and reports,
per case and metric (restore s, total s to ready, MB/s, peak RSS, efficiency),
the base and other medians, the change, and whether the difference exceeds the
run-to-run spread. Only verified, error-free repeats count; the others are
counted as excluded. Every figure comes from the results files.

With two files it compares the runs case by case (cases matched by name).
With one file it compares each case with --baseline (default: the file's first
case). When that file's records ran several Kafka Streams versions (the
versions profile) and --baseline is not given, it compares each case on each
version with the same case (same settings and step) on --baseline-version
(default 4.4.0) instead.

--format json writes the same comparison as one JSON document for scripts
(schema restorebench.compare/v1, described in docs/json.md).

--format benchfmt writes Go benchmark-format lines, one per verified repeat, for
benchstat:
  restorebench compare --format benchfmt A.json > a.txt
  restorebench compare --format benchfmt B.json > b.txt
  benchstat a.txt b.txt
With two files it writes both runs, the first under "run: base" and the
second under "run: other": compare them with 'benchstat -col run FILE'.
Within one run, 'benchstat -col /case FILE' puts the cases side by side.`,
		Example: `  restorebench compare results/a results/b
  restorebench compare results/tuning --baseline put-b1000 --format markdown --out tuning.md
  restorebench compare --format benchfmt results/a > a.txt`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd, f, args)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// runCompare checks the flags, loads the results files of args and writes
// their comparison: one run's cases (compareCases) or two runs
// (compareRuns).
func runCompare(cmd *cobra.Command, f *compareFlags, args []string) error {
	switch f.format {
	case "table", "markdown", "json", "benchfmt":
	default:
		return fmt.Errorf("--format %q: want table, markdown, json or benchfmt", f.format)
	}
	if err := f.out.check(cmd); err != nil {
		return err
	}
	if len(args) == 2 && (cmd.Flags().Changed("baseline") || cmd.Flags().Changed("baseline-version")) {
		return errors.New("--baseline and --baseline-version compare the cases of one run; give one results file, not two")
	}
	if f.baseline != "" && f.baselineVersion != "" {
		return errors.New("--baseline compares with one case, --baseline-version with each case's counterpart on a version: give one")
	}
	paths := make([]string, len(args))
	loaded := make([]*runs.Results, len(args))
	for i, a := range args {
		p, r, err := loadArg(a)
		if err != nil {
			return err
		}
		paths[i], loaded[i] = p, r
	}
	var buf bytes.Buffer
	var err error
	switch {
	case len(loaded) == 1 && byVersion(loaded[0], f):
		err = compareVersions(&buf, paths[0], loaded[0], f.baselineVersion, f.format)
	case len(loaded) == 1:
		err = compareCases(&buf, paths[0], loaded[0], f.baseline, f.format)
	default:
		err = compareRuns(&buf, paths, loaded, f.format)
	}
	if err != nil {
		return err
	}
	return f.out.write(cmd, buf.Bytes())
}

// byVersion reports whether one run's cases are compared across Kafka
// Streams versions: asked with --baseline-version, or the records ran
// several versions and no --baseline case was named.
func byVersion(r *runs.Results, f *compareFlags) bool {
	if f.baselineVersion != "" {
		return true
	}
	return f.baseline == "" && len(runs.KafkaStreamsVersions(r.Restores)) > 1
}

// compareVersions writes to w the kafka-streams cases of run r (read from
// path) on each Kafka Streams version compared with the same cases on
// version base (compare.BaselineVersion when empty), in format; benchfmt
// writes the run's verified repeats.
func compareVersions(w io.Writer, path string, r *runs.Results, base, format string) error {
	if format == "benchfmt" {
		return compare.WriteBenchfmt(w, r)
	}
	if base == "" {
		base = compare.BaselineVersion(r.Restores)
	}
	c, err := compare.CompareRunVersions(r, label(path, r), base)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(c.Rows) == 0 {
		return fmt.Errorf("%s: every kafka-streams case ran Kafka Streams %s: nothing to compare it with", path, base)
	}
	return report(c, format)(w)
}

// compareCases writes to w the cases of run r (read from path) compared
// with case baseline, the run's first case when empty, in format; benchfmt
// writes the run's verified repeats instead. A run with no case besides
// the baseline has nothing to compare, and says so.
func compareCases(w io.Writer, path string, r *runs.Results, baseline, format string) error {
	if baseline == "" {
		names := runs.CaseNames(r.Restores)
		if len(names) == 0 {
			return fmt.Errorf("%s has no restores", path)
		}
		baseline = names[0]
	}
	c, err := compare.CompareRunCases(r, label(path, r), baseline)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if format == "benchfmt" {
		return compare.WriteBenchfmt(w, r)
	}
	if len(c.Rows) == 0 {
		return fmt.Errorf("%s has only the case %q: nothing to compare it with (give a second results file to compare runs)", path, baseline)
	}
	return report(c, format)(w)
}

// compareRuns writes to w runs loaded (read from paths, base first)
// compared case by case, in format; benchfmt writes both runs' verified
// repeats, each under its own "run:" key, for benchstat -col run.
func compareRuns(w io.Writer, paths []string, loaded []*runs.Results, format string) error {
	base, other := loaded[0], loaded[1]
	if format != "benchfmt" {
		c := compare.CompareRuns(base, other, label(paths[0], base), label(paths[1], other))
		return report(c, format)(w)
	}
	fmt.Fprintf(w, "# base: %s\nrun: base\n", oneLineComment(paths[0]))
	if err := compare.WriteBenchfmt(w, base); err != nil {
		return err
	}
	fmt.Fprintf(w, "# other: %s\nrun: other\n", oneLineComment(paths[1]))
	return compare.WriteBenchfmt(w, other)
}

func report(c *compare.Comparison, format string) compare.Reporter {
	switch format {
	case "markdown":
		return compare.NewMarkdownReporter(c)
	case "json":
		return compare.NewJSONReporter(c)
	}
	return compare.NewTableReporter(c)
}

// resultsPath resolves an argument to a results.json: the file itself, or
// DIR/results.json for a run directory.
// loadForTerminal reads a results.json for a command that prints from it:
// every string in it passes termsafe.String, so no case name, run id, host
// or error read from a file (which anyone may have written) reaches the
// terminal as an escape sequence or as lines of its own.
func loadForTerminal(path string) (*runs.Results, error) {
	res, err := runs.Load(path)
	if err != nil {
		return nil, err
	}
	termsafe.Scrub(res)
	return res, nil
}

// loadArg resolves a RESULTS.json|RUN-DIR argument and loads it for the
// terminal (loadForTerminal), returning the results.json's path too.
func loadArg(arg string) (string, *runs.Results, error) {
	path, err := resultsPath(arg)
	if err != nil {
		return "", nil, err
	}
	res, err := loadForTerminal(path)
	if err != nil {
		return "", nil, err
	}
	return path, res, nil
}

// resultsPath is runs.ResultsPath, but a run directory whose results.json
// exists and cannot be read says why as the reading did.
func resultsPath(arg string) (string, error) {
	p, err := runs.ResultsPath(arg)
	var d *runs.DirWithoutResultsError
	if errors.As(err, &d) && !errors.Is(d.Err, fs.ErrNotExist) {
		return "", d.Err
	}
	return p, err
}

func label(path string, r *runs.Results) string {
	return fmt.Sprintf("%s (run %s, %d restores)", path, r.RunID, len(r.Restores))
}

func oneLineComment(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
}
