package report

import (
	"encoding/json"
	"io"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// SummarySchema names the version of summary's JSON document
// (docs/json.md).
const SummarySchema = "restorebench.summary/v1"

// SummaryJSON is summary's table for scripts: the cold restores' per-case
// figures (runs.Summarize), and whether the run is partial and why.
type SummaryJSON struct {
	Schema string `json:"schema"`
	RunID  string `json:"run_id"`
	Path   string `json:"path"`
	// Partial says why the run is partial; "" when it is complete.
	Partial string        `json:"partial"`
	Cases   []SummaryCase `json:"cases"`
}

// SummaryCase is one case's cold restores: how many, how many count
// (verified, error-free), and their figures; the medians and ranges are
// over the counted repeats, null when none counts or the figure was not
// measured.
type SummaryCase struct {
	Case    string      `json:"case"`
	Params  config.Case `json:"params"`
	Repeats int         `json:"repeats"`
	// Verified counts the verified, error-free repeats the figures are over.
	Verified                 int          `json:"verified"`
	MedianRestoreSeconds     *num         `json:"median_restore_seconds"`
	MinRestoreSeconds        *num         `json:"min_restore_seconds"`
	MaxRestoreSeconds        *num         `json:"max_restore_seconds"`
	MedianMBPerSecond        *num         `json:"median_mb_per_second"`
	MedianRecordsPerSecond   *num         `json:"median_records_per_second"`
	MedianReadySeconds       *num         `json:"median_ready_seconds"`
	MedianTotalSeconds       *num         `json:"median_total_seconds"`
	MedianEfficiency         *num         `json:"median_efficiency"`
	MedianCPUAwareEfficiency *num         `json:"median_cpu_aware_efficiency"`
	MaxPeakRSSBytes          int64        `json:"max_peak_rss_bytes"`
	MaxBatchWriteP99Millis   num          `json:"max_batch_write_p99_milliseconds"`
	Limits                   *runs.Limits `json:"limits"`
}

// NewSummaryJSON is res's summary as summary's JSON document; path is the
// results.json it was read from.
func NewSummaryJSON(res *runs.Results, path string) SummaryJSON {
	doc := SummaryJSON{Schema: SummarySchema, RunID: res.RunID, Path: path, Partial: res.IncompleteReason(), Cases: []SummaryCase{}}
	for _, s := range runs.Summarize(res.ColdRestores()) {
		counted := s.Verified > 0
		c := SummaryCase{Case: s.Case, Params: s.Params, Repeats: s.Repeats, Verified: s.Verified,
			MedianRestoreSeconds: optNum(s.MedianSeconds, counted), MinRestoreSeconds: optNum(s.MinSeconds, counted),
			MaxRestoreSeconds: optNum(s.MaxSeconds, counted), MedianMBPerSecond: optNum(s.MedianMBPerSec, counted),
			MedianRecordsPerSecond: optNum(s.MedianRecordsPerSec, counted),
			MedianReadySeconds:     optNum(s.MedianReadySeconds, s.HasReady), MedianTotalSeconds: optNum(s.MedianTotalSeconds, s.HasReady),
			MedianEfficiency:         optNum(s.MedianEfficiency, s.HasLimits),
			MedianCPUAwareEfficiency: optNum(s.MedianCPUAwareEfficiency, s.HasLimits && s.MedianCPUAwareEfficiency > 0),
			MaxPeakRSSBytes:          s.MaxPeakRSSBytes, MaxBatchWriteP99Millis: num(s.MaxBatchWriteP99Ms), Limits: s.Limits}
		doc.Cases = append(doc.Cases, c)
	}
	return doc
}

// NewSummaryJSONReporter writes res's summary as one JSON document
// (SummarySchema, described in docs/json.md).
func NewSummaryJSONReporter(res *runs.Results, path string) func(io.Writer) error {
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(NewSummaryJSON(res, path))
	}
}
