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
func BenchmarkReportTenRuns(b *testing.B) {
	var rs []*runs.Results
	for i := range 9 {
		rs = append(rs, capacitytest.Run(i, int64(i+1)*100e6, capacitytest.Cases))
	}
	rs = append(rs, capacitytest.ScenarioRun(9))
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
