package capacity

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
)

// Options are the questions an analysis answers.
type Options struct {
	// RTOs are the recovery-time objectives. Default DefaultRTOs.
	RTOs []time.Duration
	// Threads is num.stream.threads per instance for the per-instance
	// figures. Default 1, Kafka Streams' default.
	Threads int
	// Case names the configuration the rates come from. Default: the one
	// with Kafka Streams' default settings.
	Case string
	// Deployment is the application being planned; zero when unknown.
	Deployment Deployment
	// Sample is the deployment's changelog task by task when some of its
	// partitions were restored at full size (plan --from-topic --measure
	// --sample): the per-task and per-instance answers then rest on those
	// restores. Nil otherwise.
	Sample *Sample
}

func (o Options) withDefaults() Options {
	if len(o.RTOs) == 0 {
		o.RTOs = DefaultRTOs
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	return o
}

// Analysis is everything a report shows and a plan prints, computed once
// from the runs.
type Analysis struct {
	Options Options
	Runs    []*Run
	// Obs are the verified, error-free restores; Setups group them.
	Obs    []Obs
	Setups []*Setup
	// Fits are per cold setup with enough sizes, against the changelog size
	// then the live state size; NeedSizes the setups without enough.
	Fits      []*Fit
	NeedSizes []*NeedSizes
	// SizeHoldOuts check the changelog fits of setups with a size to spare.
	SizeHoldOuts []*SizeHoldOut
	Calibration  *Calibration
	// Rate is the cold-restore rate the answers use; RateErr says why
	// there is none.
	Rate    *Rate
	RateErr error
	// Costs are the restore costs per record and per byte the inputs fit,
	// one per setting whose restores span changelog shapes.
	Costs []*Cost
	// derived is what each scenario's records say (EvidenceDef), asked
	// through its accessor: Warm, Standby, Failover, ScaleOuts,
	// Amplifications.
	derived map[string]*derivedEvidence
	// State is the deployment's changelog estimated from its live state
	// (Deployment.LiveBytes), StateErr why it could not be.
	State    *StateEstimate
	StateErr *Unanswered
	RTO      RTOTable
	// Comparisons are each run's cases against its baseline.
	Comparisons     []*RunComparison
	Recommendations []Recommendation
	// Incomplete names each input run that is partial (interrupted, killed,
	// or holding failed measurements), with why: every answer rests only on
	// what those runs finished, and says so.
	Incomplete []Partial
	// Unknowns are what the inputs cannot tell.
	Unknowns   []string
	Answers    []Answer
	Unanswered []Unanswered
}

// Partial is an input run whose results are partial, and why.
type Partial struct {
	Run    *Run
	Reason string
}

// Analyze computes every answer from the runs.
func Analyze(rs []*Run, o Options) *Analysis {
	a := &Analysis{Options: o.withDefaults(), Runs: rs}
	for _, r := range rs {
		if why := r.Results.IncompleteReason(); why != "" {
			a.Incomplete = append(a.Incomplete, Partial{Run: r, Reason: why})
		}
	}
	a.Obs = Observations(rs)
	a.Setups = Setups(a.Obs)
	a.fit()
	a.Calibration = Calibrate(rs)
	a.Rate, a.RateErr = chooseRateFor(a.Setups, a.Options.Case, a.Options.Deployment.topic(), a.Calibration)
	a.Costs = Costs(a.Setups)
	a.rateAtShape()
	a.scenarios()
	a.Answers, a.Unanswered = buildAnswers(a)
	a.RTO = buildRTOTable(a)
	a.Comparisons = compareRuns(rs)
	a.Recommendations = recommendations(a)
	a.Unknowns = unknowns(a)
	return a
}

// rateAtShape replaces the chosen rate by the restore cost evaluated at
// the deployment's record size and records per live key, when the
// deployment gives its record size, the inputs fit a Cost of the same
// setting, and the rate was not measured on the deployment's own
// changelog (plan --measure): an MB/s of one shape is never applied to
// another when a cost per record, per byte and per overwrite can say
// better, even one of a near record size (a shape's records per key move
// its rate as much).
func (a *Analysis) rateAtShape() {
	d := a.Options.Deployment
	if d.BytesPerRecord <= 0 || a.Rate == nil || a.Rate.Setup.restores(d.topic()) {
		return
	}
	c := chooseCost(a.Costs, a.Setups, a.Options.Case, d)
	if c == nil {
		return
	}
	r := c.RateAt(d.BytesPerRecord, d.RecordsPerKey, d.HotShare, d.HotKnown)
	if r.Setup.Params.Engine == config.EngineModel {
		r.calibrate(a.Calibration)
	}
	a.Rate = r
}

// scenarios reads what each scenario's records say (every registered
// EvidenceDef), and the deployment's changelog from its live state when
// that is how it was given.
func (a *Analysis) scenarios() {
	a.deriveEvidence()
	a.State, a.StateErr = resolveState(a)
}

// fit fits every cold setup against both axes and checks the changelog fit
// by holding out its largest size.
func (a *Analysis) fit() {
	for _, axis := range []Axis{AxisChangelog, AxisLive} {
		for _, s := range a.Setups {
			if s.Params.Scenario != config.ScenarioCold {
				continue
			}
			f, err := FitSetup(s, axis)
			if need, ok := err.(*NeedSizes); ok && axis == AxisChangelog {
				a.NeedSizes = append(a.NeedSizes, need)
			}
			if f != nil {
				a.Fits = append(a.Fits, f)
			}
			if h := HoldOutLargestSize(s, axis); h != nil && axis == AxisChangelog {
				a.SizeHoldOuts = append(a.SizeHoldOuts, h)
			}
		}
	}
}

// FitsOn are the fits against one axis.
func (a *Analysis) FitsOn(axis Axis) []*Fit {
	var out []*Fit
	for _, f := range a.Fits {
		if f.Axis == axis {
			out = append(out, f)
		}
	}
	return out
}

// unknowns lists what the inputs cannot tell, each with what would: the
// lines of every registered unknown, in order.
func unknowns(a *Analysis) []string {
	var out []string
	for _, u := range unknownLines.All() {
		out = append(out, u.lines(a)...)
	}
	return out
}

// unknown is one kind of line of what the inputs cannot tell, registered
// from the init of the file that computes it (registerUnknown): a
// scenario's from its file (compaction.go the cleaner's), the general ones
// (the broker, calibration, partial runs, ...) here.
type unknown struct {
	// order places the lines among the others: lower first, one unknown
	// an order.
	order int
	// scenarios are the scenarios whose records the lines are about; nil
	// for a general unknown, about the inputs as a whole.
	scenarios []config.Scenario
	// lines are its lines, none when the inputs tell it.
	lines func(a *Analysis) []string
}

// unknownLines are the unknowns, in order. Every scenario config registers
// has one or declares it has none (declareLacks); a test holds that.
var unknownLines = byScenario[unknown]("capacity: the unknown of")

func (u unknown) place() (int, []config.Scenario) { return u.order, u.scenarios }

// registerUnknown adds u in its order. It panics, when the program starts,
// on an order another unknown has, and on a scenario config does not
// register.
func registerUnknown(u unknown) { register(&unknownLines, "the unknown", u, true) }

// The cold-restore rate's reach first, then the general unknowns; the
// compaction's (compaction.go, order 50) sits between them.
func init() {
	registerUnknown(unknown{order: 10, scenarios: []config.Scenario{config.ScenarioCold}, lines: rateUnknowns})
	registerUnknown(unknown{order: 20, lines: embeddedUnknown})
	registerUnknown(unknown{order: 30, lines: calibrationUnknown})
	registerUnknown(unknown{order: 40, lines: unmeasuredUnknown})
	registerUnknown(unknown{order: 60, lines: excludedUnknown})
	registerUnknown(unknown{order: 70, lines: partialUnknown})
	registerUnknown(unknown{order: 80, lines: environmentsUnknown})
}

// rateUnknowns are how far the cold-restore rate reaches and how well its
// fits hold; none without a rate.
func rateUnknowns(a *Analysis) []string {
	if a.Rate == nil {
		return nil
	}
	return append([]string{rangeUnknown(a)}, fitQuality(a)...)
}

// embeddedUnknown names the runs on the embedded broker.
func embeddedUnknown(a *Analysis) []string {
	emb := runsWhere(a.Runs, func(r *Run) bool { return r.Results.Broker.Kind == "embedded" })
	if len(emb) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s ran on the embedded broker (kfake, in the same process): fetches cross no "+
		"network and its log shares this host's disk and CPUs, so the figures do not reflect a real "+
		"cluster's disks, network or load. Run with --brokers against the cluster you plan for.", labels(emb))}
}

// calibrationUnknown says a model-engine rate is not calibrated.
func calibrationUnknown(a *Analysis) []string {
	if r := a.Rate; r == nil || r.Setup.Params.Engine != config.EngineModel || r.Calibration != nil {
		return nil
	}
	return []string{"The rate comes from the model engine (franz-go's consumer and RocksDB in Go), not from Kafka " +
		"Streams, and no run restored the same settings on both engines to calibrate it: add a run of " +
		"the built-in profile `calibrate` (it needs --brokers) to the inputs."}
}

// unmeasuredUnknown names the RTO rows, but the cold restore's, that the
// inputs do not measure.
func unmeasuredUnknown(a *Analysis) []string {
	var missing []string
	for _, row := range a.RTO.Rows {
		if !row.Measured && row.Scenario != RowColdRestore {
			missing = append(missing, row.Scenario)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("Scenarios not measured in the inputs: %s. Their recovery times are not estimated here.", strings.Join(missing, ", "))}
}

// excludedUnknown counts the restores that did not count.
func excludedUnknown(a *Analysis) []string {
	if n := excluded(a.Runs); n > 0 {
		return []string{fmt.Sprintf("%s in the inputs did not verify or failed; none of their figures count.", Plural(n, "restore"))}
	}
	return nil
}

// partialUnknown names each partial run and why.
func partialUnknown(a *Analysis) []string {
	var out []string
	for _, p := range a.Incomplete {
		out = append(out, fmt.Sprintf("%s is partial (%s): only the measurements it finished count.", p.Run.Label, p.Reason))
	}
	return out
}

// environmentsUnknown says the inputs mix environments.
func environmentsUnknown(a *Analysis) []string {
	if envs := environments(a.Setups); len(envs) > 1 {
		return []string{fmt.Sprintf("The inputs come from %d environments (%s); fits and rates never mix them.", len(envs), strings.Join(envs, "; "))}
	}
	return nil
}

// rangeUnknown says how far the answers reach beyond the measured sizes.
func rangeUnknown(a *Analysis) string {
	r := a.Rate
	var beyond []string
	for _, c := range a.RTO.Row(RowColdRestore).Cells {
		if c.Task.Extrapolated {
			beyond = append(beyond, FormatRTO(c.RTO))
		}
	}
	s := fmt.Sprintf("Sizes beyond the measured range: the rate was measured up to %s per thread", FormatBytes(r.Hi))
	if len(beyond) == 0 {
		return s + "; every RTO figure lies within it."
	}
	return s + fmt.Sprintf("; the per-task limits for %s lie beyond it and are extrapolations (RocksDB compaction and "+
		"memory behave differently at larger sizes). Run a fill near the size you plan for to confirm.", strings.Join(beyond, ", "))
}

func runsWhere(rs []*Run, f func(*Run) bool) []*Run {
	var out []*Run
	for _, r := range rs {
		if f(r) {
			out = append(out, r)
		}
	}
	return out
}

// labels writes runs as "R1", "R1 and R2" or "R1-R4 (4 runs)".
func labels(rs []*Run) string {
	switch len(rs) {
	case 1:
		return "Run " + rs[0].Label
	case 2:
		return "Runs " + rs[0].Label + " and " + rs[1].Label
	}
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Label
	}
	return "Runs " + strings.Join(names, ", ")
}

func excluded(rs []*Run) int {
	n := 0
	for _, run := range rs {
		for _, r := range run.Results.Restores {
			if !r.Counts() {
				n++
			}
		}
	}
	return n
}

func environments(setups []*Setup) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range setups {
		if e := s.Env.String(); !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}

// Thresholds below which the rate's fit is called out as unreliable: the
// line explains too little of the variation, or missed a held-out size.
const (
	minGoodR2             = 0.95
	maxSizeHoldOutPercent = 15
)

// fitQuality warns when the rate's fit is noisy or its hold-out check
// missed, since every extrapolated answer leans on it.
func fitQuality(a *Analysis) []string {
	r := a.Rate
	if r.Fit == nil {
		return nil
	}
	var out []string
	if r.Fit.R2 < minGoodR2 {
		out = append(out, fmt.Sprintf("The fit the rate comes from explains only %.0f%% of the variation in time to ready "+
			"(R² %.3f): repeats varied a lot, as on a busy machine. Repeat the runs on a quiet host, or "+
			"with more repeats, before relying on extrapolations.", 100*r.Fit.R2, r.Fit.R2))
	}
	for _, h := range a.SizeHoldOuts {
		if h.Fit.Setup == r.Setup && math.Abs(h.ErrorPercent()) > maxSizeHoldOutPercent {
			out = append(out, fmt.Sprintf("Fitted without its largest size, the line predicted %s for %s where %s was "+
				"measured (%+.0f%%): predictions beyond the measured sizes may be off by as much.",
				FormatSeconds(h.Predicted.Value), FormatBytes(h.Size), FormatSeconds(h.Measured), h.ErrorPercent()))
		}
	}
	return out
}
