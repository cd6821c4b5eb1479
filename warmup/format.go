package warmup

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/restorebench/restorebench/internal/units"
)

// shownRounds is how many rounds at each end the summary lists when there
// are more.
const shownRounds = 6

// WriteSummary prints the prediction for a terminal: the label and every
// input first, then the predicted total, rounds and the round timeline.
func (p Prediction) WriteSummary(w io.Writer) error {
	in := p.Inputs
	var b strings.Builder
	fmt.Fprintf(&b, "PREDICTION (warmup model, not measured): scale-out %d -> %d instances, %d tasks, %s protocol\n",
		in.Before, in.After, len(in.TaskOffsets), in.Protocol)
	fmt.Fprintf(&b, "inputs: %s\n", strings.Join(p.inputLines(), "\n        "))
	fmt.Fprintf(&b, "predicted warmup-assignment time: %s", units.SecondsTerse(p.TotalSeconds))
	if s := p.Spread; s != nil {
		fmt.Fprintf(&b, " (median over %d random process-id orders; %s to %s)", s.Samples, units.SecondsTerse(s.MinSeconds), units.SecondsTerse(s.MaxSeconds))
	}
	if !p.Converged {
		b.WriteString(" -- NEVER CONVERGES: a warmup's share of its thread's restore rate does not exceed its task's write rate")
	}
	b.WriteString("\n")
	rounds := fmt.Sprintf("%d", p.ProbingRounds)
	if s := p.Spread; s != nil && s.MinRounds != s.MaxRounds {
		rounds += fmt.Sprintf(" (%d to %d)", s.MinRounds, s.MaxRounds)
	}
	fmt.Fprintf(&b, "probing rounds %s; rebalances %d; tasks moved %d; most warmups in one round %d; longest a moved task was not processed %s\n",
		rounds, p.Rebalances, p.Movements, p.MaxWarmups, units.SecondsTerse(p.MaxDownSeconds))
	if im := p.Immediate; im != nil {
		fmt.Fprintf(&b, "if follow-up rebalances come at once instead of a heartbeat later: %s, %d probing rounds (a "+
			"warmup that just caught up waits a probing interval more)\n",
			units.SecondsTerse(im.TotalSeconds), im.ProbingRounds)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return p.writeRounds(w)
}

// inputLines describes every input, saying which were assumed.
func (p Prediction) inputLines() []string {
	in := p.Inputs
	size := sizeRange(in.TaskOffsets)
	lines := []string{fmt.Sprintf("tasks %d, %s offsets each", len(in.TaskOffsets), size)}
	if in.BytesPerOffset > 0 {
		lines[0] += fmt.Sprintf(" (%.0f bytes/record: %s per task)", in.BytesPerOffset, units.BytesTenthsMBGB(float64(in.TaskOffsets[0])*in.BytesPerOffset))
	}
	rate := fmt.Sprintf("restore %.0f offsets/s per stream thread", in.RestoreRate)
	if in.BytesPerOffset > 0 {
		rate += fmt.Sprintf(" (%.1f MB/s)", in.RestoreRate*in.BytesPerOffset/1e6)
	}
	if in.RestoreRateFrom != "" {
		rate += ", from " + in.RestoreRateFrom
	}
	lines = append(lines, rate,
		fmt.Sprintf("write %.0f records/s in all (%.1f per task); num.stream.threads %d; num.standby.replicas %d",
			in.WriteRate, in.writePerTask(), in.Threads, in.Standbys))
	if in.Protocol == ProtocolClassic {
		lines = append(lines, fmt.Sprintf("max.warmup.replicas %d; acceptable.recovery.lag %d; probing.rebalance.interval.ms %.0f",
			in.MaxWarmupReplicas, in.AcceptableRecoveryLag, in.ProbingIntervalSeconds*1000))
	} else {
		lines = append(lines, "streams protocol (KIP-1071, Kafka 4.4): no warmups, tasks move at once and restore from scratch")
	}
	lines = append(lines, fmt.Sprintf("startup %s, rebalance %s, follow-up rebalance after %s", units.SecondsTerse(in.StartupSeconds),
		units.SecondsTerse(in.RebalanceSeconds), units.SecondsTerse(in.FollowUpSeconds)))
	switch {
	case in.Protocol == ProtocolStreams:
	case p.Spread != nil:
		lines = append(lines, fmt.Sprintf("process-id order: unknown, %d random orders sampled (seed %d)", p.Spread.Samples, in.Seed))
	default:
		lines = append(lines, fmt.Sprintf("process-id order %v (0..%d ran before)", in.Order, in.Before-1))
	}
	if in.Source != "" {
		lines = append(lines, "source: "+in.Source)
	}
	return lines
}

// writeRounds prints the rounds, the first and last few when there are many.
func (p Prediction) writeRounds(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rebalance\tat\tkind\twarmups\trevoked\thanded over\tmovements pending\t")
	for i, r := range p.Rounds {
		if len(p.Rounds) > 2*shownRounds && i == shownRounds {
			fmt.Fprintf(tw, "...\t\t\t\t\t\t\t\n")
		}
		if len(p.Rounds) > 2*shownRounds && i >= shownRounds && i < len(p.Rounds)-shownRounds {
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%d\t\n", i, units.SecondsTerse(r.Seconds), r.Kind, len(r.Warmups), r.Revoked, r.Moved, r.Pending)
	}
	fmt.Fprintf(tw, "end\t%s\tbalanced, all running\t\t\t\t\t\n", units.SecondsTerse(p.TotalSeconds))
	return tw.Flush()
}

func sizeRange(xs []int64) string {
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo == hi {
		return fmt.Sprintf("%d", lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
