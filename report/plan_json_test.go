package report

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity"
)

// TestPlanJSONCostAndNotFinite: a rate from a restore cost is written as
// its terms in numbers, one row per shape; and a figure that is NaN or
// ±Inf (a rate from too few restores, a residual over a zero fit) is
// written as null, never failing the document.
func TestPlanJSONCostAndNotFinite(t *testing.T) {
	s := &capacity.Setup{Cases: []string{"shapes"}}
	cost := &capacity.Cost{Setups: []*capacity.Setup{s}, Threads: 2, Fixed: 0.6, PerRecord: 1.9e-6, PerByte: 3.1e-9, PerOverwrite: 4e-7,
		Terms: []string{"restore", "record", "byte", "overwrite"}, Residual: math.NaN(), SpreadLo: 0.9, SpreadHi: 1.1,
		Shapes: []capacity.ShapeResidual{{Setup: s, Shape: capacity.ChangelogShape{RecordsPerKey: 1, BytesPerRecord: 72},
			Restores: 3, Measured: 2, Fitted: 0}}}
	rate := &capacity.Rate{Setup: s, Threads: 2, PerThread: math.NaN(), Overhead: 0.6, Cost: cost, RecordBytes: 500, RecordsPerKey: 3,
		Lo: math.Inf(1), SpreadLo: 0.9, SpreadHi: 1.1}
	e := capacity.Estimate{Value: math.Inf(1), Lo: math.NaN(), Hi: 2, Beyond: math.NaN()}
	a := &capacity.Analysis{Rate: rate, Answers: []capacity.Answer{
		{ID: "cold_restore_task", Question: "q", Value: "v", Figure: &capacity.Figure{Estimate: e, Unit: capacity.UnitSeconds},
			Checks: []capacity.Check{{RTO: 2 * time.Minute, Margin: math.Inf(-1)}}},
		{ID: "partitions_needed", Question: "p", Value: "at least ?", RTO: time.Minute,
			Figure: &capacity.Figure{Estimate: capacity.Estimate{Value: math.NaN()}, Unit: capacity.UnitCount}},
	}}
	var out bytes.Buffer
	if err := NewPlanJSONReporter(a)(&out); err != nil {
		t.Fatalf("encoding: %v", err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Rate   struct {
			PerThread *float64 `json:"bytes_per_second_per_thread"`
			Overhead  float64  `json:"overhead_seconds"`
			Min       *float64 `json:"measured_min_bytes_per_thread"`
			Record    float64  `json:"record_bytes"`
			PerKey    float64  `json:"records_per_key"`
			Cost      struct {
				Fixed     float64  `json:"fixed_seconds"`
				PerRecord float64  `json:"seconds_per_record"`
				PerByte   float64  `json:"seconds_per_byte"`
				PerOverwr float64  `json:"seconds_per_overwrite"`
				Residual  *float64 `json:"residual_rms"`
				Shapes    []struct {
					BytesPerRecord float64  `json:"bytes_per_record"`
					Measured       float64  `json:"measured_seconds"`
					Percent        *float64 `json:"residual_percent"`
				} `json:"shapes"`
			} `json:"cost"`
		} `json:"rate"`
		Answers []struct {
			Value  *float64 `json:"value"`
			Unit   string   `json:"unit"`
			Lo     *float64 `json:"interval_low"`
			Hi     *float64 `json:"interval_high"`
			Beyond *float64 `json:"beyond_factor"`
			RTO    *float64 `json:"rto_seconds"`
			Checks []struct {
				Margin *float64 `json:"margin_seconds"`
			} `json:"checks"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	c := doc.Rate.Cost
	if doc.Schema != PlanSchema || c.Fixed != 0.6 || c.PerRecord != 1.9e-6 || c.PerByte != 3.1e-9 || c.PerOverwr != 4e-7 || doc.Rate.PerKey != 3 || len(c.Shapes) != 1 ||
		c.Shapes[0].BytesPerRecord != 72 || c.Shapes[0].Measured != 2 || doc.Rate.Overhead != 0.6 || doc.Rate.Record != 500 {
		t.Errorf("rate: %+v\n%s", doc.Rate, out.String())
	}
	if doc.Rate.PerThread != nil || doc.Rate.Min != nil || c.Residual != nil || c.Shapes[0].Percent != nil {
		t.Errorf("NaN or Inf written as a number:\n%s", out.String())
	}
	a0, a1 := doc.Answers[0], doc.Answers[1]
	if a0.Value != nil || a0.Lo != nil || a0.Hi == nil || *a0.Hi != 2 || a0.Beyond != nil || a0.Checks[0].Margin != nil || a0.Unit != "seconds" {
		t.Errorf("answer with NaN and Inf figures:\n%s", out.String())
	}
	if a1.Value != nil || a1.Unit != "count" || a1.RTO == nil || *a1.RTO != 60 {
		t.Errorf("answer with a NaN number:\n%s", out.String())
	}
}

// TestPlanJSONCalibration: a calibrated estimate carries its factor, the
// factor's interval and the sizes and fit it rests on, in numbers.
func TestPlanJSONCalibration(t *testing.T) {
	curve := &capacity.CalibrationCurve{Setting: "threads=1", Shape: "uniform",
		Points: []capacity.CalibrationPoint{{Bytes: 128e6}, {Bytes: 1e9}},
		Fit:    &capacity.FactorFit{Form: capacity.FormLogSize, Intercept: 1.2, Slope: -0.03, N: 8, Sizes: 2}}
	e := capacity.Estimate{Value: 100, Lo: 90, Hi: 115, Beyond: 1,
		Factor: &capacity.AppliedFactor{Curve: curve, Bytes: 7e8, Value: 1.21, Lo: 1.15, Hi: 1.3, SpreadLo: 0.04, SpreadHi: 0.05, Residual: 0.02, Beyond: 1}}
	a := &capacity.Analysis{Answers: []capacity.Answer{{ID: "cold_restore_task", Question: "q", Value: "v", Figure: &capacity.Figure{Estimate: e, Unit: capacity.UnitSeconds}}}}
	doc := NewPlanJSON(a)
	c := doc.Answers[0].Calibration
	if c == nil || c.Factor != 1.21 || c.FactorLow != 1.15 || c.FactorHigh != 1.3 || c.BytesPerThread != 7e8 || c.Sizes != 2 ||
		c.CalibratedMinBytesPerThread != 128e6 || c.CalibratedMaxBytesPerThread != 1e9 || c.Fit == nil || c.Fit.Form != "log-size" ||
		c.Fit.Pairs != 8 || c.Fit.ReferenceBytes != 1e9 || float64(c.Fit.PerDoubling) != curve.Fit.PerDoubling() {
		t.Errorf("calibration %+v (fit %+v)", c, c.Fit)
	}
	if doc.Rate != nil || len(doc.Runs) != 0 || doc.Unanswered == nil {
		t.Errorf("without a rate or runs: rate %v, runs %v, unanswered %v", doc.Rate, doc.Runs, doc.Unanswered)
	}
}
