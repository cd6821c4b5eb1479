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
// units in the header. A record's duration is its own scenario's (a
// restore, a gap, an assignment time or a downtime), so the scenario
// column says which.
func PrintSummaryCSV(w io.Writer, res *runs.Results) error {
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
