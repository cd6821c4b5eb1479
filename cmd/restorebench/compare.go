package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/measure"
)

func newCompareCmd() *cobra.Command {
	var format, out, baseline string
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
case).

--format benchfmt writes Go benchmark-format lines, one per verified repeat, for
benchstat:
  restorebench compare --format benchfmt A.json > a.txt
  restorebench compare --format benchfmt B.json > b.txt
  benchstat a.txt b.txt
With two files it writes both runs, the first under "run: base" and the
second under "run: other": compare them with 'benchstat -col run FILE'.
Within one run, 'benchstat -col /case FILE' puts the cases side by side.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "table", "markdown", "benchfmt":
			default:
				return fmt.Errorf("--format %q: want table, markdown or benchfmt", format)
			}
			if len(args) == 2 && cmd.Flags().Changed("baseline") {
				return errors.New("--baseline compares the cases of one run; give one results file, not two")
			}
			paths := make([]string, len(args))
			runs := make([]*measure.Results, len(args))
			for i, a := range args {
				p, err := resultsPath(a)
				if err != nil {
					return err
				}
				r, err := measure.Load(p)
				if err != nil {
					return err
				}
				paths[i], runs[i] = p, r
			}
			var buf bytes.Buffer
			if len(runs) == 1 {
				r := runs[0]
				names := measure.CaseNames(r.Restores)
				if baseline == "" {
					if len(names) == 0 {
						return fmt.Errorf("%s has no restores", paths[0])
					}
					baseline = names[0]
				}
				c, err := measure.CompareRunCases(r, label(paths[0], r), baseline)
				if err != nil {
					return fmt.Errorf("%s: %w", paths[0], err)
				}
				if format == "benchfmt" {
					err = measure.WriteBenchfmt(&buf, r)
				} else {
					if len(c.Rows) == 0 {
						return fmt.Errorf("%s has only the case %q: nothing to compare it with (give a second results file to compare runs)", paths[0], baseline)
					}
					err = report(c, format)(&buf)
				}
				if err != nil {
					return err
				}
			} else {
				base, other := runs[0], runs[1]
				if format == "benchfmt" {
					fmt.Fprintf(&buf, "# base: %s\nrun: base\n", oneLineComment(paths[0]))
					if err := measure.WriteBenchfmt(&buf, base); err != nil {
						return err
					}
					fmt.Fprintf(&buf, "# other: %s\nrun: other\n", oneLineComment(paths[1]))
					if err := measure.WriteBenchfmt(&buf, other); err != nil {
						return err
					}
				} else {
					c := measure.CompareRuns(base, other, label(paths[0], base), label(paths[1], other))
					if err := report(c, format)(&buf); err != nil {
						return err
					}
				}
			}
			if out == "" {
				_, err := cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			if err := measure.WriteFileAtomic(out, buf.Bytes()); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "table", "output format: table, markdown or benchfmt")
	fl.StringVar(&out, "out", "", "write the output to this file (atomically) instead of stdout")
	fl.StringVar(&baseline, "baseline", "", "with one results file, the case the others are compared with (default: the file's first case)")
	return cmd
}

func report(c *measure.Comparison, format string) measure.Reporter {
	if format == "markdown" {
		return measure.NewMarkdownReporter(c)
	}
	return measure.NewTableReporter(c)
}

// resultsPath resolves an argument to a results.json: the file itself, or
// DIR/results.json for a run directory.
func resultsPath(arg string) (string, error) {
	fi, err := os.Stat(arg)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: no such results file or run directory", arg)
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return arg, nil
	}
	p := filepath.Join(arg, "results.json")
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is a directory without results.json (no %s)", arg, p)
	} else if err != nil {
		return "", err
	}
	return p, nil
}

func label(path string, r *measure.Results) string {
	return fmt.Sprintf("%s (run %s, %d restores)", path, r.RunID, len(r.Restores))
}

func oneLineComment(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
}
