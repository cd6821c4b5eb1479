package report

import (
	"encoding/json"
	"io"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/jsonnum"
)

// PlanSchema names the version of plan's JSON document (docs/json.md): a
// field's meaning or unit never changes under one version, fields may be
// added.
const PlanSchema = "restorebench.plan/v1"

// num is a figure in a JSON document: NaN and ±Inf are written as null.
type num = jsonnum.Number

// optNum is a figure that may be absent: null when not derived or not
// finite.
func optNum(f float64, ok bool) *num {
	if !ok {
		return nil
	}
	return jsonnum.Ptr(f)
}

// PlanJSON is plan's answers for scripts: each answer's figure as a number
// with its unit beside the sentence the terminal shows, the rate the
// answers rest on in numbers, the unanswered questions with why, and the
// input runs (partial ones with their reason).
type PlanJSON struct {
	Schema     string           `json:"schema"`
	Runs       []PlanRun        `json:"runs"`
	Rate       *PlanRate        `json:"rate"`
	Answers    []PlanAnswer     `json:"answers"`
	Unanswered []PlanUnanswered `json:"unanswered"`
}

// PlanRun is one input run.
type PlanRun struct {
	Label string `json:"label"`
	Path  string `json:"path"`
	RunID string `json:"run_id"`
	// Partial says why the run is partial; "" when it is not.
	Partial string `json:"partial"`
}

// PlanUnanswered is a question the inputs cannot answer, and why.
type PlanUnanswered struct {
	Question string `json:"question"`
	Reason   string `json:"reason"`
}

// PlanAnswer is one answer: its stable id, the figure as a number in its
// unit with its interval, the objective it is for, each objective's check,
// how far it is extrapolated, what it was computed from and the runs it
// rests on; Text is the figure as the terminal says it.
type PlanAnswer struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Text     string `json:"text"`
	// Value is in Unit; both null/"" for an answer with no one figure.
	Value        *num   `json:"value"`
	Unit         string `json:"unit"`
	IntervalLow  *num   `json:"interval_low"`
	IntervalHigh *num   `json:"interval_high"`
	// RTOSeconds is the objective a per-objective answer is for.
	RTOSeconds        *num             `json:"rto_seconds"`
	Checks            []PlanCheck      `json:"checks"`
	Extrapolated      bool             `json:"extrapolated"`
	Below             bool             `json:"below"`
	BeyondFactor      *num             `json:"beyond_factor"`
	RecordSizeOutside string           `json:"record_size_outside"`
	ShapeOutside      string           `json:"shape_outside"`
	Calibration       *PlanCalibration `json:"calibration"`
	Inputs            []string         `json:"inputs"`
	Sources           string           `json:"sources"`
}

// PlanCheck is one objective's check: met, the margin in seconds (taken
// at the interval's near end when AtLeast), inconclusive and why, and the
// verdict in words.
type PlanCheck struct {
	RTOSeconds    num    `json:"rto_seconds"`
	Meets         bool   `json:"meets"`
	MarginSeconds num    `json:"margin_seconds"`
	AtLeast       bool   `json:"at_least"`
	Inconclusive  bool   `json:"inconclusive"`
	Why           string `json:"why"`
	Text          string `json:"text"`
}

// PlanCalibration is the factor a calibrated estimate was scaled by (Kafka
// Streams' restore time over the model's) and what it rests on.
type PlanCalibration struct {
	Factor                      num            `json:"factor"`
	FactorLow                   num            `json:"factor_low"`
	FactorHigh                  num            `json:"factor_high"`
	BytesPerThread              num            `json:"bytes_per_thread"`
	SpreadLow                   num            `json:"spread_low"`
	SpreadHigh                  num            `json:"spread_high"`
	Residual                    num            `json:"residual"`
	Extrapolated                bool           `json:"extrapolated"`
	BeyondFactor                num            `json:"beyond_factor"`
	Setting                     string         `json:"setting"`
	Shape                       string         `json:"shape"`
	Sizes                       int            `json:"sizes"`
	CalibratedMinBytesPerThread num            `json:"calibrated_min_bytes_per_thread"`
	CalibratedMaxBytesPerThread num            `json:"calibrated_max_bytes_per_thread"`
	Match                       string         `json:"match"`
	Fit                         *PlanFactorFit `json:"fit"`
	// NoFit says why a curve of several sizes has no fit (no line through
	// its medians stays above ×0.05); absent otherwise.
	NoFit string `json:"no_fit,omitempty"`
}

// PlanFactorFit is a calibration curve's fit over pairs repeat pairs, in
// its form: "log-size", factor = intercept + slope × ln(bytes /
// reference_bytes), or "inverse-size", factor = intercept + slope ×
// reference_bytes / bytes.
type PlanFactorFit struct {
	Form           string `json:"form"`
	Intercept      num    `json:"intercept"`
	Slope          num    `json:"slope"`
	PerDoubling    num    `json:"per_doubling"`
	ReferenceBytes num    `json:"reference_bytes"`
	Pairs          int    `json:"pairs"`
}

// PlanRate is the cold-restore rate the answers rest on: its per-thread
// throughput and fixed overhead, and, when it comes from a restore cost
// fitted per record and per byte, that cost's terms.
type PlanRate struct {
	Label                     string `json:"label"`
	Text                      string `json:"text"`
	Basis                     string `json:"basis"`
	Threads                   int    `json:"threads"`
	BytesPerSecondPerThread   num    `json:"bytes_per_second_per_thread"`
	OverheadSeconds           num    `json:"overhead_seconds"`
	MeasuredMinBytesPerThread *num   `json:"measured_min_bytes_per_thread"`
	MeasuredMaxBytesPerThread *num   `json:"measured_max_bytes_per_thread"`
	SpreadLow                 num    `json:"spread_low"`
	SpreadHigh                num    `json:"spread_high"`
	Calibrated                bool   `json:"calibrated"`
	RecordBytes               *num   `json:"record_bytes"`
	RecordsPerKey             *num   `json:"records_per_key"`
	RecordsPerKeyAssumed      bool   `json:"records_per_key_assumed"`
	// HotShare is the share of hot records the cost was evaluated at,
	// when it prices them apart; HotShareAssumed says it was not read
	// from the changelog.
	HotShare        *num      `json:"hot_share,omitempty"`
	HotShareAssumed bool      `json:"hot_share_assumed,omitempty"`
	Cost            *PlanCost `json:"cost"`
}

// PlanCost is a restore cost: seconds = fixed + records × per record +
// bytes × per byte + overwrites × per overwrite, per thread.
type PlanCost struct {
	Equation         string   `json:"equation"`
	Terms            []string `json:"terms"`
	Threads          int      `json:"threads"`
	FixedSeconds     num      `json:"fixed_seconds"`
	SecondsPerRecord num      `json:"seconds_per_record"`
	SecondsPerByte   num      `json:"seconds_per_byte"`
	// SecondsPerOverwrite is a record that leaves no live key (replaced
	// by a later record of its key, or a tombstone or a deleted one).
	SecondsPerOverwrite num `json:"seconds_per_overwrite"`
	// SecondsPerHotRecord is a record whose key is among its partition's
	// last loadgen.HotKeyWindow, in place of SecondsPerRecord, when the
	// cost prices them apart.
	SecondsPerHotRecord *num            `json:"seconds_per_hot_record,omitempty"`
	ResidualRMS         num             `json:"residual_rms"`
	SpreadLow           num             `json:"spread_low"`
	SpreadHigh          num             `json:"spread_high"`
	Shapes              []PlanCostShape `json:"shapes"`
}

// PlanCostShape is how the cost fits the restores of one changelog shape.
type PlanCostShape struct {
	Setup           string `json:"setup"`
	RecordsPerKey   num    `json:"records_per_key"`
	BytesPerRecord  num    `json:"bytes_per_record"`
	TombstoneShare  num    `json:"tombstone_share"`
	HotShare        *num   `json:"hot_share,omitempty"`
	Restores        int    `json:"restores"`
	MeasuredSeconds num    `json:"measured_seconds"`
	FittedSeconds   num    `json:"fitted_seconds"`
	ResidualPercent num    `json:"residual_percent"`
}

// planRate is the rate for the JSON, nil without one.
func planRate(r *capacity.Rate) *PlanRate {
	if r == nil {
		return nil
	}
	out := &PlanRate{Label: r.Label(), Text: r.Summary(), Basis: r.Basis(), Threads: r.Threads,
		BytesPerSecondPerThread: num(r.PerThread), OverheadSeconds: num(r.Overhead),
		MeasuredMinBytesPerThread: optNum(r.Lo, r.Hi > 0), MeasuredMaxBytesPerThread: optNum(r.Hi, r.Hi > 0),
		SpreadLow: num(r.SpreadLo), SpreadHigh: num(r.SpreadHi), Calibrated: r.Curve != nil}
	if c := r.Cost; c != nil {
		out.RecordBytes = optNum(r.RecordBytes, r.RecordBytes > 0)
		out.RecordsPerKey, out.RecordsPerKeyAssumed = optNum(r.RecordsPerKey, r.RecordsPerKey > 0), r.RecordsPerKeyAssumed
		pc := &PlanCost{Equation: c.Equation(), Terms: append([]string{}, c.Terms...), Threads: c.Threads,
			FixedSeconds: num(c.Fixed), SecondsPerRecord: num(c.PerRecord), SecondsPerByte: num(c.PerByte), SecondsPerOverwrite: num(c.PerOverwrite),
			ResidualRMS: num(c.Residual), SpreadLow: num(c.SpreadLo), SpreadHigh: num(c.SpreadHi), Shapes: []PlanCostShape{}}
		if c.Hot {
			pc.SecondsPerHotRecord = optNum(c.PerHot, true)
			out.HotShare, out.HotShareAssumed = optNum(r.HotShare, true), r.HotShareAssumed
		}
		for _, s := range c.Shapes {
			row := PlanCostShape{RecordsPerKey: num(s.Shape.RecordsPerKey), BytesPerRecord: num(s.Shape.BytesPerRecord),
				TombstoneShare: num(s.Shape.TombstoneShare), Restores: s.Restores, MeasuredSeconds: num(s.Measured),
				FittedSeconds: num(s.Fitted), ResidualPercent: num(s.Percent())}
			if s.Setup != nil {
				row.Setup = s.Setup.Label()
			}
			if c.Hot {
				row.HotShare = optNum(s.Shape.HotShare, true)
			}
			pc.Shapes = append(pc.Shapes, row)
		}
		out.Cost = pc
	}
	return out
}

// planAnswer is one answer for the JSON: its figure's fields from its
// Figure, null where it has none.
func planAnswer(ans capacity.Answer) PlanAnswer {
	pa := PlanAnswer{ID: ans.ID, Question: ans.Question, Text: ans.Value, Checks: []PlanCheck{},
		Extrapolated: ans.Extrapolated, Below: ans.Below, RecordSizeOutside: ans.RecordSizeOutside,
		ShapeOutside: ans.ShapeOutside, Inputs: append([]string{}, ans.Inputs...), Sources: ans.Sources}
	if ans.RTO > 0 {
		pa.RTOSeconds = jsonnum.Ptr(ans.RTO.Seconds())
	}
	if f := ans.Figure; f != nil {
		pa.Value, pa.Unit = jsonnum.Ptr(f.Value), f.Unit
		pa.IntervalLow, pa.IntervalHigh = optNum(f.Lo, f.HasInterval()), optNum(f.Hi, f.HasInterval())
		pa.BeyondFactor = optNum(f.Beyond, f.Beyond > 0)
		pa.Calibration = planCalibration(f.Factor)
	}
	for _, c := range ans.Checks {
		pa.Checks = append(pa.Checks, PlanCheck{RTOSeconds: num(c.RTO.Seconds()), Meets: c.Meets, MarginSeconds: num(c.Margin),
			AtLeast: c.AtLeast, Inconclusive: c.Inconclusive, Why: c.Why, Text: c.Verdict()})
	}
	return pa
}

// planCalibration is an estimate's calibration factor for the JSON, nil
// when uncalibrated.
func planCalibration(f *capacity.AppliedFactor) *PlanCalibration {
	if f == nil {
		return nil
	}
	c := f.Curve
	out := &PlanCalibration{Factor: num(f.Value), FactorLow: num(f.Lo), FactorHigh: num(f.Hi), BytesPerThread: num(f.Bytes),
		SpreadLow: num(f.SpreadLo), SpreadHigh: num(f.SpreadHi), Residual: num(f.Residual), Extrapolated: f.Extrapolated,
		BeyondFactor: num(f.Beyond), Setting: c.Setting, Shape: c.Shape, Sizes: c.Sizes(),
		CalibratedMinBytesPerThread: num(c.MinBytes()), CalibratedMaxBytesPerThread: num(c.MaxBytes()), Match: f.Match, NoFit: c.NoFit}
	if fit := c.Fit; fit != nil {
		out.Fit = &PlanFactorFit{Form: string(fit.Form), Intercept: num(fit.Intercept), Slope: num(fit.Slope), PerDoubling: num(fit.PerDoubling()),
			ReferenceBytes: num(capacity.FactorFitReference), Pairs: fit.N}
	}
	return out
}

// NewPlanJSON is the analysis' answers as plan's JSON document.
func NewPlanJSON(a *capacity.Analysis) PlanJSON {
	doc := PlanJSON{Schema: PlanSchema, Runs: []PlanRun{}, Rate: planRate(a.Rate), Answers: []PlanAnswer{}, Unanswered: []PlanUnanswered{}}
	partial := map[*capacity.Run]string{}
	for _, p := range a.Incomplete {
		partial[p.Run] = p.Reason
	}
	for _, r := range a.Runs {
		doc.Runs = append(doc.Runs, PlanRun{Label: r.Label, Path: r.Path, RunID: r.Results.RunID, Partial: partial[r]})
	}
	for _, ans := range a.Answers {
		doc.Answers = append(doc.Answers, planAnswer(ans))
	}
	for _, u := range a.Unanswered {
		doc.Unanswered = append(doc.Unanswered, PlanUnanswered{Question: u.Question, Reason: u.Reason})
	}
	return doc
}

// NewPlanJSONReporter writes the analysis' answers as one JSON document
// (PlanSchema, described in docs/json.md).
func NewPlanJSONReporter(a *capacity.Analysis) func(io.Writer) error {
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(NewPlanJSON(a))
	}
}
