package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/audit"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/termsafe"
	rpt "github.com/restorebench/restorebench/report"
)

// newReportCmd returns `restorebench report`: report.md and a
// self-contained report.html from one or more runs' results.
func newReportCmd() *cobra.Command { return newReportCmdWith(nil) }

// newReportCmdWith is newReportCmd with the global connection flags, which
// --from-topic reads the user's changelog over.
func newReportCmdWith(g *globalFlags) *cobra.Command {
	var out, auditFile string
	f := capacityFlags{g: g}
	cmd := &cobra.Command{
		Use:   "report RUN...",
		Short: "Write a capacity report (report.md, report.html) from one or more runs' results",
		Long: `report reads results.json files (or run directories holding one), possibly
from several runs and other machines, and writes report.md and report.html:
the key answers first (restore rate per stream thread, the largest state per
task and per instance for each recovery-time objective, the fastest verified
configuration against Kafka Streams' defaults), then the recovery-time table,
what the inputs cannot tell, fits of restore time against changelog and live
state size (least squares, R², residuals, a hold-out check), throughput per
configuration with compare's verdicts (size by size in a size sweep), the
environments and fills.

Runs of the other scenarios add their rows to the recovery-time table and
sections of their own: warm restarts (the backlog of changes a restart
replays within each objective), standbys and failover (the highest write
rate a standby sustains, its catch-up after a pause, the processing gap of a
SIGKILL with and without one), scale-outs (measured warmup-assignment time,
and the warmup model's prediction for larger tasks, labelled so) and
changelog compaction (the restore amplification each cleaner setting left).

report.html is one file: charts inline as SVG, no scripts, nothing loaded from
elsewhere. Nothing is re-run; give --state (or --live-state), --partitions,
--instances, --standbys, --write-rate to add the answers 'restorebench plan'
prints for that deployment.`,
		Example: `  restorebench report results/20261129-120000-capacity
  restorebench report results/size-128MB results/size-256MB results/size-512MB results/size-1GB --out capacity
  restorebench report results/capacity results/failover --live-state 20GB --partitions 16 --instances 4 --standbys 1 --write-rate 5MB/s
  restorebench report results/tuning --rto 30s,2m --threads 4
  restorebench report results/shapes --audit orders-audit.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return writeReport(cmd, &f, args, out, auditFile) },
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "directory for report.md, report.html and the charts (default: the first run's "+
		"directory); not one holding another run's results, nor one in --data-dir's broker log, fill "+
		"manifests or the state dir")
	fl.StringVar(&auditFile, "audit", "", "an audit of a running application (restorebench audit --format json > FILE): "+
		"its instances, what each one's loss would cost and adding one instance, as the report's first section")
	f.register(fl, capacity.DefaultRTOs)
	f.registerAgents(cmd)
	return cmd
}

// writeReport writes the report of the runs in paths (and the audit in
// auditFile, if any) into out, the first run's directory by default.
func writeReport(cmd *cobra.Command, f *capacityFlags, paths []string, out, auditFile string) error {
	opts, rs, err := f.loadRuns(paths)
	if err != nil {
		return err
	}
	aud, err := loadAudit(auditFile)
	if err != nil {
		return err
	}
	if err := f.readTopic(cmd, &opts); err != nil {
		return err
	}
	if out == "" {
		out = filepath.Dir(rs[0].Path)
		fmt.Fprintf(cmd.ErrOrStderr(), "report: no --out given; writing into the first run's directory %s\n", out)
	}
	if rs, err = f.withMeasured(cmd, paths, rs, &opts); err != nil {
		return err
	}
	inputs := make([]string, len(rs))
	for i, r := range rs {
		inputs[i] = r.Path
	}
	claim, err := claimReportDir(cmd, out, inputs)
	if err != nil {
		return err
	}
	defer claim.release()
	return buildReport(cmd, capacity.Analyze(rs, opts), aud, out)
}

// loadAudit reads --audit's file (nil without one), its text made safe to print.
func loadAudit(file string) (*audit.Report, error) {
	if file == "" {
		return nil, nil
	}
	aud, err := audit.Load(file)
	if err != nil {
		return nil, fmt.Errorf("--audit: %w", err)
	}
	termsafe.Scrub(aud)
	return aud, nil
}

// buildReport builds the analysis' report, the audit first, and writes it
// into out.
func buildReport(cmd *cobra.Command, a *capacity.Analysis, aud *audit.Report, out string) error {
	if a.Rate == nil {
		// The reason quotes case names from the files: one line, escaped.
		fmt.Fprintf(cmd.ErrOrStderr(), "report: without a cold-restore rate the report has no capacity answers: %s\n", termsafe.String(a.RateErr.Error()))
	}
	doc, err := rpt.Build(a)
	if err != nil {
		return err
	}
	if aud != nil {
		// The user's running application comes first.
		doc.Sections = append([]rpt.Section{rpt.AuditSection(aud)}, doc.Sections...)
	}
	written, err := rpt.Write(out, doc)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s (%d charts) in %s\n", rpt.MarkdownFile, rpt.HTMLFile, len(written)-2, out)
	return nil
}
