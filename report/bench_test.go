package report

import (
	"path/filepath"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/runs"
)

// BenchmarkReportTenRuns is `restorebench report` over 10 run directories
// (nine size runs and one with every scenario: warm restarts, standby,
// failover, a scale-out whose row asks the warmup model, compaction): load,
// analyze, draw and write report.md, report.html and the charts. Target:
// well under 5 s per report.
func BenchmarkReportTenRuns(b *testing.B) { benchmarkReport(b, 10) }

// BenchmarkReportHundredRuns is the same over 100 run directories (99 size
// runs and the scenario one): issue 20's target is under 2 s a report.
func BenchmarkReportHundredRuns(b *testing.B) { benchmarkReport(b, 100) }

// benchmarkReport reports over n run directories: n-1 size runs of
// growing size and one with every scenario.
func benchmarkReport(b *testing.B, n int) {
	var rs []*runs.Results
	for i := range n - 1 {
		rs = append(rs, capacitytest.Run(i, int64(i+1)*100e6, capacitytest.Cases))
	}
	rs = append(rs, capacitytest.ScenarioRun(n-1))
	dirs, err := capacitytest.Write(b.TempDir(), rs)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "report")
	b.ResetTimer()
	for b.Loop() {
		loaded, err := capacity.LoadRuns(dirs)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := Build(capacity.Analyze(loaded, capacity.Options{}))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Write(out, doc); err != nil {
			b.Fatal(err)
		}
	}
}
