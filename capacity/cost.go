package capacity

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// Cost is what a cold restore costs one stream thread, as a function of
// what its changelog holds rather than of its bytes alone, fitted over the
// restores of several changelog shapes (record sizes, records per key)
// under one setting on one host:
//
//	Seconds = Fixed + PerRecord × records + PerByte × key+value bytes
//	        + PerOverwrite × (records − live keys)
//
// (records, bytes and overwrites one thread restores), and, when the
// shapes fitted differ in how skewed their keys are (Hot), records split
// into those of a key among the last loadgen.HotKeyWindow of their
// partition, at PerHot, and the others, at PerRecord: a memtable insert
// of a key written a moment ago costs less. A restore of small
// records costs per record (decoding, a WriteBatch entry, a memtable
// insert), one of large records per byte, and a record that a later one of
// its key replaces or deletes costs RocksDB again in flushes and
// compactions: an MB/s measured on 500-byte records of fresh keys says
// nothing of a changelog of 12-byte updates to a few keys, a Cost does. Setups of one setting differ only
// in the changelog shape (Setups keys them by it); a Cost puts them back
// together.
type Cost struct {
	// Setups are the shapes fitted, one Setup each, in first-seen order.
	Setups []*Setup
	// Threads is how many stream threads restored in parallel (the fewest
	// over the setups): records and bytes are per thread.
	Threads int
	// Fixed is in seconds a restore, PerRecord in seconds a record,
	// PerByte in seconds a byte, PerOverwrite in seconds a record that
	// leaves no live key (replaced by a later record of its key, or a
	// tombstone or a deleted one). A term the fit dropped (its coefficient
	// came out negative, which no restore costs) is 0 and absent from Terms.
	Fixed, PerRecord, PerByte, PerOverwrite float64
	// Hot says the fit priced hot records (loadgen.HotKeys) apart, at
	// PerHot, PerRecord then pricing the others: every restore fitted
	// has its share of hot records counted, and those shares span
	// minHotSpread. Without it PerHot is 0 and a hot record costs
	// PerRecord (perHot).
	Hot    bool
	PerHot float64
	// Terms are the terms the fit kept, of "restore", "record", "byte",
	// "overwrite", "hot record".
	Terms []string
	// Obs are the restores fitted.
	Obs []Obs
	// Residual is the root mean square of each restore's measured over
	// fitted time less one: 0.06 means the fit is off by 6% on a typical
	// restore. SpreadLo and SpreadHi are the least and most a restore took
	// as a share of its fitted time: the band every estimate carries.
	Residual, SpreadLo, SpreadHi float64
	// Shapes are the fit per shape: each one's median measured against
	// fitted time, by bytes per record ascending.
	Shapes []ShapeResidual
}

// ShapeResidual is how a Cost fits the restores of one changelog shape.
type ShapeResidual struct {
	Setup *Setup
	// Shape is what those changelogs held.
	Shape ChangelogShape
	// Restores is how many restores of the shape were fitted.
	Restores int
	// Measured and Fitted are the median seconds of the shape's restores
	// and the fit's median for the same restores.
	Measured, Fitted float64
}

// Percent is the shape's residual as a percentage of its fitted time.
func (s ShapeResidual) Percent() float64 { return 100 * (s.Measured/s.Fitted - 1) }

// minCostShapeRatio is how far apart (as a ratio of bytes per record) the
// smallest and largest record sizes of a Cost's shapes must lie before a
// per-record and a per-byte term can be told apart: closer, a fit splits
// noise between them.
const minCostShapeRatio = 1.5

// minCostRestores is the fewest restores a Cost is fitted over: one more
// than its terms, so the fit can disagree with a restore.
const minCostRestores = 4

// ErrNoCost says the inputs hold no sweep of shapes to fit a Cost over.
var ErrNoCost = errors.New("no restore cost per record and per byte: that needs verified cold restores of one setting " +
	"at changelog shapes whose bytes per record differ 1.5× or more (the shapes profile runs such a sweep)")

// Costs fits a Cost for each setting on each host whose cold restores span
// shapes: setups that differ only in the changelog shape (bytes per record,
// records per key, tombstones), with at least two record sizes
// minCostShapeRatio apart. The engine and the store kind are settings, so
// each gets its own Cost.
func Costs(setups []*Setup) []*Cost {
	groups := map[string][]*Setup{}
	var order []string
	for _, s := range setups {
		if s.Params.Scenario != config.ScenarioCold {
			continue
		}
		k := fmt.Sprintf("%+v|%s", s.Env, settingsKey(s.Params))
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	var out []*Cost
	for _, k := range order {
		if c, err := FitCost(groups[k]); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// FitCost fits one Cost over the cold restores of setups (one setting,
// several shapes). It fails with ErrNoCost when their record sizes do not
// span minCostShapeRatio or there are fewer than minCostRestores restores,
// and with an error naming the problem when no fit with positive terms
// exists.
//
// The fit is least squares on relative error (each restore weighted by one
// over its time squared), so a 2 s restore counts as much as a 200 s one;
// of the fits over every subset of the four terms that keeps a record or a
// byte term, the best of those with the most terms whose coefficients all
// come out non-negative is taken (bestNonNegativeFit).
func FitCost(setups []*Setup) (*Cost, error) {
	c := &Cost{Setups: setups, Threads: math.MaxInt}
	for _, s := range setups {
		c.Threads = min(c.Threads, parallelThreads(s))
		for _, o := range s.Obs {
			if o.Seconds > 0 && o.Restore.Records > 0 {
				c.Obs = append(c.Obs, o)
			}
		}
	}
	if len(c.Obs) < minCostRestores {
		return nil, ErrNoCost
	}
	if lo, hi := c.RecordSizes(); !(hi >= minCostShapeRatio*lo) {
		return nil, ErrNoCost
	}
	if lo, hi, known := c.HotShares(); known && hi-lo >= minHotSpread {
		c.Hot = true
	}
	xs := make([][costColumns]float64, len(c.Obs))
	ys := make([]float64, len(c.Obs))
	for i, o := range c.Obs {
		xs[i] = c.columns(o)
		ys[i] = o.Seconds
	}
	coef, terms, ok := bestNonNegativeFit(xs, ys, c.columnsFitted())
	if ok && c.Hot && (!contains(terms, "record") || !contains(terms, "hot record")) {
		// A hot record priced at nothing, or the others: no restore
		// costs that. The records are priced alike instead.
		c.Hot = false
		for i, o := range c.Obs {
			xs[i] = c.columns(o)
		}
		coef, terms, ok = bestNonNegativeFit(xs, ys, c.columnsFitted())
	}
	if !ok {
		return nil, fmt.Errorf("no restore cost with positive terms fits the %d restores of %s", len(c.Obs), setups[0].Label())
	}
	c.Fixed, c.PerRecord, c.PerByte, c.PerOverwrite = coef[0], coef[1], coef[2], coef[3]
	if c.Hot {
		c.PerHot = coef[hotColumn]
	}
	c.Terms = terms
	c.residuals()
	return c, nil
}

// costColumns is how many terms a Cost's fit has.
const costColumns = 5

// costTerms names the columns of a Cost's fit.
var costTerms = [costColumns]string{"restore", "record", "byte", "overwrite", "hot record"}

// hotColumn is the column of the hot records, fitted only when Cost.Hot.
const hotColumn = 4

// columnsFitted is the mask of the columns the fit may use: all but the
// hot records' unless the Cost prices them apart.
func (c *Cost) columnsFitted() int {
	if c.Hot {
		return 1<<costColumns - 1
	}
	return (1<<costColumns - 1) &^ (1 << hotColumn)
}

// columns are a restore's regressors, per thread: 1, records (the ones
// not hot when the Cost prices hot ones apart), bytes, the records that
// left no live key, and the hot records (0 unless Hot).
func (c *Cost) columns(o Obs) [costColumns]float64 {
	t := float64(c.Threads)
	keys, _ := o.Restore.Verification.Totals()
	over := math.Max(0, float64(o.Restore.Records-keys))
	records, hot := float64(o.Restore.Records), 0.0
	if h, ok := hotShareOf(o); ok && c.Hot {
		hot = h * records
		records -= hot
	}
	return [costColumns]float64{1, records / t, float64(o.Restore.Bytes) / t, over / t, hot / t}
}

// bestNonNegativeFit fits ys against the columns of xs (those in the mask
// allowed) over every subset of them that holds a record or a byte term,
// and returns, of the subsets with the most terms whose coefficients all
// come out non-negative (and whose system is not singular), the one that
// fits best.
func bestNonNegativeFit(xs [][costColumns]float64, ys []float64, allowed int) (coef [costColumns]float64, terms []string, ok bool) {
	const perRecordOrByte = 1<<1 | 1<<2
	for size := costColumns; size >= 1 && !ok; size-- {
		best := math.Inf(1)
		for mask := 1; mask < 1<<costColumns; mask++ {
			var cols []int
			for j := range costColumns {
				if mask&(1<<j) != 0 {
					cols = append(cols, j)
				}
			}
			if len(cols) != size || mask&perRecordOrByte == 0 || mask&^allowed != 0 {
				continue
			}
			c, solved := weightedLeastSquares(xs, ys, cols)
			if !solved || anyNegative(c, cols) {
				continue
			}
			if sse := relativeSSE(xs, ys, c); sse < best {
				best, coef, ok = sse, c, true
				terms = terms[:0]
				for _, j := range cols {
					terms = append(terms, costTerms[j])
				}
			}
		}
	}
	return coef, terms, ok
}

// anyNegative reports whether a coefficient of cols is below zero.
func anyNegative(c [costColumns]float64, cols []int) bool {
	for _, j := range cols {
		if c[j] < 0 {
			return true
		}
	}
	return false
}

// relativeSSE is the sum of squared relative errors of the fit c.
func relativeSSE(xs [][costColumns]float64, ys []float64, c [costColumns]float64) float64 {
	var sse float64
	for i, x := range xs {
		var p float64
		for j := range costColumns {
			p += c[j] * x[j]
		}
		d := (ys[i] - p) / ys[i]
		sse += d * d
	}
	return sse
}

// weightedLeastSquares solves the normal equations of ys against the
// columns cols of xs, each row weighted by 1/y² (least squares on relative
// error), by gonum's Cholesky factorization of the (symmetric, positive
// definite) normal matrix. It reports false when the system is singular
// (the columns cannot be told apart): the matrix is not positive
// definite, or an elimination pivot (a squared diagonal of the factor)
// falls under 1e-9 per row, the columns being scaled to unit size first so
// records and bytes condition alike.
func weightedLeastSquares(xs [][costColumns]float64, ys []float64, cols []int) (coef [costColumns]float64, ok bool) {
	n := len(cols)
	var scale [costColumns]float64
	for k, j := range cols {
		for i := range xs {
			scale[k] = math.Max(scale[k], math.Abs(xs[i][j]))
		}
		if scale[k] == 0 {
			return coef, false
		}
	}
	normal, rhs := mat.NewSymDense(n, nil), mat.NewVecDense(n, nil)
	for i, x := range xs {
		w := 1 / (ys[i] * ys[i])
		for r, jr := range cols {
			for c := r; c < n; c++ {
				normal.SetSym(r, c, normal.At(r, c)+w*x[jr]/scale[r]*x[cols[c]]/scale[c])
			}
			rhs.SetVec(r, rhs.AtVec(r)+w*x[jr]/scale[r]*ys[i])
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(normal) {
		return coef, false
	}
	var l mat.TriDense
	chol.LTo(&l)
	for k := range n {
		if d := l.At(k, k); d*d < 1e-9*float64(len(xs)) {
			return coef, false
		}
	}
	var sol mat.VecDense
	if err := chol.SolveVecTo(&sol, rhs); err != nil {
		return coef, false
	}
	for k, j := range cols {
		coef[j] = sol.AtVec(k) / scale[k]
	}
	return coef, true
}

// residuals sets the Cost's residual, spread and per-shape fit.
func (c *Cost) residuals() {
	var sq float64
	c.SpreadLo, c.SpreadHi = spread(c.Obs, c.fitted)
	for _, o := range c.Obs {
		d := o.Seconds/c.fitted(o) - 1
		sq += d * d
	}
	c.Residual = math.Sqrt(sq / float64(len(c.Obs)))
	// A row per shape: the restores of one record size and records per
	// key (a Setup may hold several records per key: its fills differ in
	// key count, which a size sweep changes too).
	rows := map[string]*ShapeResidual{}
	var order []string
	meas, fit := map[string][]float64{}, map[string][]float64{}
	for _, o := range c.Obs {
		sh := shapeOfObs([]Obs{o})
		k := fmt.Sprintf("%.3g|%.2g", sh.BytesPerRecord, sh.RecordsPerKey)
		if c.Hot {
			// Ten-point buckets: the sizes of one Zipf shape lie a few
			// points apart.
			k += fmt.Sprintf("|%d", int(10*sh.HotShare))
		}
		if rows[k] == nil {
			rows[k] = &ShapeResidual{Setup: c.setupOf(o), Shape: sh}
			order = append(order, k)
		}
		rows[k].Restores++
		meas[k], fit[k] = append(meas[k], o.Seconds), append(fit[k], c.fitted(o))
	}
	for _, k := range order {
		r := rows[k]
		r.Measured, r.Fitted = runs.Median(meas[k]), runs.Median(fit[k])
		c.Shapes = append(c.Shapes, *r)
	}
	sort.SliceStable(c.Shapes, func(i, j int) bool {
		a, b := c.Shapes[i].Shape, c.Shapes[j].Shape
		if a.BytesPerRecord != b.BytesPerRecord {
			return a.BytesPerRecord < b.BytesPerRecord
		}
		if a.RecordsPerKey != b.RecordsPerKey {
			return a.RecordsPerKey < b.RecordsPerKey
		}
		return a.HotShare < b.HotShare
	})
}

// setupOf is the Cost's setup holding o.
func (c *Cost) setupOf(o Obs) *Setup {
	for _, s := range c.Setups {
		if s.holds(o) {
			return s
		}
	}
	return c.Setups[0]
}

// fitted is the Cost's seconds for the restore o measured.
func (c *Cost) fitted(o Obs) float64 {
	x := c.columns(o)
	return c.Seconds(x[1]+x[hotColumn], x[2], x[3], x[hotColumn])
}

// Seconds is the fitted time for one thread to restore records holding
// bytes of key+value, overwrites of them leaving no live key and hot of
// them hot (loadgen.HotKeys; it matters only when the Cost is Hot).
func (c *Cost) Seconds(records, bytes, overwrites, hot float64) float64 {
	// A hot record's price over an ordinary one's: exactly 0 when hot
	// records are not priced apart, whatever the hot share.
	return c.Fixed + c.PerRecord*records + (c.perHot()-c.PerRecord)*hot + c.PerByte*bytes + c.PerOverwrite*overwrites
}

// perHot is what a hot record costs: PerHot when the Cost prices hot
// records apart, else PerRecord.
func (c *Cost) perHot() float64 {
	if c.Hot {
		return c.PerHot
	}
	return c.PerRecord
}

// PerThreadRate is the bytes a second one thread restores of a changelog
// of bytesPerRecord, recordsPerKey and hotShare of its records hot, once
// the fixed cost is paid.
func (c *Cost) PerThreadRate(bytesPerRecord, recordsPerKey, hotShare float64) float64 {
	perRecord := c.PerRecord + (c.perHot()-c.PerRecord)*hotShare
	return 1 / ((perRecord+c.PerOverwrite*overwriteShare(recordsPerKey))/bytesPerRecord + c.PerByte)
}

// HotShares bound the shares of hot records (loadgen.HotKeys) of the
// restores fitted; known is false when a restore's fill did not count
// them (results written before they were counted).
func (c *Cost) HotShares() (lo, hi float64, known bool) {
	lo = math.Inf(1)
	for _, o := range c.Obs {
		h, ok := hotShareOf(o)
		if !ok {
			return 0, 0, false
		}
		lo, hi = math.Min(lo, h), math.Max(hi, h)
	}
	return lo, hi, len(c.Obs) > 0
}

// overwriteShare is the share of a changelog's records that leave no live
// key at recordsPerKey: 1 − 1/recordsPerKey (0 at one record per key).
func overwriteShare(recordsPerKey float64) float64 {
	if recordsPerKey <= 1 {
		return 0
	}
	return 1 - 1/recordsPerKey
}

// RecordsPerKeyRange bounds the records per live key of the shapes fitted.
func (c *Cost) RecordsPerKeyRange() (lo, hi float64) {
	lo = math.Inf(1)
	for _, s := range c.Shapes {
		lo, hi = math.Min(lo, s.Shape.RecordsPerKey), math.Max(hi, s.Shape.RecordsPerKey)
	}
	return lo, hi
}

// RecordSizes bound the bytes per record of the restores fitted.
func (c *Cost) RecordSizes() (lo, hi float64) {
	lo = math.Inf(1)
	for _, o := range c.Obs {
		b := bytesPerRecord(o)
		lo, hi = math.Min(lo, b), math.Max(hi, b)
	}
	return lo, hi
}

// bytesPerRecord is the key+value bytes a record the restore read.
func bytesPerRecord(o Obs) float64 { return float64(o.Restore.Bytes) / float64(o.Restore.Records) }

// Equation is the Cost's terms in the units a reader can picture:
// "1.90 µs a record + 3.10 ms a MB + 0.600 s a restore".
func (c *Cost) Equation() string {
	var parts []string
	switch {
	case c.Hot:
		parts = append(parts, fmt.Sprintf("%s a record not hot + %s a hot one (its key among its partition's last %d)",
			formatTiny(c.PerRecord), formatTiny(c.PerHot), loadgen.HotKeyWindow))
	case c.PerRecord > 0:
		parts = append(parts, formatTiny(c.PerRecord)+" a record")
	}
	if c.PerByte > 0 {
		parts = append(parts, formatTiny(c.PerByte*1e6)+" a MB")
	}
	if c.PerOverwrite > 0 {
		parts = append(parts, formatTiny(c.PerOverwrite)+" a record overwritten")
	}
	if c.Fixed > 0 {
		parts = append(parts, FormatSeconds(c.Fixed)+" a restore")
	}
	return strings.Join(parts, " + ")
}

// formatTiny formats seconds that may be millionths: "1.90 µs", "3.10 ms",
// "0.600 s".
func formatTiny(s float64) string {
	switch a := math.Abs(s); {
	case a == 0:
		return "0 s"
	case a < 1e-6:
		return fmt.Sprintf("%.3g ns", s*1e9)
	case a < 1e-3:
		return fmt.Sprintf("%.3g µs", s*1e6)
	case a < 1:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return FormatSeconds(s)
}

// Label names the Cost's setting: its engine and how it differs from
// Kafka Streams' defaults, from its first shape's setup.
func (c *Cost) Label() string { return c.Setups[0].Label() }

// Basis says what the Cost was fitted over and how well it fits, shape by
// shape: FitText, then "; measured against fitted, per shape: …".
func (c *Cost) Basis() string {
	s := c.FitText()
	var per []string
	for _, r := range c.Shapes {
		hot := ""
		if c.Hot {
			hot = fmt.Sprintf(", %.0f%% hot", 100*r.Shape.HotShare)
		}
		per = append(per, fmt.Sprintf("%s a record at %.1f a key%s %+.0f%%", FormatBytes(r.Shape.BytesPerRecord), r.Shape.RecordsPerKey, hot, r.Percent()))
	}
	if len(per) > 0 {
		s += "; measured against fitted, per shape: " + strings.Join(per, ", ")
	}
	return s
}

// FitText says what the Cost was fitted over and how well it fits:
// "least-squares fit (on relative error) … over 36 restores of 9 changelog
// shapes (16 B to 4.11 kB a record, 1.1 to 22.2 records per live key), off
// by 17% rms (−23% to +45%)", and which terms it dropped.
func (c *Cost) FitText() string {
	lo, hi := c.RecordSizes()
	rlo, rhi := c.RecordsPerKeyRange()
	s := fmt.Sprintf("least-squares fit (on relative error) of time to ready against records, bytes and records overwritten "+
		"a stream thread over %s of %s (%s to %s a record, %.1f to %.1f records per live key), off by %.0f%% rms (%+.0f%% to %+.0f%%)",
		Plural(len(c.Obs), "restore"), Plural(len(c.Shapes), "changelog shape"), FormatBytes(lo), FormatBytes(hi), rlo, rhi,
		100*c.Residual, 100*(c.SpreadLo-1), 100*(c.SpreadHi-1))
	if c.Hot {
		hlo, hhi, _ := c.HotShares()
		s += fmt.Sprintf("; hot records (their key among their partition's last %d) priced apart, %.0f%% to %.0f%% of the records fitted",
			loadgen.HotKeyWindow, 100*hlo, 100*hhi)
	}
	if dropped := len(c.droppedTerms()); dropped > 0 {
		s += "; " + strings.Join(c.droppedTerms(), " and ") + " term dropped (every fit with it gave a term below zero)"
	}
	if c.Threads > 1 {
		s += fmt.Sprintf("; records and bytes divided by the %d threads restoring in parallel", c.Threads)
	}
	return s
}

// droppedTerms names the terms the fit left out.
func (c *Cost) droppedTerms() []string {
	var out []string
	for j, t := range costTerms {
		if c.columnsFitted()&(1<<j) != 0 && !contains(c.Terms, t) {
			out = append(out, "the per-"+strings.ReplaceAll(t, " ", "-"))
		}
	}
	return out
}

// has reports whether the Cost was fitted over the setup.
func (c *Cost) has(s *Setup) bool { return slices.Contains(c.Setups, s) }

// nearest is the Cost's setup whose record size lies nearest (by ratio)
// to bytesPerRecord: the shape whose calibration a model Cost borrows.
func (c *Cost) nearest(bytesPerRecord float64) *Setup {
	best, dist := c.Setups[0], math.Inf(1)
	for _, r := range c.Shapes {
		if d := math.Abs(math.Log(r.Shape.BytesPerRecord / bytesPerRecord)); d < dist {
			best, dist = r.Setup, d
		}
	}
	return best
}

// ShapeDistance says where a record size lies against the Cost's: "" within
// the record sizes fitted, else how far below or above them ("1.9× below
// the record sizes fitted (24.0 B to 4.11 kB)").
func (c *Cost) ShapeDistance(bytesPerRecord float64) string {
	lo, hi := c.RecordSizes()
	switch {
	case bytesPerRecord < lo/(1+sizeTolerance):
		return fmt.Sprintf("%.1f× below the record sizes fitted (%s to %s)", lo/bytesPerRecord, FormatBytes(lo), FormatBytes(hi))
	case bytesPerRecord > hi*(1+sizeTolerance):
		return fmt.Sprintf("%.1f× beyond the record sizes fitted (%s to %s)", bytesPerRecord/hi, FormatBytes(lo), FormatBytes(hi))
	}
	return ""
}

// farFrom warns where the deployment's changelog lies outside the shapes
// the Cost was fitted over: its record size beyond theirs (the terms are
// then extrapolated), its records per live key or tombstone share
// outside their range (terms the Cost does not have), or its
// cleanup.policy another kind of store's (kindDistance).
func (c *Cost) farFrom(d Deployment) string {
	var far []string
	if dist := c.ShapeDistance(d.BytesPerRecord); dist != "" {
		far = append(far, fmt.Sprintf("your %s a record is %s", FormatBytes(d.BytesPerRecord), dist))
	}
	rpkLo, rpkHi := c.RecordsPerKeyRange()
	tsLo, tsHi := math.Inf(1), 0.0
	for _, s := range c.Shapes {
		tsLo, tsHi = math.Min(tsLo, s.Shape.TombstoneShare), math.Max(tsHi, s.Shape.TombstoneShare)
	}
	if want := d.RecordsPerKey; want > 0 && rpkHi > 0 && (runs.Disagree(want, rpkLo) && want < rpkLo || runs.Disagree(want, rpkHi) && want > rpkHi) {
		far = append(far, fmt.Sprintf("your %.1f records per live key lie outside the %.1f–%.1f fitted", want, rpkLo, rpkHi))
	}
	if want := d.TombstoneShare; d.Changelog != nil && rpkHi > 0 && (want < tsLo-maxTombstoneGap || want > tsHi+maxTombstoneGap) {
		far = append(far, fmt.Sprintf("your %.0f%% tombstones lie outside the %.0f%%–%.0f%% fitted", 100*want, 100*tsLo, 100*tsHi))
	}
	if d.HotKnown {
		if lo, hi, known := c.HotShares(); known && (d.HotShare < lo-maxHotGap || d.HotShare > hi+maxHotGap) {
			far = append(far, fmt.Sprintf("your %.0f%% hot records (%s) lie outside the %.0f%%–%.0f%% fitted", 100*d.HotShare, hotWhat, 100*lo, 100*hi))
		} else if !known && d.HotShare >= minHotSpread {
			far = append(far, fmt.Sprintf("your keys are skewed (%.0f%% hot records: %s) and the restores fitted did not count "+
				"theirs (%s)", 100*d.HotShare, hotWhat, hotUncounted))
		}
	} else if lo, hi, known := c.HotShares(); known && lo >= minHotSpread {
		far = append(far, fmt.Sprintf("the restores fitted were of skewed keys (%.0f%%–%.0f%% hot records: %s), which restore "+
			"faster, and your changelog's share is not known (give --hot-share, or read it with --from-topic)", 100*lo, 100*hi, hotWhat))
	}
	kinds := kindDistance(c.Setups, d)
	if kinds != "" && len(far) == 0 {
		// --measure restores a foreign changelog into a key-value store:
		// not the advice for a window store's.
		return "WARNING: " + kinds + ": the restore cost is another kind of store's; measure restores of your store's kind " +
			"before relying on these answers"
	}
	if kinds != "" {
		far = append(far, kinds)
	}
	if len(far) == 0 {
		return ""
	}
	return "WARNING: " + strings.Join(far, "; ") + ": the restore cost is extrapolated to your changelog; " +
		"measure your own (plan --from-topic with --measure) before relying on these answers"
}

// kindSettings are the settings of a window or session store's case that
// describe the store rather than tune its restore: a case differing from
// Kafka Streams' defaults only in them restores such a store with Kafka
// Streams' defaults.
var kindSettings = []string{"store_kind=", "retention=", "window_size=", "segment_interval="}

// segmentedDefaults are the cold setups of window or session stores that
// differ from Kafka Streams' defaults only in their kindSettings: the
// candidates, beside the key-value ones, for a window store's changelog.
func segmentedDefaults(setups []*Setup) []*Setup {
	var out []*Setup
	for _, s := range setups {
		if s.Params.Scenario != config.ScenarioCold || !s.Params.StoreKind.Of().Segmented() {
			continue
		}
		tuned := slices.ContainsFunc(Differences(s.Params), func(d string) bool {
			return !slices.ContainsFunc(kindSettings, func(k string) bool { return strings.HasPrefix(d, k) })
		})
		if !tuned {
			out = append(out, s)
		}
	}
	return out
}

// segmented reports whether setups restored window or session stores
// (every setup's store kind segmented).
func segmented(setups []*Setup) bool {
	for _, s := range setups {
		if !s.Params.StoreKind.Of().Segmented() {
			return false
		}
	}
	return true
}

// kindDistance says, for a deployment whose changelog was read
// (--from-topic), when its cleanup.policy names another kind of store
// than setups restored (a Cost's, or a measured rate's): a window or
// session store's changelog (compact,delete) restores into segments, by
// other code than a key-value store's, and the other way round; "" when
// they agree or the policy is unknown. A restore of the user's own
// window changelog (plan --measure) restores it into a key-value store,
// so it is named too.
func kindDistance(setups []*Setup, d Deployment) string {
	ch := d.Changelog
	if ch == nil || ch.CleanupPolicy == "" || len(setups) == 0 || ch.Segmented() == segmented(setups) {
		return ""
	}
	var kinds []string
	for _, s := range setups {
		if k := string(s.Params.StoreKind.Of()); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if ch.Segmented() {
		return fmt.Sprintf("your changelog's cleanup.policy is %s, a window or session store's, and the cost was fitted on %s "+
			"stores' restores (a window store restores into time segments, by other code: sweep the shapes with fill.store_kind "+
			"window or session)", ch.CleanupPolicy, strings.Join(kinds, ", "))
	}
	return fmt.Sprintf("your changelog's cleanup.policy is %s, a key-value store's, and the cost was fitted on %s stores' restores",
		ch.CleanupPolicy, strings.Join(kinds, ", "))
}

// chooseCost is the Cost the answers rest on for a deployment whose
// changelog is far from the chosen rate's (or whose rate has no shape):
// the Cost holding the best candidate setup of caseName, in ChooseRate's
// order, of those fitted on the kind of store the deployment's changelog
// is cleaned for (kindDistance) when any is, else of all; nil when none
// holds one.
func chooseCost(costs []*Cost, setups []*Setup, caseName string, d Deployment) *Cost {
	cands, err := candidates(setups, caseName)
	if err != nil {
		return nil
	}
	if caseName == "" && d.Changelog != nil && d.Changelog.Segmented() {
		cands = append(cands, segmentedDefaults(setups)...)
	}
	sort.SliceStable(cands, func(i, j int) bool { return better(cands[i], cands[j]) })
	var first *Cost
	for _, s := range cands {
		for _, c := range costs {
			if !c.has(s) {
				continue
			}
			if kindDistance(c.Setups, d) == "" {
				return c
			}
			if first == nil {
				first = c
			}
		}
	}
	return first
}
