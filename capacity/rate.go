package capacity

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// Rate is what every cold-restore answer rests on: one setup's restore time
// for one stream thread, Seconds = CalibrationFactor × (Overhead + bytes / PerThread).
type Rate struct {
	Setup *Setup
	// Threads is how many stream threads restored in parallel in the
	// measurements: min(num.stream.threads, partitions).
	Threads int
	// PerThread is the bytes per second one thread restores; Overhead the
	// fixed seconds of a restore (the fit's intercept; 0 without a fit).
	PerThread, Overhead float64
	// Fit is the fit the rate comes from; nil when it is the median rate of
	// the largest size measured.
	Fit *Fit
	// Obs are the restores the rate rests on.
	Obs []Obs
	// Lo and Hi bound the bytes per thread measured; estimates outside are
	// extrapolations.
	Lo, Hi float64
	// Calibration, when set, scales the model engine's times to Kafka
	// Streams'; nil for a kafka-streams setup or without a calibration.
	// Curve is the part of it that matches the rate (Calibration.CurveFor:
	// its setting on its changelog shape, when calibrated), CurveMatch how
	// it was chosen when it is not an exact match.
	Calibration *Calibration
	Curve       *CalibrationCurve
	CurveMatch  string
	// SpreadLo and SpreadHi are the least and the most a restore the rate
	// rests on took, as a share of what the rate says it takes (1 is on
	// the line): the band every estimate from the rate carries.
	SpreadLo, SpreadHi float64
	// Shape is what the changelogs the rate was measured on held: restore
	// rates depend on it, not only on bytes.
	Shape ChangelogShape
	// Cost, when set, is the restore cost per record and per byte the rate
	// was evaluated from at RecordBytes (the deployment's bytes per
	// record): PerThread and Overhead are its terms at that shape, Shape
	// is zero, and every answer states the Cost's terms.
	Cost        *Cost
	RecordBytes float64
	// RecordsPerKey is the deployment's records per live key the Cost was
	// evaluated at; RecordsPerKeyAssumed says the deployment gave none and
	// the most the Cost was fitted over was taken (the slower side).
	RecordsPerKey        float64
	RecordsPerKeyAssumed bool
	// HotShare is the deployment's share of hot records (loadgen.HotKeys)
	// the Cost was evaluated at, when the Cost prices them apart;
	// HotShareAssumed says the deployment's changelog was not read and
	// the slower end of the shares fitted was taken.
	HotShare        float64
	HotShareAssumed bool
}

// RateAt is the Cost evaluated at a changelog of bytesPerRecord,
// recordsPerKey (0 when unknown: the most the Cost was fitted over is
// taken, and the Rate says so) and, when hotKnown, hotShare of its records
// hot (unknown: the slower end of the shares fitted, said so): a Rate
// whose bytes a second are those of that shape and whose fixed cost is
// the Cost's. Its restores are the Cost's, those of the shape nearest in
// record size first (a model Cost is calibrated by that shape's curve).
func (c *Cost) RateAt(bytesPerRecord, recordsPerKey, hotShare float64, hotKnown bool) *Rate {
	assumed := false
	if recordsPerKey <= 0 {
		_, recordsPerKey = c.RecordsPerKeyRange()
		assumed = c.PerOverwrite > 0
	}
	hotAssumed := false
	if !c.Hot {
		hotShare = 0
	} else if !hotKnown {
		lo, hi, _ := c.HotShares()
		hotShare, hotAssumed = lo, true
		if c.PerHot > c.PerRecord {
			hotShare = hi
		}
	}
	near := c.nearest(bytesPerRecord)
	r := &Rate{Setup: near, Threads: c.Threads, PerThread: c.PerThreadRate(bytesPerRecord, recordsPerKey, hotShare), Overhead: c.Fixed,
		SpreadLo: c.SpreadLo, SpreadHi: c.SpreadHi, Cost: c, RecordBytes: bytesPerRecord, Lo: math.Inf(1),
		RecordsPerKey: recordsPerKey, RecordsPerKeyAssumed: assumed, HotShare: hotShare, HotShareAssumed: hotAssumed}
	r.Obs = append(r.Obs, near.Obs...)
	for _, o := range c.Obs {
		if o.Run != nil && !near.holds(o) {
			r.Obs = append(r.Obs, o)
		}
	}
	t := float64(c.Threads)
	for _, o := range c.Obs {
		r.Lo, r.Hi = math.Min(r.Lo, o.ChangelogBytes/t), math.Max(r.Hi, o.ChangelogBytes/t)
	}
	return r
}

// holds reports whether o is one of the setup's restores.
func (s *Setup) holds(o Obs) bool {
	for _, x := range s.Obs {
		if x.Restore == o.Restore {
			return true
		}
	}
	return false
}

// ChangelogShape is what a changelog holds, as far as a restore rate
// depends on it: records per live key (overwrites and tombstones a restore
// reads but that leave no state), bytes per record, the tombstone share.
type ChangelogShape struct {
	RecordsPerKey, BytesPerRecord, TombstoneShare float64
	// HotShare is the share of records whose key is among the
	// loadgen.HotKeyWindow records of its partition before it (skewed
	// keys restore faster); HotKnown says the fills counted it.
	HotShare float64
	HotKnown bool
}

// String is e.g. "2.0 records per live key, 516 B a record, 2% tombstones".
func (s ChangelogShape) String() string {
	if s.RecordsPerKey <= 0 {
		return "records per live key not recorded"
	}
	return fmt.Sprintf("%.1f records per live key, %s a record, %.0f%% tombstones", s.RecordsPerKey, FormatBytes(s.BytesPerRecord), 100*s.TombstoneShare)
}

// shapeOfObs is the median shape of the restores: records read per live
// key restored, bytes per record read, and the fill's tombstone share.
func shapeOfObs(obs []Obs) ChangelogShape {
	var rpk, bpr, ts, hot []float64
	for _, o := range obs {
		r := o.Restore
		keys, _ := r.Verification.Totals()
		if keys > 0 && r.Records > 0 {
			rpk = append(rpk, float64(r.Records)/float64(keys))
			bpr = append(bpr, float64(r.Bytes)/float64(r.Records))
		}
		if f := o.Run.Results.FillOf(r.Topic); f != nil && f.Spec != nil {
			ts = append(ts, f.Spec.TombstoneRatio)
		}
		if h, ok := hotShareOf(o); ok {
			hot = append(hot, h)
		}
	}
	sh := ChangelogShape{RecordsPerKey: runs.Median(rpk), BytesPerRecord: runs.Median(bpr), TombstoneShare: runs.Median(ts)}
	if len(hot) == len(obs) && len(obs) > 0 {
		sh.HotShare, sh.HotKnown = runs.Median(hot), true
	}
	return sh
}

// FarFrom says how a deployment's changelog differs from the one the rate
// was measured on, where it does by more than DisagreeFactor (records per
// live key, bytes per record) or by more than 10 points of tombstones, or
// "" when it does not (or either side is unknown).
func (r *Rate) FarFrom(d Deployment) string {
	if r.Cost != nil {
		return r.Cost.farFrom(d)
	}
	// far names each distance, knobs the fill settings that reproduce it.
	var far, knobs []string
	if have, want := r.Shape.RecordsPerKey, d.RecordsPerKey; have > 0 && want > 0 && runs.Disagree(want, have) {
		far = append(far, fmt.Sprintf("%.1f records per live key, yours is %.1f (%s)", have, want, timesText(want/have)))
		knobs = append(knobs, "keys against records")
	}
	if have, want := r.Shape.BytesPerRecord, d.BytesPerRecord; have > 0 && want > 0 && runs.Disagree(want, have) {
		far = append(far, fmt.Sprintf("%s a record, yours is %s (%s)", FormatBytes(have), FormatBytes(want), timesText(want/have)))
		knobs = append(knobs, "key_bytes and value_size")
	}
	if have, want := r.Shape.TombstoneShare, d.TombstoneShare; d.Changelog != nil && r.Shape.RecordsPerKey > 0 && math.Abs(want-have) > maxTombstoneGap {
		far = append(far, fmt.Sprintf("%.0f%% tombstones, yours is %.0f%%", 100*have, 100*want))
		knobs = append(knobs, "tombstone_ratio")
	}
	switch have, want := r.Shape.HotShare, d.HotShare; {
	case d.HotKnown && r.Shape.HotKnown && math.Abs(want-have) > maxHotGap:
		far = append(far, fmt.Sprintf("%.0f%% hot records (%s), yours is %.0f%%", 100*have, hotWhat, 100*want))
		order := "key_order: uniform" // yours less skewed than measured
		if want > have {
			order = "key_order: zipf"
		}
		knobs = append(knobs, order)
	case d.HotKnown && !r.Shape.HotKnown && r.Shape.RecordsPerKey > 0 && want >= minHotSpread:
		far = append(far, fmt.Sprintf("hot records not counted (%s), yours are %.0f%% (%s): skewed keys restore faster", hotUncounted, 100*want, hotWhat))
		knobs = append(knobs, "key_order: zipf")
	}
	var kinds string
	if r.Setup != nil {
		kinds = kindDistance([]*Setup{r.Setup}, d)
	}
	if len(far) == 0 {
		if kinds != "" {
			return "WARNING: " + kinds + ": measure a restore of your store's own kind before relying on these answers"
		}
		return ""
	}
	if kinds != "" {
		far = append(far, kinds)
	}
	// Every distance in far named its knob; kinds, if any, came last.
	return "WARNING: the rate was measured at " + strings.Join(far, "; ") +
		": a restore reads every record, so its time per byte of state differs; measure a fill of your shape (fill: " +
		strings.Join(knobs, "; ") + ") before relying on these answers"
}

// timesText says how many times larger (×2.5) or smaller (1/40 of it) a
// ratio is, so that a small one does not print as ×0.0.
func timesText(ratio float64) string {
	if ratio >= 1 {
		return fmt.Sprintf("×%.1f", ratio)
	}
	return fmt.Sprintf("1/%.0f of it", 1/ratio)
}

// maxTombstoneGap is how far apart the tombstone shares of the measured
// and the user's changelog may be before FarFrom warns: 10 points.
const maxTombstoneGap = 0.10

// calibrate sets the calibration the rate's model times are scaled by,
// and the curve of it that matches the rate's setting and changelog.
func (r *Rate) calibrate(c *Calibration) {
	if c == nil {
		return
	}
	r.Calibration = c
	shape := ""
	if len(r.Obs) > 0 {
		shape = shapeOf(r.Obs[0])
	}
	r.Curve, r.CurveMatch = c.CurveFor(r.Setup.Params, shape)
}

// FactorAt is the calibration factor for a restore of bytes a thread
// (Kafka Streams over model, from the rate's curve at that size, with its
// interval); nil without a calibration.
func (r *Rate) FactorAt(bytes float64) *AppliedFactor {
	if r.Curve == nil {
		return nil
	}
	f := r.Curve.At(bytes)
	f.Match = r.CurveMatch
	return &f
}

// CalibrationFactor is the factor at the largest bytes a thread the rate
// was measured on, for conversions of the rate itself that have no size
// of their own (1 without a calibration).
func (r *Rate) CalibrationFactor() float64 { return factorValue(r.FactorAt(r.Hi)) }

// factorValue is f's factor, 1 without one.
func factorValue(f *AppliedFactor) float64 {
	if f == nil {
		return 1
	}
	return f.Value
}

// Seconds is the time one thread takes to restore bytes and serve, with
// the interval the measured spread and, when calibrated, the factor's own
// interval at that size give it (relative widths multiplied).
func (r *Rate) Seconds(bytes float64) Estimate {
	f := r.FactorAt(bytes)
	v := factorValue(f) * (r.Overhead + bytes/r.PerThread)
	e := Estimate{Value: v, Extrapolated: outside(bytes, r.Lo, r.Hi), Beyond: beyond(bytes, r.Lo, r.Hi), Below: bytes < r.Lo, Factor: f}
	r.shapeOf(&e)
	lo, hi := r.spreadLo(), r.spreadHi()
	if f != nil {
		lo, hi = lo*f.Lo/f.Value, hi*f.Hi/f.Value
	}
	e.Lo, e.Hi = v*lo, v*hi
	return e
}

// recordSizeOutside is "below" or "beyond" when the rate comes from a
// Cost evaluated outside the record sizes it was fitted over, else "";
// shapeOutside says the same of the farther of the record size and the
// records per live key: "below the record sizes measured", "beyond the
// records per live key measured".
func (r *Rate) recordSizeOutside() string {
	if r.Cost == nil {
		return ""
	}
	lo, hi := r.Cost.RecordSizes()
	switch b := beyond(r.RecordBytes, lo, hi); {
	case b <= 1:
		return ""
	case r.RecordBytes < lo:
		return "below"
	}
	return "beyond"
}

func (r *Rate) shapeOutside() string {
	var e Estimate
	r.shapeOf(&e)
	if e.ShapeBeyond <= 1 {
		return ""
	}
	side := "beyond"
	if e.ShapeBelow {
		side = "below"
	}
	if e.ShapeWhat == shapeRecordSize {
		return side + " the record sizes measured"
	}
	return side + " the records per live key measured"
}

// What a shape extrapolation is along (Estimate.ShapeWhat).
const (
	shapeRecordSize    = "record size"
	shapeRecordsPerKey = "records per live key"
)

// shapeOf marks an estimate of a rate evaluated from a Cost with how far
// the record size lies outside the sizes the Cost was fitted over.
func (r *Rate) shapeOf(e *Estimate) {
	if r.Cost == nil {
		return
	}
	lo, hi := r.Cost.RecordSizes()
	e.ShapeBeyond, e.ShapeBelow, e.ShapeWhat = beyond(r.RecordBytes, lo, hi), r.RecordBytes < lo, shapeRecordSize
	rlo, rhi := r.Cost.RecordsPerKeyRange()
	rpk := r.RecordsPerKey
	if rpk < rlo && rlo <= 1.25 {
		rpk = rlo // about one record a key: as few as a changelog holds
	}
	if b := beyond(rpk, rlo, rhi); b > e.ShapeBeyond {
		e.ShapeBeyond, e.ShapeBelow, e.ShapeWhat = b, rpk < rlo, shapeRecordsPerKey
	}
}

// spread is the least and most the restores took as a share of what
// predict says they take.
func spread(obs []Obs, predict func(Obs) float64) (lo, hi float64) {
	for _, o := range obs {
		p := predict(o)
		if !(p > 0) || !(o.Seconds > 0) {
			continue
		}
		rel := o.Seconds / p
		if lo == 0 || rel < lo {
			lo = rel
		}
		hi = max(hi, rel)
	}
	return lo, hi
}

// BytesWithin is the most one thread restores within seconds (0 when the
// fixed overhead alone takes longer).
//
// Calibrated, the factor depends on the size sought: the size is found by
// fixed-point iteration from the factor at the largest size measured (the
// factor moves slowly with log size, so a few rounds settle it).
func (r *Rate) BytesWithin(seconds float64) Estimate {
	f := r.FactorAt(r.Hi)
	b := math.Max(0, (seconds/factorValue(f)-r.Overhead)*r.PerThread)
	for i := 0; f != nil && b > 0 && i < 50; i++ {
		f = r.FactorAt(b)
		next := math.Max(0, (seconds/f.Value-r.Overhead)*r.PerThread)
		done := math.Abs(next-b) <= 1e-9*b
		b = next
		if done {
			break
		}
	}
	e := Estimate{Value: b, Extrapolated: outside(b, r.Lo, r.Hi), Beyond: beyond(b, r.Lo, r.Hi), Below: b < r.Lo, Factor: f}
	r.shapeOf(&e)
	if f != nil && b > 0 {
		e.Lo, e.Hi = r.bytesWithinAt(seconds, f.Hi*r.spreadHi()), r.bytesWithinAt(seconds, f.Lo*r.spreadLo())
	}
	return e
}

// bytesWithinAt is what one thread restores within seconds when its time
// is factor × (Overhead + bytes / PerThread): an end of BytesWithin's
// interval, the slowest factor giving the least.
func (r *Rate) bytesWithinAt(seconds, factor float64) float64 {
	return math.Max(0, (seconds/factor-r.Overhead)*r.PerThread)
}

// spreadLo and spreadHi are the rate's spread, 1 when none was measured.
func (r *Rate) spreadLo() float64 {
	if r.SpreadLo <= 0 || r.SpreadHi <= 0 {
		return 1
	}
	return r.SpreadLo
}

func (r *Rate) spreadHi() float64 {
	if r.SpreadLo <= 0 || r.SpreadHi <= 0 {
		return 1
	}
	return r.SpreadHi
}

// Summary is the rate in one line: "102 MB/s per thread + 0.81 s per
// restore", or from a Cost its terms and what they come to at the
// deployment's record size.
func (r *Rate) Summary() string {
	s := FormatRate(r.PerThread) + " per stream thread"
	if r.Cost != nil {
		at := fmt.Sprintf("at your %s a record and %.1f records per live key", FormatBytes(r.RecordBytes), r.RecordsPerKey)
		if r.RecordsPerKeyAssumed {
			at = fmt.Sprintf("at your %s a record and %.1f records per live key (ASSUMED: the most measured; give --records-per-key)",
				FormatBytes(r.RecordBytes), r.RecordsPerKey)
		}
		if r.Cost.Hot {
			at += fmt.Sprintf(", %.0f%% hot records", 100*r.HotShare)
			if r.HotShareAssumed {
				at += " (ASSUMED: the slower end measured; give --hot-share, or read your changelog with --from-topic)"
			}
		}
		s = fmt.Sprintf("%s per stream thread: %s, %s", r.Cost.Equation(), at, s)
		if r.Curve != nil {
			s += ", calibrated to Kafka Streams by " + r.CalibrationText()
		}
		return s
	}
	switch {
	case r.Overhead > 0:
		s += fmt.Sprintf(" + %s per restore", FormatSeconds(r.Overhead))
	case r.Overhead < 0: // a fit's intercept below zero: said as what it is, not "+ -0.27 s"
		s += fmt.Sprintf(" − %s per restore (the fit's intercept)", FormatSeconds(-r.Overhead))
	}
	if r.Curve != nil {
		s += ", calibrated to Kafka Streams by " + r.CalibrationText()
	}
	return s
}

// CalibrationText is the rate's calibration in a phrase: the fit of its
// curve, or the one size's factor with its spread ("×1.14 (1.10–1.18 over
// 5 repeat pairs at 1.00 GB a thread)"); "" uncalibrated.
func (r *Rate) CalibrationText() string {
	c := r.Curve
	if c == nil {
		return ""
	}
	if c.Fit != nil {
		return fmt.Sprintf("a factor against size, %s, %s–%s a thread", c.Fit, FormatBytes(c.MinBytes()), FormatBytes(c.MaxBytes()))
	}
	if c.NoFit != "" {
		return fmt.Sprintf("factors at %d sizes, %s–%s a thread (%s)", c.Sizes(), FormatBytes(c.MinBytes()), FormatBytes(c.MaxBytes()), c.NoFit)
	}
	f := c.At(c.MinBytes())
	n := 0
	for _, p := range c.Points {
		n += len(p.Factors)
	}
	return fmt.Sprintf("×%.2f (%.2f–%.2f over %s at %s a thread)", f.Value, f.Lo, f.Hi, Plural(n, "repeat pair"), FormatBytes(c.MinBytes()))
}

// Basis says what the rate was derived from, with its range.
func (r *Rate) Basis() string {
	var s string
	if r.Cost != nil {
		return r.Cost.Basis()
	}
	if f := r.Fit; f != nil {
		s = fmt.Sprintf("least-squares fit of time to ready against changelog size over %d restores at %d sizes (%s to %s), R² %.3f: %s",
			len(f.Points), len(f.Sizes), FormatBytes(f.Min()), FormatBytes(f.Max()), f.R2, f.Equation())
	} else {
		s = fmt.Sprintf("median time to ready of %d restores of %s (no fit: it needs %d sizes; no fixed overhead separated)",
			len(r.Obs), FormatBytes(r.Obs[0].ChangelogBytes), MinFitSizes)
	}
	if r.Threads > 1 {
		s += fmt.Sprintf(", divided by the %d threads restoring in parallel", r.Threads)
	}
	if r.Shape.RecordsPerKey > 0 {
		s += "; measured on changelogs of " + r.Shape.String()
	}
	return s
}

// Label names the setup and engine, with "calibrated" when it applies.
func (r *Rate) Label() string {
	l := r.Setup.Label()
	if r.Calibration != nil {
		l += ", calibrated"
	}
	return l
}

// ErrNoRestores is returned when the inputs hold no verified cold restore.
var ErrNoRestores = errors.New("the inputs hold no verified cold restore: a rate needs at least one (`restorebench run quick` makes some)")

// ChooseRate picks the setup the capacity answers rest on and derives its
// rate: the setup of case caseName when given, else the one with Kafka
// Streams' default settings; the kafka-streams engine before the model, then
// the setup with the most sizes and restores. A model setup is calibrated
// when calib is set.
func ChooseRate(setups []*Setup, caseName string, calib *Calibration) (*Rate, error) {
	return chooseRateFor(setups, caseName, "", calib)
}

// chooseRateFor is ChooseRate preferring, before all else, the restores of
// topic (the user's own changelog, restored by plan --measure): a restore
// of the very changelog asked about is the best evidence there is.
func chooseRateFor(setups []*Setup, caseName, topic string, calib *Calibration) (*Rate, error) {
	cands, err := candidates(setups, caseName)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if ti, tj := cands[i].restores(topic), cands[j].restores(topic); ti != tj {
			return ti
		}
		return better(cands[i], cands[j])
	})
	for _, s := range cands {
		r := rateOf(s)
		if !measurable(r.PerThread) {
			continue
		}
		if s.Params.Engine == config.EngineModel {
			r.calibrate(calib)
		}
		return r, nil
	}
	r := rateOf(cands[0])
	return nil, fmt.Errorf("no rate: the verified cold restores of %s give %v bytes/s per thread (they read %s in %s): "+
		"a rate needs restores that read bytes over a measured time",
		cands[0].Label(), r.PerThread, FormatBytes(r.Lo*float64(r.Threads)), FormatSeconds(r.Obs[0].Seconds))
}

// restores reports whether the setup's restores read topic ("" never).
func (s *Setup) restores(topic string) bool {
	return topic != "" && len(s.Obs) > 0 && s.Obs[0].Restore.Topic == topic
}

// measurable reports whether a rate is one: positive and finite (a restore
// that read no bytes, or took no time, measures none).
func measurable(rate float64) bool { return rate > 0 && !math.IsInf(rate, 0) && !math.IsNaN(rate) }

// candidates are the cold setups of caseName, or with default settings.
func candidates(setups []*Setup, caseName string) ([]*Setup, error) {
	var cold, out []*Setup
	for _, s := range setups {
		if s.Params.Scenario == config.ScenarioCold {
			cold = append(cold, s)
		}
	}
	if len(cold) == 0 {
		return nil, ErrNoRestores
	}
	for _, s := range cold {
		if (caseName != "" && contains(s.Cases, caseName)) || (caseName == "" && IsKafkaStreamsDefault(s.Params)) {
			out = append(out, s)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if caseName != "" {
		return nil, fmt.Errorf("no verified cold restore of case %q in the inputs (cases: %s)", caseName, caseList(cold))
	}
	return nil, fmt.Errorf("no verified cold restore with Kafka Streams' default settings in the inputs: name the "+
		"configuration to plan with (--case; cases: %s)", caseList(cold))
}

func caseList(setups []*Setup) string {
	var names []string
	for _, s := range setups {
		for _, c := range s.Cases {
			if !contains(names, c) {
				names = append(names, c)
			}
		}
	}
	return strings.Join(names, ", ")
}

// better orders setups for ChooseRate: the real client, more sizes, more restores.
func better(a, b *Setup) bool {
	ka, kb := a.Params.Engine == config.EngineKafkaStreams, b.Params.Engine == config.EngineKafkaStreams
	if ka != kb {
		return ka
	}
	na, nb := len(BySize(a.Obs, AxisChangelog)), len(BySize(b.Obs, AxisChangelog))
	if na != nb {
		return na > nb
	}
	return len(a.Obs) > len(b.Obs)
}

// rateOf derives a setup's rate: from its fit when it has enough sizes and
// the fit rises with size, else from the median of its largest size.
func rateOf(s *Setup) *Rate { return rateFrom(s, s.Obs) }

// rateFrom is rateOf over some of the setup's restores (a warm restart's
// steps, say), with sizes on the changelog axis: the bytes each read.
func rateFrom(s *Setup, obs []Obs) *Rate {
	r := &Rate{Setup: s, Threads: parallelThreads(s)}
	t := float64(r.Threads)
	if f, err := fitObs(s, AxisChangelog, obs); err == nil && f.Slope > 0 {
		r.Fit, r.Obs = f, f.Points
		r.PerThread, r.Overhead = f.Rate()/t, f.Intercept
		r.Lo, r.Hi = f.Min()/t, f.Max()/t
		r.SpreadLo, r.SpreadHi = spread(f.Points, func(o Obs) float64 { return f.Intercept + f.Slope*AxisChangelog.Of(o) })
		r.Shape = shapeOfObs(f.Points)
		return r
	}
	groups := BySize(obs, AxisChangelog)
	largest := groups[len(groups)-1]
	rates := make([]float64, len(largest))
	for i, o := range largest {
		rates[i] = o.ChangelogBytes / o.Seconds
	}
	r.Obs = largest
	r.PerThread = runs.Median(rates) / t
	r.Lo = largest[0].ChangelogBytes / t
	r.Hi = r.Lo
	r.SpreadLo, r.SpreadHi = spread(largest, func(o Obs) float64 { return o.ChangelogBytes / (r.PerThread * t) })
	r.Shape = shapeOfObs(largest)
	return r
}

// parallelThreads is the fewest threads that restored in parallel in any
// of the setup's restores (runs.Restore.RestoringThreads: min(threads,
// partitions)).
func parallelThreads(s *Setup) int {
	t := max(1, s.Params.Threads)
	for _, o := range s.Obs {
		t = min(t, o.Restore.RestoringThreads())
	}
	return t
}
