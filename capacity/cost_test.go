package capacity

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/topicshape"
)

// shapeCost is the synthetic shape sweep's cost: 2 µs a record, 5 ms a MB,
// 1 µs a record overwritten, 0.8 s a restore.
var shapeCost = capacitytest.ShapeCost{Fixed: 0.8, PerRecord: 2e-6, PerByte: 5e-9, PerOverwrite: 1e-6}

func shapeRuns(engine config.Engine, shapes []capacitytest.Shape) []*Run {
	var out []*Run
	for i, r := range capacitytest.ShapeRuns(engine, shapeCost, 1_000_000, shapes) {
		out = append(out, &Run{Label: "S" + strconv.Itoa(i+1), Path: "x", Results: r})
	}
	return out
}

// TestCostRecoversTermsAcrossShapes: restores of five record sizes whose
// times follow a per-record, a per-byte and a fixed cost (±2% noise) give
// those terms back, one Cost for the setting, a residual within the noise
// and a row per shape.
func TestCostRecoversTermsAcrossShapes(t *testing.T) {
	a := Analyze(shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep), Options{})
	if len(a.Costs) != 1 {
		t.Fatalf("%d costs, want 1 (one setting over %d shapes); setups %d", len(a.Costs), len(capacitytest.ShapeSweep), len(a.Setups))
	}
	c := a.Costs[0]
	if !near(c.PerRecord, 2e-6, 0.05) || !near(c.PerByte, 5e-9, 0.05) || !near(c.PerOverwrite, 1e-6, 0.1) || !near(c.Fixed, 0.8, 0.25) {
		t.Errorf("cost %s (%g s a record, %g s a byte, %g s an overwrite, %g s), want 2 µs a record + 5 ms a MB + 1 µs an overwrite + 0.8 s",
			c.Equation(), c.PerRecord, c.PerByte, c.PerOverwrite, c.Fixed)
	}
	if c.Residual > 0.03 || c.SpreadLo < 0.95 || c.SpreadHi > 1.05 {
		t.Errorf("residual %.3f, spread %.3f–%.3f; the noise is ±2%%", c.Residual, c.SpreadLo, c.SpreadHi)
	}
	// 64-byte values at 1 and at 20 records per key are one Setup (its key
	// is the fill's value sizes, not its key count: a size sweep changes
	// records per key), but two rows.
	if len(c.Shapes) != 5 || c.Shapes[0].Shape.BytesPerRecord != 24 || c.Shapes[4].Shape.BytesPerRecord != 4112 ||
		c.Shapes[2].Shape.RecordsPerKey != 20 {
		t.Errorf("per-shape rows %+v, want 5 from 24 B to 4112 B a record, 80 B at 1 and 20 records per key", c.Shapes)
	}
	// Fills that did not count hot records (results written before they
	// were) fit the cost they always did, and say nothing of hot ones.
	if c.Hot || strings.Contains(c.FitText(), "hot") || strings.Contains(c.Basis(), "hot") || strings.Contains(c.Equation(), "hot") {
		t.Errorf("a cost over fills that counted no hot records speaks of them: %s; %s", c.Equation(), c.Basis())
	}
	for _, want := range []string{"µs a record", "ms a MB", "a record overwritten", "s a restore"} {
		if !strings.Contains(c.Equation(), want) {
			t.Errorf("equation %q lacks %q", c.Equation(), want)
		}
	}
}

// TestPlanAtYourRecordSizeUsesTheCost: a deployment of 12.7-byte records
// (the word count's changelog) is answered from the cost at that size, not
// from an MB/s of another shape: one task's restore is the cost's
// arithmetic, the rate's line states the terms, and the answers say the
// record size lies below the fitted ones.
func TestPlanAtYourRecordSizeUsesTheCost(t *testing.T) {
	rs := shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep)
	const state, bpr = 254e6, 12.7 // 20 M records of 12.7 B
	a := Analyze(rs, Options{Deployment: Deployment{StateBytes: state, Partitions: 1, Instances: 1, BytesPerRecord: bpr}})
	r := a.Rate
	if r == nil || r.Cost == nil {
		t.Fatalf("rate %+v (%v): want one from the cost", r, a.RateErr)
	}
	// No records per key given: the most measured (20) is assumed.
	want := shapeCost.Fixed + shapeCost.PerRecord*state/bpr + shapeCost.PerByte*state + shapeCost.PerOverwrite*state/bpr*(1-1.0/20)
	if !r.RecordsPerKeyAssumed || !strings.Contains(r.Summary(), "ASSUMED") {
		t.Errorf("rate %q: records per key unknown, the most measured must be assumed and said so", r.Summary())
	}
	if got := r.Seconds(state); !near(got.Value, want, 0.05) {
		t.Errorf("one task of %s at %g B a record: %.1f s, want %.1f s (the cost's terms)", FormatBytes(state), bpr, got.Value, want)
	}
	if got := r.Seconds(state); !got.HasInterval() || got.Lo > got.Value || got.Hi < got.Value {
		t.Errorf("estimate %+v carries no interval around its value", got)
	}
	if s := r.Summary(); !strings.Contains(s, "a record") || !strings.Contains(s, "at your 12.7 B a record and 20.0 records per live key") {
		t.Errorf("rate summary %q does not state the terms and the record size", s)
	}
	var warned bool
	for _, ans := range a.Answers {
		for _, in := range ans.Inputs {
			warned = warned || strings.Contains(in, "1.9× below the record sizes fitted (24.0 B to 4.11 kB)")
		}
	}
	if !warned {
		t.Errorf("no answer names how far 12.7 B a record lies from the 24 B smallest fitted")
	}
}

// TestPlanInsideTheShapesHasNoWarning: at a record size inside the fitted
// ones the cost's rate carries no shape warning, and at the measured
// shape itself the measured rate is kept.
func TestPlanInsideTheShapesHasNoWarning(t *testing.T) {
	rs := shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep)
	a := Analyze(rs, Options{Deployment: Deployment{StateBytes: 1e9, Partitions: 1, BytesPerRecord: 200, RecordsPerKey: 5}})
	if a.Rate == nil || a.Rate.Cost == nil {
		t.Fatalf("rate %+v: want the cost's at 200 B a record", a.Rate)
	}
	if w := a.Rate.FarFrom(a.Options.Deployment); w != "" {
		t.Errorf("200 B a record lies inside 24 B–4.11 kB, yet: %s", w)
	}
	want := 1 / ((shapeCost.PerRecord+shapeCost.PerOverwrite*0.8)/200 + shapeCost.PerByte)
	if !near(a.Rate.PerThread, want, 0.05) {
		t.Errorf("rate at 200 B a record %s, want %s", FormatRate(a.Rate.PerThread), FormatRate(want))
	}
}

// TestNoCostFromOneShape: restores of one record size fit no cost (a
// per-record and a per-byte term cannot be told apart), and the plan keeps
// the measured rate and its warning.
func TestNoCostFromOneShape(t *testing.T) {
	a := Analyze(shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep[2:3]), Options{Deployment: Deployment{BytesPerRecord: 12.7}})
	if len(a.Costs) != 0 || a.Rate == nil || a.Rate.Cost != nil {
		t.Fatalf("costs %d, rate %+v: one shape fits no cost", len(a.Costs), a.Rate)
	}
	if w := a.Rate.FarFrom(a.Options.Deployment); !strings.Contains(w, "1/42 of it") || !strings.Contains(w, "(fill: key_bytes and value_size)") {
		t.Errorf("warning %q does not name the distance (12.7 B against 528 B) and the fill settings that reproduce it", w)
	}
	d := a.Options.Deployment
	d.HotShare, d.HotKnown = 0.45, true
	if w := a.Rate.FarFrom(d); !strings.Contains(w, "hot records not counted") || !strings.Contains(w, "key_order: zipf") {
		t.Errorf("a skewed changelog against a rate that counted no hot records: warning %q does not point to key_order", w)
	}
	a.Rate.Shape.HotShare, a.Rate.Shape.HotKnown = 0.02, true
	if w := a.Rate.FarFrom(d); !strings.Contains(w, "2% hot records") || !strings.Contains(w, "key_order: zipf)") {
		t.Errorf("a skewed changelog against a rate measured on uniform keys: warning %q does not point to key_order: zipf", w)
	}
	d.HotShare = 0.0
	a.Rate.Shape.HotShare = 0.45
	if w := a.Rate.FarFrom(d); !strings.Contains(w, "key_order: uniform)") {
		t.Errorf("a uniform changelog against a rate measured on skewed keys: warning %q does not point to key_order: uniform", w)
	}
}

// TestCostDropsANegativeTerm: times that are purely per record fit no
// negative per-byte or fixed term; the fit keeps the terms that are
// non-negative and says which it dropped.
func TestCostDropsANegativeTerm(t *testing.T) {
	obs := func(records, bytes int64, secs float64) Obs {
		return Obs{Run: &Run{Results: &runs.Results{}}, Restore: &runs.Restore{Records: records, Bytes: bytes}, Seconds: secs}
	}
	s := &Setup{Params: config.DefaultCase(), Cases: []string{"x"}}
	// Per record only, and the large-record shape a touch faster per record:
	// an unconstrained fit gives a negative per-byte term.
	s.Obs = []Obs{obs(1e6, 24e6, 2), obs(2e6, 48e6, 4), obs(1e6, 4112e6, 1.9), obs(2e6, 8224e6, 3.8)}
	c, err := FitCost([]*Setup{s})
	if err != nil {
		t.Fatal(err)
	}
	if c.PerByte < 0 || c.PerRecord < 0 || c.Fixed < 0 {
		t.Errorf("cost %+v has a negative term", c)
	}
	if !strings.Contains(c.Basis(), "term dropped") {
		t.Errorf("basis %q does not say a term was dropped", c.Basis())
	}
	if math.IsNaN(c.Residual) {
		t.Errorf("residual is NaN")
	}
}

// TestCostOfTheSavedShapeSweep: over the saved shape sweep (18 changelogs,
// 16 B to 4.1 kB a record, 1 and 20 records per key, both engines), a
// cost is fitted per engine, and the model's fits the median of every one
// of its shapes within ±20% (the kafka-streams restores of that run are
// noisier: the machine was shared).
func TestCostOfTheSavedShapeSweep(t *testing.T) {
	rs, err := LoadRuns([]string{"../testdata/results/shapes"})
	if err != nil {
		t.Fatal(err)
	}
	a := Analyze(rs, Options{})
	engines := map[config.Engine]*Cost{}
	for _, c := range a.Costs {
		engines[c.Setups[0].Params.Engine] = c
	}
	model, ks := engines[config.EngineModel], engines[config.EngineKafkaStreams]
	if model == nil || ks == nil || len(a.Costs) != 2 {
		t.Fatalf("%d costs, want one per engine", len(a.Costs))
	}
	if len(model.Shapes) != 9 || model.PerRecord <= 0 || model.PerOverwrite <= 0 {
		t.Errorf("model cost %s over %d shapes, want 9 shapes with a per-record and a per-overwrite term", model.Equation(), len(model.Shapes))
	}
	for _, s := range model.Shapes {
		if math.Abs(s.Percent()) > 20 {
			t.Errorf("model at %s: measured %.2f s against %.2f s fitted (%+.0f%%)", s.Shape, s.Measured, s.Fitted, s.Percent())
		}
	}
}

// TestPlanNamesAWindowChangelogAgainstKeyValueCosts: a changelog read with
// --from-topic whose cleanup.policy is compact,delete (a window or
// session store's) is planned from the key-value sweep's cost only with a
// warning naming the policy and the kinds fitted; a compact one, inside
// the fitted shapes, gets none. A measured rate of the topic's own
// restore into a key-value store (plan --measure) is named the same way.
func TestPlanNamesAWindowChangelogAgainstKeyValueCosts(t *testing.T) {
	rs := shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep)
	plan := func(policy string) *Analysis {
		d := Deployment{StateBytes: 1e9, Partitions: 1, BytesPerRecord: 200, RecordsPerKey: 5,
			Changelog: &topicshape.Shape{Topic: "app-counts-changelog", CleanupPolicy: policy, Records: 5e6, Bytes: 1e9}}
		return Analyze(rs, Options{Deployment: d})
	}
	a := plan("compact,delete")
	if a.Rate == nil || a.Rate.Cost == nil {
		t.Fatalf("rate %+v: want the cost's", a.Rate)
	}
	w := a.Rate.FarFrom(a.Options.Deployment)
	if !strings.Contains(w, "cleanup.policy is compact,delete, a window or session store's") || !strings.Contains(w, "fitted on key-value stores' restores") {
		t.Errorf("a window changelog planned from key-value costs: warning %q", w)
	}
	if w := plan("compact").Rate.FarFrom(plan("compact").Options.Deployment); w != "" {
		t.Errorf("a key-value changelog inside the fitted shapes, yet: %s", w)
	}
	measured := &Rate{Setup: a.Rate.Cost.Setups[0]}
	if w := measured.FarFrom(a.Options.Deployment); !strings.Contains(w, "window or session store's") {
		t.Errorf("a key-value restore's rate for a window changelog: warning %q", w)
	}
}

// TestPlanOfAWindowChangelogUsesAWindowCost: with a sweep of key-value
// stores and one of window stores in the inputs (each differing from
// Kafka Streams' defaults only in what describes its store), a changelog
// whose cleanup.policy is compact,delete is planned from the window
// stores' cost, without a warning of another kind; a compact one from the
// key-value stores'.
func TestPlanOfAWindowChangelogUsesAWindowCost(t *testing.T) {
	rs := shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep)
	for i, r := range shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep) {
		res := *r.Results
		res.Restores = slices.Clone(res.Restores)
		for j := range res.Restores {
			p := &res.Restores[j].Params
			p.StoreKind, p.Retention = config.StoreWindow, config.Duration(2*time.Hour)
			ph := *res.Restores[j].Phase
			ph.Seconds *= 1.5
			res.Restores[j].Phase = &ph
		}
		rs = append(rs, &Run{Label: "W" + strconv.Itoa(i+1), Path: "w", Results: &res})
	}
	plan := func(policy string) *Rate {
		d := Deployment{StateBytes: 1e9, Partitions: 1, BytesPerRecord: 200, RecordsPerKey: 5,
			Changelog: &topicshape.Shape{Topic: "app-counts-changelog", CleanupPolicy: policy, Records: 5e6, Bytes: 1e9}}
		a := Analyze(rs, Options{Deployment: d})
		if a.Rate == nil || a.Rate.Cost == nil {
			t.Fatalf("%s: rate %+v (%v): want the cost's", policy, a.Rate, a.RateErr)
		}
		if w := a.Rate.FarFrom(d); w != "" {
			t.Errorf("%s: planned from the cost of its kind, yet: %s", policy, w)
		}
		return a.Rate
	}
	if k := plan("compact,delete").Cost.Setups[0].Params.StoreKind; k != config.StoreWindow {
		t.Errorf("a window changelog planned from the cost of %q stores, want window", k)
	}
	if k := plan("compact").Cost.Setups[0].Params.StoreKind.Of(); k != config.StoreKeyValue {
		t.Errorf("a key-value changelog planned from the cost of %q stores", k)
	}
}

// hotSweep is the shape sweep with two skewed shapes beside it: 8 B and
// 64 B values at 20 records per key with 45% of their records hot (Zipf
// keys), the uniform ones at 2%.
func hotSweep() []capacitytest.Shape {
	var out []capacitytest.Shape
	for _, sh := range capacitytest.ShapeSweep {
		sh.HotShare = 0.02
		out = append(out, sh)
	}
	return append(out, capacitytest.Shape{ValueBytes: 8, RecordsPerKey: 20, HotShare: 0.45},
		capacitytest.Shape{ValueBytes: 64, RecordsPerKey: 20, HotShare: 0.45})
}

// hotCost is shapeCost with a hot record at 1.2 µs instead of 2 µs.
var hotCost = capacitytest.ShapeCost{Fixed: 0.8, PerRecord: 2e-6, PerByte: 5e-9, PerOverwrite: 1e-6, PerHot: 1.2e-6}

// TestCostPricesHotRecordsApart: over a sweep whose shapes differ in how
// skewed their keys are, the cost prices a hot record apart and gives its
// term back; a plan from a changelog read with 45% hot records is answered
// at that share and says so, and one whose share was not read assumes the
// slower end, saying so.
func TestCostPricesHotRecordsApart(t *testing.T) {
	var rs []*Run
	for i, r := range capacitytest.ShapeRuns(config.EngineKafkaStreams, hotCost, 1_000_000, hotSweep()) {
		rs = append(rs, &Run{Label: "S" + strconv.Itoa(i+1), Path: "x", Results: r})
	}
	a := Analyze(rs, Options{})
	if len(a.Costs) != 1 {
		t.Fatalf("%d costs, want 1", len(a.Costs))
	}
	c := a.Costs[0]
	if !c.Hot || !near(c.PerHot, 1.2e-6, 0.1) || !near(c.PerRecord, 2e-6, 0.05) || !near(c.PerByte, 5e-9, 0.05) {
		t.Errorf("cost %s (hot priced apart %v: %g s a hot record, %g s a record), want 1.2 µs a hot record beside 2 µs",
			c.Equation(), c.Hot, c.PerHot, c.PerRecord)
	}
	if !strings.Contains(c.Equation(), " µs a hot one (its key among its partition's last 64)") ||
		!strings.Contains(c.FitText(), "hot records (their key among their partition's last 64) priced apart, 2% to 45%") {
		t.Errorf("equation %q / fit %q do not state the hot term", c.Equation(), c.FitText())
	}
	if len(c.Shapes) != 7 {
		t.Errorf("%d shape rows, want 7 (the skewed shapes apart from the uniform ones of their size)", len(c.Shapes))
	}
	const state, bpr = 160e6, 16.0 // 10 M records of 16 B, 20 a key
	records := state / bpr
	shape := topicshape.Shape{Records: 10_000_000, Bytes: int64(state), HotRecords: ptr(int64(4_500_000))}
	d := Deployment{StateBytes: state, Partitions: 1, Instances: 1, BytesPerRecord: bpr, RecordsPerKey: 20, Changelog: &shape}
	d.HotShare, d.HotKnown = shape.HotShare()
	r := Analyze(rs, Options{Deployment: d}).Rate
	want := hotCost.Fixed + records*(0.55*hotCost.PerRecord+0.45*hotCost.PerHot) + hotCost.PerByte*state + hotCost.PerOverwrite*records*0.95
	if got := r.Seconds(state); r.Cost == nil || !near(got.Value, want, 0.05) || !strings.Contains(r.Summary(), "45% hot records") {
		t.Errorf("at 45%% hot: %.2f s (%s), want %.2f s at 45%% hot", got.Value, r.Summary(), want)
	}
	d.Changelog, d.HotKnown = nil, false
	r = Analyze(rs, Options{Deployment: d}).Rate
	slow := hotCost.Fixed + records*(0.98*hotCost.PerRecord+0.02*hotCost.PerHot) + hotCost.PerByte*state + hotCost.PerOverwrite*records*0.95
	if got := r.Seconds(state); !near(got.Value, slow, 0.05) || !strings.Contains(r.Summary(), "2% hot records (ASSUMED") {
		t.Errorf("hot share unknown: %.2f s (%s), want the slower end, 2%% hot, %.2f s, said assumed", got.Value, r.Summary(), slow)
	}
}

// TestSkewedChangelogWarnsBesideUncountedShapes: a sweep whose fills did
// not count hot records (results written before they were) fits no hot
// term, and a changelog read with 45% hot records is warned about.
func TestSkewedChangelogWarnsBesideUncountedShapes(t *testing.T) {
	rs := shapeRuns(config.EngineKafkaStreams, capacitytest.ShapeSweep)
	shape := topicshape.Shape{Records: 10_000_000, Bytes: 160e6, HotRecords: ptr(int64(4_500_000))}
	d := Deployment{StateBytes: 160e6, Partitions: 1, BytesPerRecord: 64, RecordsPerKey: 5, Changelog: &shape}
	d.HotShare, d.HotKnown = shape.HotShare()
	a := Analyze(rs, Options{Deployment: d})
	if a.Rate == nil || a.Rate.Cost == nil || a.Rate.Cost.Hot {
		t.Fatalf("rate %+v: want the cost's, without a hot term", a.Rate)
	}
	if w := a.Rate.FarFrom(d); !strings.Contains(w, "your keys are skewed (45% hot records") {
		t.Errorf("warning %q does not name the skew the fitted restores did not count", w)
	}
	d.HotShare = 0.03
	if w := a.Rate.FarFrom(d); strings.Contains(w, "skewed") {
		t.Errorf("3%% hot records is no skew, yet: %s", w)
	}
}

func ptr[T any](v T) *T { return &v }

// TestHotTermDroppedPricesRecordsAlike: when the fit over shapes of
// different hot shares can only price a hot record below nothing (here
// the skewed shapes restore faster than any record's cost explains), it
// does not say so, nor that one costs nothing: the records are priced
// alike, as without hot records, and the text says nothing of them.
func TestHotTermDroppedPricesRecordsAlike(t *testing.T) {
	var rs []*Run
	below := hotCost
	below.PerHot = -1e-6
	for i, r := range capacitytest.ShapeRuns(config.EngineKafkaStreams, below, 1_000_000, hotSweep()) {
		rs = append(rs, &Run{Label: "S" + strconv.Itoa(i+1), Path: "x", Results: r})
	}
	c := Analyze(rs, Options{}).Costs[0]
	if c.Hot || c.PerRecord <= 0 || strings.Contains(c.Equation()+c.FitText(), "hot") {
		t.Errorf("hot priced apart %v at %g s, the others at %g s (%s; %s): want them alike, unsaid", c.Hot, c.PerHot, c.PerRecord,
			c.Equation(), c.FitText())
	}
	if got, none := c.Seconds(1e6, 16e6, 0, 0.45e6), c.Seconds(1e6, 16e6, 0, 0); got != none {
		t.Errorf("a million records cost %.2f s with 45%% hot, %.2f s with none: want the same", got, none)
	}
}
