package runs

import "slices"

// MergeOutages is one outage over several sets of keys each followed on
// its own from the same moment (a scale-out's moved tasks, each moving
// when the assignor moves it): partitions and counts added up, the
// longest unanswered span the longest of any set, the first answer the
// earliest, served again the latest (from then on every set's lookups
// were answered; nil when a set's never were), taken over the latest.
// Nil for none.
func MergeOutages(outs []ReadOutage) *ReadOutage {
	if len(outs) == 0 {
		return nil
	}
	m := ReadOutage{KillSeconds: outs[0].KillSeconds}
	served := true
	var first, again *float64
	for _, o := range outs {
		m.Partitions = append(m.Partitions, o.Partitions...)
		m.Lookups += o.Lookups
		m.Answered += o.Answered
		m.Refused += o.Refused
		m.Failed += o.Failed
		m.FromStandby += o.FromStandby
		m.LongestUnansweredSeconds = max(m.LongestUnansweredSeconds, o.LongestUnansweredSeconds)
		m.TakenOverSeconds = max(m.TakenOverSeconds, o.TakenOverSeconds)
		if f := o.FirstAnsweredSeconds; f != nil && (first == nil || *f < *first) {
			first = f
		}
		switch s := o.ServedAgainSeconds; {
		case s == nil:
			served = false
		case again == nil || *s > *again:
			again = s
		}
	}
	slices.Sort(m.Partitions)
	m.FirstAnsweredSeconds = first
	if served {
		m.ServedAgainSeconds = again
	}
	return &m
}
