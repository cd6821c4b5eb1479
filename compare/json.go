package compare

import (
	"encoding/json"
	"io"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/jsonnum"
)

// Schema names the version of compare's JSON document (docs/json.md): a
// field's meaning or unit never changes under one version, fields may be
// added.
const Schema = "restorebench.compare/v1"

type num = jsonnum.Number

// JSON is a comparison for scripts: the two sides, each compared case
// with its sides' repeats and each metric's figures on both sides (in the
// metric's unit, which its name and Unit say), the change, the chance the
// difference is run-to-run spread, and the verdict with its words.
type JSON struct {
	Schema     string    `json:"schema"`
	BaseLabel  string    `json:"base_label"`
	OtherLabel string    `json:"other_label"`
	WithinRun  bool      `json:"within_run"`
	Notes      []string  `json:"notes"`
	Rows       []JSONRow `json:"rows"`
}

// JSONRow is one compared case.
type JSONRow struct {
	Case       string       `json:"case"`
	BaseCase   string       `json:"base_case"`
	Kind       string       `json:"kind"`
	Base       JSONSide     `json:"base"`
	Other      JSONSide     `json:"other"`
	ParamDiffs []string     `json:"param_diffs"`
	Metrics    []JSONMetric `json:"metrics"`
	// NotCompared names the metrics left out because the sides measure
	// different things under them (CaseRow.Unlike); absent when none.
	NotCompared []string `json:"not_compared,omitempty"`
}

// JSONSide is one side of a row.
type JSONSide struct {
	Case            string      `json:"case"`
	Present         bool        `json:"present"`
	Repeats         int         `json:"repeats"`
	Verified        int         `json:"verified"`
	ExcludedRepeats []int       `json:"excluded_repeats"`
	NoReady         int         `json:"no_ready"`
	Params          config.Case `json:"params"`
}

// JSONStat is a metric over one side's counted repeats: how many carry
// it, and their median, least and most, null when none does.
type JSONStat struct {
	N      int  `json:"n"`
	Median *num `json:"median"`
	Min    *num `json:"min"`
	Max    *num `json:"max"`
}

// JSONMetric is one metric of one row.
type JSONMetric struct {
	Metric         string   `json:"metric"`
	Unit           string   `json:"unit"`
	Label          string   `json:"label"`
	HigherIsBetter bool     `json:"higher_is_better"`
	Base           JSONStat `json:"base"`
	Other          JSONStat `json:"other"`
	ChangePercent  *num     `json:"change_percent"`
	P              *num     `json:"p"`
	Verdict        string   `json:"verdict"`
	Significant    bool     `json:"significant"`
	// Better is whether the other side improves on the base, null without
	// a change to say it of.
	Better *bool  `json:"better"`
	Text   string `json:"text"`
}

// Unit is the unit of the metric's figures: "seconds", "mb_per_second"
// (MB of 10^6 bytes), "bytes", "ratio", "records_per_second" or
// "records".
func (m Metric) Unit() string {
	switch m {
	case MetricRestoreSeconds, MetricTotalSeconds:
		return "seconds"
	case MetricMBPerSec:
		return "mb_per_second"
	case MetricPeakRSS:
		return "bytes"
	case MetricEfficiency:
		return "ratio"
	case MetricStandbyApplied:
		return "records_per_second"
	case MetricStandbyLagP99:
		return "records"
	}
	return ""
}

// verdictIDs name the verdicts in the JSON.
var verdictIDs = map[Verdict]string{
	VerdictCaseMissing:        "case_missing",
	VerdictNoVerifiedRepeats:  "no_verified_repeats",
	VerdictNotMeasured:        "not_measured",
	VerdictSpreadUnknown:      "spread_unknown",
	VerdictWithinSpread:       "within_spread",
	VerdictDisjointFewRepeats: "disjoint_few_repeats",
	VerdictExceedsSpread:      "exceeds_spread",
}

func jsonStat(s Stat) JSONStat {
	out := JSONStat{N: s.N}
	if s.N > 0 {
		out.Median, out.Min, out.Max = jsonnum.Ptr(s.Median), jsonnum.Ptr(s.Min), jsonnum.Ptr(s.Max)
	}
	return out
}

func jsonSide(s CaseSide) JSONSide {
	return JSONSide{Case: s.Case, Present: s.Present, Repeats: s.Repeats, Verified: s.Verified,
		ExcludedRepeats: append([]int{}, s.Excluded...), NoReady: s.NoReady, Params: s.Params}
}

// NewJSON is the comparison as compare's JSON document.
func NewJSON(c *Comparison) JSON {
	doc := JSON{Schema: Schema, BaseLabel: c.BaseLabel, OtherLabel: c.OtherLabel, WithinRun: c.WithinRun,
		Notes: append([]string{}, c.Notes...), Rows: []JSONRow{}}
	for _, r := range c.Rows {
		row := JSONRow{Case: r.Case, BaseCase: r.BaseCase, Kind: string(r.Kind), Base: jsonSide(r.Base), Other: jsonSide(r.Other),
			ParamDiffs: append([]string{}, r.ParamDiffs...), Metrics: []JSONMetric{}, NotCompared: r.Unlike}
		for _, d := range r.Metrics {
			m := JSONMetric{Metric: string(d.Metric), Unit: d.Metric.Unit(), Label: d.Metric.LabelFor(r.Kind),
				HigherIsBetter: d.Metric.HigherIsBetter(), Base: jsonStat(d.Base), Other: jsonStat(d.Other),
				Verdict: verdictIDs[d.Verdict], Significant: d.Significant(), Text: d.VerdictText()}
			if d.HasChange {
				m.ChangePercent = jsonnum.Ptr(d.ChangePct)
				better := d.Better()
				m.Better = &better
			}
			if d.P > 0 {
				m.P = jsonnum.Ptr(d.P)
			}
			row.Metrics = append(row.Metrics, m)
		}
		doc.Rows = append(doc.Rows, row)
	}
	return doc
}

// NewJSONReporter writes the comparison as one JSON document (Schema,
// described in docs/json.md).
func NewJSONReporter(c *Comparison) Reporter {
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(NewJSON(c))
	}
}
