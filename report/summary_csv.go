package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// PrintSummaryCSV writes `restorebench summary --format csv`: one row per
// record of the run, what every scenario's record has in common, with
// units in the header. A record's duration is what it measured
// (runs.Restore.Measured: a restore, a scenario's gap (an assignment time,
// a downtime), a standby step's applying), so the scenario column says
// which; a figure the record did not measure is 0.
func PrintSummaryCSV(w io.Writer, res *runs.Results) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"case", "repeat", "scenario", "engine", "verified", "error", "duration_seconds", "records",
		"bytes", "mb_per_sec", "records_per_sec", "peak_rss_bytes", "cpu_seconds", "kafka_streams_version"})
	for _, r := range res.Restores {
		sc := string(r.Params.Scenario)
		if sc == "" {
			sc = string(config.ScenarioCold)
		}
		// The record's one time (runs.Restore.Measured) and the rates of
		// what it measured; a gap has none, and only a restore measures
		// its process's peak RSS and CPU.
		secs, what, _ := r.Measured()
		var mbps, rps, cpu float64
		var rss int64
		switch what {
		case runs.MeasureRestore:
			mbps, rps, rss, cpu = r.Phase.MBPerSec, r.Phase.RecordsPerSec, r.Phase.PeakRSSBytes, r.Phase.CPUSeconds
		case runs.MeasureFollowing:
			mbps, rps = r.Standby.Following.MBPerSec, r.Standby.Following.RecordsPerSec
		}
		cw.Write([]string{r.Case, strconv.Itoa(r.Repeat), sc, string(runs.EngineOf(r.Params)), strconv.FormatBool(r.Counts()), r.Error,
			strconv.FormatFloat(secs, 'f', -1, 64), strconv.FormatInt(r.Records, 10), strconv.FormatInt(r.Bytes, 10),
			strconv.FormatFloat(mbps, 'f', -1, 64), strconv.FormatFloat(rps, 'f', -1, 64),
			strconv.FormatInt(rss, 10), strconv.FormatFloat(cpu, 'f', -1, 64), runs.KafkaStreamsVersionOf(r)})
	}
	cw.Flush()
	return cw.Error()
}
