package runs

import "testing"

// TestMergeOutagesOfMovedTasks: merged, the moved tasks' keys went
// unanswered as long as the worst one did, were first answered with the
// first, and all served again only when the last was; one never served
// again leaves the merge without a served-again time.
func TestMergeOutagesOfMovedTasks(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	a := ReadOutage{KillSeconds: 2, Partitions: []int32{3}, Lookups: 10, Answered: 8, Refused: 2, LongestUnansweredSeconds: 1.5,
		FirstAnsweredSeconds: f(0.2), ServedAgainSeconds: f(1.6), TakenOverSeconds: 4}
	b := ReadOutage{KillSeconds: 2, Partitions: []int32{1}, Lookups: 5, Answered: 5, LongestUnansweredSeconds: 0.1,
		FirstAnsweredSeconds: f(0.1), ServedAgainSeconds: f(0.1), TakenOverSeconds: 4}
	m := MergeOutages([]ReadOutage{a, b})
	if m.Lookups != 15 || m.Refused != 2 || m.LongestUnansweredSeconds != 1.5 || *m.FirstAnsweredSeconds != 0.1 ||
		*m.ServedAgainSeconds != 1.6 || m.Partitions[0] != 1 || m.Partitions[1] != 3 || m.KillSeconds != 2 {
		t.Fatalf("merged %+v", m)
	}
	b.ServedAgainSeconds = nil
	if m := MergeOutages([]ReadOutage{a, b}); m.ServedAgainSeconds != nil {
		t.Fatalf("served again %v though one task's keys never were", *m.ServedAgainSeconds)
	}
	if MergeOutages(nil) != nil {
		t.Fatal("no outages merged into one")
	}
}
