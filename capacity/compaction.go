package capacity

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// CleanerSettings are a changelog topic's cleaner settings by Kafka's names, with
// Kafka's defaults filled in, so equal settings compare equal however they
// were written.
type CleanerSettings map[string]string

// NewCleanerSettings fills the settings given with Kafka's defaults and writes
// numbers one way ("0.50" and "0.5" are the same setting).
func NewCleanerSettings(given map[string]string) CleanerSettings {
	c := CleanerSettings(runs.CleanerDefaults())
	for k, v := range given {
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			v = strconv.FormatFloat(f, 'f', -1, 64)
		}
		c[k] = v
	}
	return c
}

// key is the settings as one comparable string.
func (c CleanerSettings) key() string { return config.Pairs(c, ",") }

// String names the settings that differ from Kafka's defaults, or "Kafka's
// defaults": "min.cleanable.dirty.ratio=0.1, segment.bytes=8388608".
func (c CleanerSettings) String() string {
	var diff []string
	defaults := runs.CleanerDefaults()
	for k, v := range c {
		if defaults[k] != v {
			diff = append(diff, k+"="+v)
		}
	}
	if len(diff) == 0 {
		return "Kafka's default cleaner settings"
	}
	sort.Strings(diff)
	return strings.Join(diff, ", ")
}

func (c CleanerSettings) float(k string) float64 {
	f, _ := strconv.ParseFloat(c[k], 64)
	return f
}

// Bound is the most changelog the settings let a log of live bytes hold
// over partitions, in bytes (runs.CleanerBound): records younger than
// min.compaction.lag.ms are writeRate × lag (when the write rate is known).
// Records assumed of one average size.
func (c CleanerSettings) Bound(live float64, partitions int, writeRate float64) float64 {
	b := runs.NewCleanerBound(c)
	return b.Bytes(live, partitions, writeRate*b.MinCompactionLagMs/1000)
}

// Amplification is the measured restore amplification of one cleaner
// setting on one broker kind: records a restore read per live key, after
// the log cleaner had its settle time.
type Amplification struct {
	Settings CleanerSettings
	// CleanedBy is who cleaned the measured log, as the record says
	// (runs.CleanedByKafka or runs.CleanedByKfake).
	CleanedBy string
	Obs       []Obs
	// Median is the median amplification over Obs; Bound the most the
	// settings allowed for the measured log (the scenario's bound).
	Median, Bound float64
	// Written is the key+value bytes written to the measured changelog,
	// Partitions its partition count.
	Written    float64
	Partitions int
}

func init() {
	RegisterEvidence(EvidenceDef{Name: "compaction", Derive: func(a *Analysis) (any, error) { return amplifications(a.Obs), nil }})
}

// Amplifications are the measured restore amplifications per cleaner
// setting and who cleaned, in first-seen order.
func (a *Analysis) Amplifications() []*Amplification {
	amp, _ := evidenceAs[[]*Amplification](a, "compaction")
	return amp
}

// amplifications groups the compaction records by cleaner settings and
// who cleaned, in first-seen order.
func amplifications(obs []Obs) []*Amplification {
	var out []*Amplification
	index := map[string]*Amplification{}
	for _, o := range obs {
		cr := o.Restore.Compaction
		if cr == nil || cr.LiveKeys == 0 {
			continue
		}
		c := NewCleanerSettings(cr.TopicConfigs)
		k := cr.CleanedBy + "|" + c.key()
		amp, ok := index[k]
		if !ok {
			amp = &Amplification{Settings: c, CleanedBy: cr.CleanedBy, Bound: cr.Bound, Partitions: o.Restore.Partitions}
			index[k] = amp
			out = append(out, amp)
		}
		amp.Obs = append(amp.Obs, o)
		amp.Written = float64(cr.Written) * recordBytes(o)
	}
	for _, amp := range out {
		xs := make([]float64, len(amp.Obs))
		for i, o := range amp.Obs {
			xs[i] = o.Restore.Compaction.Amplification
		}
		amp.Median = runs.Median(xs)
	}
	return out
}

// CleanedByText says who cleaned the measured log, in words.
func (amp *Amplification) CleanedByText() string {
	if !amp.OfSettings() {
		return "the embedded broker (kfake), which compacts all but the last batch whatever the settings: a floor, not what these settings leave"
	}
	return "Kafka's log cleaner"
}

// OfSettings reports whether the measurement shows what its cleaner
// settings leave: only Kafka's own log cleaner applies them; the embedded
// broker compacts everything it can on request.
func (amp *Amplification) OfSettings() bool { return amp.CleanedBy != runs.CleanedByKfake }

// Text is the measurement in one line: "×6.02 records read per live key
// (bound ×6.05) under Kafka's default cleaner settings, 268 MB written
// over 4 partitions, cleaned by Kafka's log cleaner".
func (amp *Amplification) Text() string {
	return fmt.Sprintf("×%.2f records read per live key (the settings allowed up to ×%.2f) under %s, %s written over %s, cleaned by %s",
		amp.Median, amp.Bound, amp.Settings, FormatBytes(amp.Written), Plural(amp.Partitions, "partition"), amp.CleanedByText())
}

// amplificationFor is the measurement of the settings c made by Kafka's
// own log cleaner; nil when none matches (the embedded broker's do not
// show what settings leave).
func amplificationFor(amps []*Amplification, c CleanerSettings) *Amplification {
	for _, amp := range amps {
		if amp.OfSettings() && amp.Settings.key() == c.key() {
			return amp
		}
	}
	return nil
}

// StateEstimate is the changelog bytes the answers use for a deployment
// given by its live state: live × the measured amplification for its
// cleaner settings (capped by their bound), or the bound alone.
type StateEstimate struct {
	Live, Changelog float64
	// Amplification is the measurement used; nil when Changelog is the
	// worst case the settings allow.
	Amplification *Amplification
	Answer        Answer
}

// resolveState turns --live-state into changelog bytes with the cleaner
// settings, when the deployment gives live state rather than changelog.
func resolveState(a *Analysis) (*StateEstimate, *Unanswered) {
	d := a.Options.Deployment
	if d.LiveBytes <= 0 || d.StateBytes > 0 {
		return nil, nil
	}
	c := NewCleanerSettings(d.CleanerSettings)
	q := fmt.Sprintf("Changelog to restore for %s of live state", FormatBytes(d.LiveBytes))
	est := &StateEstimate{Live: d.LiveBytes, Amplification: amplificationFor(a.Amplifications(), c)}
	bound := math.Inf(1)
	// needs names the input a worst case lacks ("" when it has them all).
	needs := ""
	switch {
	case d.Partitions <= 0:
		needs = "--partitions (each partition's active segment is never cleaned)"
	case c.float("min.compaction.lag.ms") > 0 && d.WriteRate <= 0:
		needs = fmt.Sprintf("--write-rate (records written within min.compaction.lag.ms %.0f are never cleaned, however "+
			"many that is)", c.float("min.compaction.lag.ms"))
	}
	boundText := "no bound: it needs " + needs
	if needs == "" {
		bound = c.Bound(d.LiveBytes, d.Partitions, d.WriteRate)
		boundText = fmt.Sprintf("the most %s allow for it: %s (live ÷ (1 − min.cleanable.dirty.ratio) + %d partitions × (segment.bytes + 1 MiB)%s)",
			c, FormatBytes(bound), d.Partitions, lagText(c))
	}
	ans := Answer{ID: "changelog_from_live_state", Question: q, Inputs: []string{"live state " + FormatBytes(d.LiveBytes)}}
	switch amp := est.Amplification; {
	case amp != nil:
		est.Changelog = math.Min(d.LiveBytes*amp.Median, bound)
		ans.Figure = pointFigure(est.Changelog, UnitBytes)
		ans.Value = fmt.Sprintf("%s (measured amplification ×%.2f)", ans.Figure.Text(), amp.Median)
		if est.Changelog < d.LiveBytes*amp.Median {
			ans.Value = fmt.Sprintf("%s (the bound of these settings; the measured ×%.2f exceeds it at this size)", ans.Figure.Text(), amp.Median)
		}
		ans.Inputs = append(ans.Inputs, "measured: "+amp.Text(), boundText)
		ans.Sources = Refs(amp.Obs)
	case needs != "":
		return nil, &Unanswered{Question: q, Reason: fmt.Sprintf("no compaction run on a real broker in the inputs "+
			"measured %s, and the worst case they allow needs %s", c, needs)}
	default:
		est.Changelog = bound
		ans.Figure = pointFigure(bound, UnitBytes)
		ans.Value = fmt.Sprintf("%s (WORST CASE these settings allow, not measured)", ans.Figure.Text())
		ans.Inputs = append(ans.Inputs, boundText, fmt.Sprintf("no compaction run on a real broker in the inputs measured "+
			"%s: run the capacity profile's compaction cases with them and --brokers", c))
	}
	est.Answer = ans
	return est, nil
}

// lagText is the min.compaction.lag.ms term of a bound, in words.
func lagText(c CleanerSettings) string {
	if lag := c.float("min.compaction.lag.ms"); lag > 0 {
		return fmt.Sprintf(" + the write rate × min.compaction.lag.ms %.0f", lag)
	}
	return ""
}

// Answered first: the live state's changelog is what the other answers size.
func init() {
	registerAnswerer(answerer{order: 10, answer: compactionAnswers, scenarios: []config.Scenario{config.ScenarioCompaction}})
	// Its answers' ids, as docs/json.md's answer-id table describes them.
	declareAnswerID(AnswerID{Row: 40, IDs: []string{"changelog_from_live_state"}, Unit: UnitBytes,
		Meaning: "`--live-state`: the changelog the live state makes under the cleaner settings"})
}

// compactionAnswers: the changelog the deployment's live state makes, when
// it was given as live state.
func compactionAnswers(a *Analysis) ([]Answer, []Unanswered) {
	if a.State != nil {
		return []Answer{a.State.Answer}, nil
	}
	if a.StateErr != nil {
		return nil, []Unanswered{*a.StateErr}
	}
	return nil, nil
}

// The cleaner settings' advice after the standbys'; what is known of the
// cleaner among the unknowns. Compaction has no RTO row of its own.
func init() {
	sc := []config.Scenario{config.ScenarioCompaction}
	registerRecommendation(recommender{order: 30, scenarios: sc, recommend: compactionRecommendation})
	registerUnknown(unknown{order: 50, scenarios: sc, lines: compactionUnknown})
	declareLacks(config.ScenarioCompaction, contribRTORow, "compaction changes how much changelog a state makes, not how fast "+
		"it restores: its amplification sizes the cold row's changelog from a live state")
}

// compactionRecommendation compares the restore amplification of the
// cleaner settings measured by Kafka's own cleaner: the records a restore
// reads per live key. Measurements on the embedded broker, which ignores
// the settings, only say so.
func compactionRecommendation(a *Analysis) (Recommendation, bool) {
	if len(a.Amplifications()) == 0 {
		return Recommendation{}, false
	}
	rec := Recommendation{Title: "Changelog cleaner settings"}
	var real []*Amplification
	for _, amp := range a.Amplifications() {
		rec.Evidence = append(rec.Evidence, amp.Text()+" ("+Refs(amp.Obs)+")")
		if amp.OfSettings() {
			real = append(real, amp)
		}
	}
	if len(real) == 0 {
		rec.Text = "The compaction cases ran on the embedded broker, which compacts every changelog fully on request " +
			"whatever its settings: they show the floor (one record per live key), not what Kafka's cleaner " +
			"leaves. " +
			"Run them with --brokers against Kafka to measure your settings; until then the planner uses the worst case the settings allow."
		return rec, true
	}
	best, worst := real[0], real[0]
	for _, amp := range real {
		if amp.Median < best.Median {
			best = amp
		}
		if amp.Median > worst.Median {
			worst = amp
		}
	}
	if best == worst {
		rec.Text = fmt.Sprintf("A restore read %.2f records per live key under %s: a changelog of that many times its live state.", best.Median, best.Settings)
		return rec, true
	}
	rec.Text = fmt.Sprintf("A restore read %.2f records per live key under %s and %.2f under %s: %.1f× less to restore for the same state. "+
		"A smaller segment.bytes lets the cleaner reach all but the last segment, a lower min.cleanable.dirty.ratio cleans "+
		"sooner, at the cost of more cleaning work on the brokers.",
		worst.Median, worst.Settings, best.Median, best.Settings, worst.Median/best.Median)
	return rec, true
}

// compactionUnknown says what the report knows of the log cleaner.
func compactionUnknown(a *Analysis) []string {
	return []string{compactionUnknownText(a)}
}

// compactionUnknownText is compactionUnknown's line.
func compactionUnknownText(a *Analysis) string {
	s := "Compaction of your changelog: a restore reads the changelog as the log cleaner left it. The cold restores " +
		"read their fills as written (see the fills' records per live key)"
	if len(a.Amplifications()) == 0 {
		return s + "; no compaction run measured what a cleaner leaves: run the capacity profile's compaction cases with " +
			"your topic's cleaner settings. Until then `plan --live-state` uses the worst case the settings " +
			"allow."
	}
	return s + "; the compaction cases measured what the cleaner left for their write pattern and size (see Changelog " +
		"compaction). Your amplification depends on your overwrites per key and how far the cleaner is " +
		"behind: a small changelog's active segment, never cleaned, is a larger share of it."
}
