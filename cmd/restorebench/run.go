package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/plots"
	"github.com/restorebench/restorebench/profiles"
)

func newRunCmd(g *globalFlags) *cobra.Command {
	var (
		out          string
		repeats      int
		refill, keep bool
		noPlots      bool
	)
	cmd := &cobra.Command{
		Use:   "run PROFILE",
		Short: "Run a profile: fill (or reuse) the changelog, then every restore case, verified",
		Long: `run reads a profile (a YAML file, or a built-in name: ` + fmt.Sprint(profiles.Builtins()) + `),
fills its changelog or reuses an earlier identical fill, runs each case × repeat
as a cold restore into fresh stores, verifies each, and writes results.json and
plots (PNG and SVG) to --out. results.json is rewritten after every restore, so
an interrupted run keeps what finished.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			plan, err := profiles.Load(args[0])
			if err != nil {
				return err
			}
			if repeats < 0 {
				return errors.New("--repeats: must not be negative")
			}
			env, err := g.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer env.Close()
			runID := bench.NewRunID(plan.Name)
			if out == "" {
				out = filepath.Join("results", runID)
			}
			effective := plan.Repeats
			if repeats > 0 {
				effective = repeats
			}
			fmt.Fprintf(os.Stderr, "run %s: profile %s (%d cases × %d repeats), results in %s\n",
				runID, plan.Name, len(plan.Cases), effective, out)
			res, runErr := env.Run(cmd.Context(), plan, bench.RunOptions{
				OutDir: out, RunID: runID, Refill: refill, KeepState: keep, Repeats: repeats,
			})
			if res == nil {
				return runErr
			}
			if !noPlots && len(res.Restores) > 0 {
				if files, err := plots.WriteAll(res, out); err != nil {
					runErr = errors.Join(runErr, fmt.Errorf("plots: %w", err))
				} else {
					fmt.Fprintf(os.Stderr, "plots: %d files in %s\n", len(files), out)
				}
			}
			if res.Fill != nil {
				printSummary(res, out)
			}
			return runErr
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "directory for results.json and plots (default results/<run-id>)")
	fl.IntVar(&repeats, "repeats", 0, "override the profile's repeats")
	fl.BoolVar(&refill, "refill", false, "delete and refill the changelog if it holds a different fill")
	fl.BoolVar(&keep, "keep-state", false, "leave restored stores on disk (under --state-dir)")
	fl.BoolVar(&noPlots, "no-plots", false, "write results.json only")
	return cmd
}

func newPlotCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "plot RESULTS.json",
		Short: "Draw the charts of a results.json (PNG and SVG), from the file alone",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := measure.Load(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Dir(args[0])
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			files, err := plots.WriteAll(res, out)
			if err != nil {
				return err
			}
			for _, f := range files {
				fmt.Println(f)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the images (default: beside results.json)")
	return cmd
}

func newProfilesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in profiles, or print one",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				p, err := profiles.Load(args[0])
				if err != nil {
					return err
				}
				fmt.Print(p.YAML)
				return nil
			}
			for _, name := range profiles.Builtins() {
				p, err := profiles.Load(name)
				if err != nil {
					return err
				}
				fmt.Printf("%-8s %s\n", name, p.Description)
			}
			return nil
		},
	}
}
