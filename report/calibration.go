package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/internal/errwriter"
)

// calibrationBlocks show the model-to-Kafka-Streams factor: the pairs
// package compare makes, the factor against size per setting and changelog
// shape, and which of it the rate's predictions take; or its absence.
func calibrationBlocks(a *capacity.Analysis) []Block {
	out := []Block{&Heading{Text: "Calibration: model engine against Kafka Streams"}}
	c := a.Calibration
	if c == nil {
		return append(out, &Para{Text: "No run restored the same settings on both engines, so model-engine figures are the model's, uncalibrated. " +
			"The built-in profile `calibrate` runs each setting on both (it needs a real broker: `--brokers`)."})
	}
	out = append(out, &Para{Text: fmt.Sprintf("Kafka Streams took %s the model's restore time: 1 / compare's "+
		"model/Kafka Streams ratio per pair, the median over pairs and min–max across them. "+
		"It compares the restore phase (Kafka Streams reports no separate ready phase). The factor moves with size, so a "+
		"model-based prediction above is multiplied by the factor of its own setting and changelog shape "+
		"at its own size (below), and labelled calibrated.", c)})
	out = append(out, pairTable(c), &Para{Text: strings.ReplaceAll(compare.CalibrationDefinition, "\n", " "), Note: true})
	out = append(out, &Heading{Text: "Calibration factor against size"}, CalibrationSizeTable(c))
	if fits := CalibrationFits(c); len(fits) > 0 {
		out = append(out, &List{Items: fits})
	}
	out = append(out, &Para{Text: capacity.CalibrationMethod, Note: true})
	if r := a.Rate; r != nil && r.Curve != nil {
		used := "The rate's predictions take the factor of " + r.Curve.Label()
		if r.CurveMatch != "" {
			used += " (" + r.CurveMatch + ")"
		}
		out = append(out, &Para{Text: used + "."})
	}
	return out
}

// pairTableLegend says what the columns of the calibration pairs table mean.
const pairTableLegend = "model / KS: the model's restore time over Kafka Streams' for repeat pairs of one setting " +
	"(below 1: the model is faster), median and range over the pairs; " +
	"factor: Kafka Streams over model, what the model's times at that size are multiplied by."

// pairTable is a row per engine pair: the run, the setting and cases, the
// size a thread, both engines' medians, the ratio and the factor applied.
func pairTable(c *capacity.Calibration) *Table {
	t := &Table{Head: []string{"run", "setting", "size a thread", "model restore (median)",
		"Kafka Streams restore (median)", "model / KS (median, range, pairs)", "factor"},
		Legend: pairTableLegend,
		Right:  []bool{false, false, true, true, true, true, true}}
	for _, p := range c.Pairs {
		cp := p.Pair
		t.Rows = append(t.Rows, []string{p.Run.Label, fmt.Sprintf("%s (%s vs %s)", cp.Label(), cp.ModelCase, cp.KafkaStreamsCase),
			capacity.FormatBytes(cp.BytesPerThread()), capacity.FormatSeconds(cp.Model.Median), capacity.FormatSeconds(cp.KafkaStreams.Median),
			fmt.Sprintf("%.3f (%.3f–%.3f, %d)", cp.Ratio.Median, cp.Ratio.Min, cp.Ratio.Max, cp.Ratio.N), fmt.Sprintf("×%.3f", p.KafkaStreamsOverModel())})
	}
	return t
}

// calibrationSizeTableLegend says what the columns of the calibration-by-size table mean.
const calibrationSizeTableLegend = "factor: Kafka Streams' restore time over the model's (1 / " +
	"model/KS) for each repeat pair at that size; " +
	"median and min–max over the pairs; " +
	"fitted: the setting's fit of the factor against size (log-size or inverse-size, whichever fits " +
	"better) at that size, residual the median minus it (- without a fit: one size, or no line stays above ×0.05)."

// CalibrationSizeTable is the calibration table with a row per setting,
// changelog shape and size: the factor's median and range over repeat
// pairs, and the fit's value and residual there.
func CalibrationSizeTable(c *capacity.Calibration) *Table {
	t := &Table{Head: []string{"setting", "changelog shape", "size a thread", "pairs", "factor (median)", "range over pairs", "fitted", "residual"},
		Legend: calibrationSizeTableLegend,
		Right:  []bool{false, false, true, true, true, true, true, true}}
	for _, cv := range c.Curves {
		for _, p := range cv.Points {
			fitted, resid := "-", "-"
			if cv.Fit != nil {
				fitted, resid = fmt.Sprintf("%.3f", p.Fitted), signed3(p.Residual())
			}
			setting := cv.Setting
			if p.Pair.Pair.KafkaStreamsSide != "" { // a curve pooling kafka-streams cases: the row's own
				setting = p.Pair.Pair.Label()
			}
			t.Rows = append(t.Rows, []string{setting, cv.Shape, capacity.FormatBytes(p.Bytes), fmt.Sprint(len(p.Factors)),
				fmt.Sprintf("%.3f", p.Factor), fmt.Sprintf("%.3f–%.3f", p.Lo, p.Hi), fitted, resid})
		}
	}
	return t
}

// CalibrationFits are the curves' fits, one line each, with their largest
// residual, and a line for each curve of several sizes no line fits,
// saying why; empty when no curve spans two sizes.
func CalibrationFits(c *capacity.Calibration) []string {
	var out []string
	for _, cv := range c.Curves {
		if cv.NoFit != "" {
			out = append(out, fmt.Sprintf("%s: %s–%s a thread; %s", cv.Label(), capacity.FormatBytes(cv.MinBytes()),
				capacity.FormatBytes(cv.MaxBytes()), cv.NoFit))
		}
		if cv.Fit == nil {
			continue
		}
		worst := 0.0
		for _, p := range cv.Points {
			worst = max(worst, math.Abs(p.Residual()))
		}
		line := fmt.Sprintf("%s: factor %s, %s–%s a thread; largest residual %.3f", cv.Label(), cv.Fit,
			capacity.FormatBytes(cv.MinBytes()), capacity.FormatBytes(cv.MaxBytes()), worst)
		if cv.Fit.Sizes < capacity.MinFitSizes {
			line += fmt.Sprintf(" (%d sizes: a line through them, its residuals test nothing; measure %d or more)", cv.Fit.Sizes, capacity.MinFitSizes)
		}
		out = append(out, line)
	}
	return out
}

// signed3 is x with its sign to three decimals, a residual that rounds
// to zero as +0.000 (not -0.000).
func signed3(x float64) string {
	if math.Abs(x) < 0.0005 {
		x = 0
	}
	return fmt.Sprintf("%+.3f", x)
}

// NewCalibrationFitReporter writes the calibration against size for the
// `calibration` command: the table with a row per setting, shape and
// size, the fits and how the interval a prediction takes is made; as a
// terminal table, or Markdown when markdown is set.
func NewCalibrationFitReporter(c *capacity.Calibration, markdown bool) func(io.Writer) error {
	return func(w io.Writer) error {
		ew := errwriter.New(w)
		t := CalibrationSizeTable(c)
		if markdown {
			mdTable(ew, t)
			for _, f := range CalibrationFits(c) {
				fmt.Fprintf(ew, "- %s\n", mdText(f, true))
			}
			fmt.Fprintf(ew, "\n*%s*\n", mdText(capacity.CalibrationMethod, false))
			return ew.Err()
		}
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.Head, "\t"))
		for _, r := range t.Rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		tw.Flush()
		fmt.Fprintf(ew, "\n%s\n", t.Legend)
		for _, f := range CalibrationFits(c) {
			fmt.Fprintf(ew, "fit: %s\n", f)
		}
		fmt.Fprintf(ew, "\n%s\n", capacity.CalibrationMethod)
		return ew.Err()
	}
}
