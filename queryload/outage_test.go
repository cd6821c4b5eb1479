package queryload

import (
	"context"
	"testing"
	"time"
)

// TestReadOutageFollowsTheKilledKeys: only lookups of the killed
// instance's partitions sent after the kill count; the longest span
// without an answer runs from the kill to the first answer, and served
// again is the first answer after the last refusal.
func TestReadOutageFollowsTheKilledKeys(t *testing.T) {
	o := NewReadOutage([]int32{2, 0})
	if o.sent(0) {
		t.Fatal("a lookup before the kill was followed")
	}
	kill := time.Now()
	o.start(kill, 1.5)
	if o.sent(1) {
		t.Fatal("a lookup of a partition the killed instance did not hold was followed")
	}
	o.Refused(o.sent(0), true)
	time.Sleep(60 * time.Millisecond)
	o.Refused(o.sent(2), false)
	o.Answered(o.sent(2), true)
	o.Answered(o.sent(0), false)
	rec := o.figures(time.Now(), kill.Add(50*time.Millisecond))
	if rec.Lookups != 4 || rec.Refused != 2 || rec.Failed != 1 || rec.Answered != 2 || rec.FromStandby != 1 || rec.KillSeconds != 1.5 {
		t.Fatalf("counts %+v", rec)
	}
	if rec.LongestUnansweredSeconds < 0.06 || rec.FirstAnsweredSeconds == nil || *rec.FirstAnsweredSeconds < 0.06 ||
		*rec.ServedAgainSeconds != *rec.FirstAnsweredSeconds || rec.TakenOverSeconds != 0.05 {
		t.Fatalf("times %+v (first %v)", rec, *rec.FirstAnsweredSeconds)
	}
	if got := rec.Partitions; len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Fatalf("partitions %v", got)
	}
	if (*ReadOutage)(nil).figures(time.Now(), time.Time{}) != nil || NewReadOutage(nil).figures(time.Now(), time.Time{}) != nil {
		t.Fatal("an outage without a kill has figures")
	}
}

// TestStandbyLagCountsRecordsBehindTheEnd: a standby answer's lag is the
// partition's end offset less one less the offset its copy reached, until
// the kill freezes the measure; unknown offsets and partitions are not
// counted.
func TestStandbyLagCountsRecordsBehindTheEnd(t *testing.T) {
	read := func(context.Context) (map[int32]int64, error) { return map[int32]int64{0: 101, 1: 51}, nil }
	s := StartStandbyLag(context.Background(), read, 250)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.Mu.Lock()
		ready := s.ends != nil
		s.Mu.Unlock()
		if ready || time.Now().After(deadline) {
			break
		}
	}
	s.note(0, 100) // at the end
	s.note(0, 90)  // 10 behind
	s.note(1, 20)  // 30 behind
	s.note(1, -1)  // unknown
	s.note(7, 3)   // no end known
	s.freeze()
	s.note(0, 0) // after the kill
	got := s.figures()
	if got == nil || got.Answers != 3 || got.MaxRecords != 30 || got.MeanRecords != 40.0/3 || got.P99Records != 30 || got.WriteRate != 250 {
		t.Fatalf("lag %+v", got)
	}
}
