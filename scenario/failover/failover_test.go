package failover

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/ledger"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/scenario"
)

const (
	foIn = "app-transactions"
	foCL = "app-balances-changelog"
	sec  = int64(1e9)
)

// processed is a processed event at ns for one partition of the input.
func processed(ns int64, p int32, firstNs, lastNs, lastOffset int64) *ksdriver.Processed {
	return &ksdriver.Processed{Meta: ksdriver.Meta{Ev: ksdriver.EvProcessed, MonoNs: ns},
		Partitions: []ksdriver.ProcessedPartition{{Topic: foIn, Partition: p, Records: 5, LastOffset: lastOffset, FirstMonoNs: firstNs, LastMonoNs: lastNs}}}
}

func state(ns int64, to string) *ksdriver.StateChange {
	return &ksdriver.StateChange{Meta: ksdriver.Meta{Ev: ksdriver.EvState, MonoNs: ns}, To: to}
}

func tasks(ns int64, active, standby []string) *ksdriver.Tasks {
	return &ksdriver.Tasks{Meta: ksdriver.Meta{Ev: ksdriver.EvTasks, MonoNs: ns},
		Threads: []ksdriver.ThreadTasks{{Name: "t1", Active: active, Standby: standby}}}
}

func sp(p int32) ksdriver.StorePartition {
	return ksdriver.StorePartition{Store: "balances", Topic: foCL, Partition: p}
}

// A synthetic kill: the victim last processed partition 0 at 99.9 s and
// partition 1 at 99.95 s, and is killed at 100 s; the survivor (which
// already runs partition 2) rebalances at 105 s, promotes its standby of
// partition 0, restores partition 1 from the start (300 records), lists
// both active at 105.5 s, is RUNNING at 106.2 s, and processes partition 0
// from 106.0 s and partition 1 from 106.5 s.
func syntheticKill() (foKill, []ksdriver.Event) {
	killNs := 100 * sec
	victim := []ksdriver.Event{
		tasks(10*sec, []string{"0_0", "0_1"}, nil),
		processed(99*sec, 0, 98*sec, 99*sec, 500),
		processed(99*sec+980e6, 0, 99*sec+900e6, 99*sec+900e6, 510),
		processed(99*sec+980e6, 1, 99*sec+950e6, 99*sec+950e6, 600),
	}
	survivor := []ksdriver.Event{
		processed(100*sec+10e6, 2, 99*sec+995e6, 100*sec+5e6, 700), // its own partition, across the kill
		state(105*sec, ksdriver.StateRebalancing),
		&ksdriver.StandbySuspended{Meta: ksdriver.Meta{Ev: ksdriver.EvStandbySuspended, MonoNs: 105*sec + 100e6}, StorePartition: sp(0), Reason: "PROMOTED"},
		&ksdriver.RestoreStart{Meta: ksdriver.Meta{Ev: ksdriver.EvRestoreStart, MonoNs: 105*sec + 200e6}, StorePartition: sp(1), StartOffset: 0, EndOffset: 300},
		tasks(105*sec+500e6, []string{"0_0", "0_1", "0_2"}, nil),
		&ksdriver.RestoreEnd{Meta: ksdriver.Meta{Ev: ksdriver.EvRestoreEnd, MonoNs: 105*sec + 700e6}, StorePartition: sp(1), Restored: 300},
		processed(106*sec+10e6, 0, 106*sec, 106*sec+5e6, 520),
		state(106*sec+200e6, ksdriver.StateRunning),
	}
	late := processed(106*sec+510e6, 1, 106*sec+500e6, 106*sec+505e6, 610)
	return foKill{killNs: killNs, victim: victim, survivor: survivor, victimTasks: []string{"0_0", "0_1"}, input: foIn, store: foCL}, []ksdriver.Event{late}
}

func sum(balance, count int64) ledger.Sum { return ledger.Sum{Balance: balance, Count: count} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestFailoverGapsFromEvents(t *testing.T) {
	k, late := syntheticKill()
	if ok, why := k.takenOver(); ok || !strings.Contains(why, "0_1") {
		t.Fatalf("taken over before partition 1 was processed: %v %q", ok, why)
	}
	k.survivor = append(k.survivor, late...)
	if ok, why := k.takenOver(); !ok {
		t.Fatalf("not taken over: %s", why)
	}
	fr, err := k.measure()
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Tasks) != 2 {
		t.Fatalf("%d tasks", len(fr.Tasks))
	}
	t0, t1 := fr.Tasks[0], fr.Tasks[1]
	// Gaps: 106.0 - 99.9 and 106.5 - 99.95.
	if !near(t0.GapSeconds, 6.1) || !near(t1.GapSeconds, 6.55) || !near(t0.IdleBeforeKillSeconds, 0.1) {
		t.Errorf("gaps %.3f %.3f idle %.3f, want 6.1 6.55 0.1", t0.GapSeconds, t1.GapSeconds, t0.IdleBeforeKillSeconds)
	}
	if t0.Takeover != runs.TakeoverPromoted || t1.Takeover != runs.TakeoverRestored || t1.RestoredRecords != 300 || !near(t1.RestoreSeconds, 0.5) || t0.RestoreStartOffset != -1 {
		t.Errorf("takeovers %+v %+v", t0, t1)
	}
	if fr.Takeover != runs.TakeoverMixed || fr.RestoredRecords != 300 || !near(fr.MaxGapSeconds, 6.55) || !near(fr.MedianGapSeconds, 6.325) {
		t.Errorf("kill: takeover %s restored %d max %.3f median %.3f", fr.Takeover, fr.RestoredRecords, fr.MaxGapSeconds, fr.MedianGapSeconds)
	}
	if !near(fr.DetectionSeconds, 5) || !near(fr.AssignedSeconds, 5.5) || !near(fr.RunningSeconds, 6.2) {
		t.Errorf("detection %.3f assigned %.3f running %.3f, want 5 5.5 6.2", fr.DetectionSeconds, fr.AssignedSeconds, fr.RunningSeconds)
	}
}

// A restore that starts above offset 0 is from a local checkpoint: warm.
func TestTakeoverFromACheckpointIsWarm(t *testing.T) {
	evs := []ksdriver.Event{
		&ksdriver.RestoreStart{Meta: ksdriver.Meta{MonoNs: 1}, StorePartition: sp(3), StartOffset: 1200},
		&ksdriver.RestoreEnd{Meta: ksdriver.Meta{MonoNs: 2}, StorePartition: sp(3), Restored: 40},
	}
	if to := classifyTakeover(evs, foCL, 3); to.kind != runs.TakeoverWarm || to.restored != 40 || to.restoreStart != 1200 {
		t.Fatalf("%+v", to)
	}
	if to := classifyTakeover(evs, foCL, 2); to.kind != runs.TakeoverNone {
		t.Fatalf("partition without events: %+v", to)
	}
}

func TestLedgerCheckCountsDuplicatesAndLosses(t *testing.T) {
	expected := map[string]ledger.Sum{"a": {Balance: 100, Count: 2}, "b": {Balance: -50, Count: 1}, "c": {Balance: 30, Count: 3}}
	actual := map[string]ledger.Sum{
		"a": {Balance: 100, Count: 2},  // right
		"b": {Balance: -100, Count: 2}, // counted twice
		"c": {Balance: 20, Count: 2},   // one lost
		"d": {Balance: 5, Count: 1},    // never written: counted too much
	}
	c := checkLedger(expected, actual)
	if c.Exact || c.Acked != 6 || c.Counted != 7 || c.Duplicates != 2 || c.Lost != 1 || c.Mismatched != 3 || c.Accounts != 3 || c.AccountsQueried != 4 {
		t.Fatalf("%+v", c)
	}
	if d := c.Differences[0]; d.Account != "b" || d.Balance != -100 || d.ExpectedBalance != -50 || d.Count != 2 || d.ExpectedCount != 1 {
		t.Fatalf("first difference %+v", d)
	}
	for _, g := range []string{"exactly_once_v2", "at_least_once"} {
		verified, failed, problem := ledgerVerdict(c, g)
		if verified || !failed || !strings.Contains(problem, "b balance -100 (expected -50, -50) count 2 (expected 1, +1)") {
			t.Errorf("%s with a loss: verified %v failed %v %q", g, verified, failed, problem)
		}
	}
	// Duplicates alone: what at-least-once allows, not what exactly-once does.
	dup := checkLedger(expected, map[string]ledger.Sum{"a": sum(100, 2), "b": sum(-100, 2), "c": sum(30, 3)})
	if v, f, p := ledgerVerdict(dup, "at_least_once"); v || f || !strings.Contains(p, "1 counted twice, 0 lost") {
		t.Errorf("at-least-once duplicates: verified %v failed %v %q", v, f, p)
	}
	if v, f, _ := ledgerVerdict(dup, "exactly_once_v2"); v || !f {
		t.Errorf("exactly-once duplicates: verified %v failed %v", v, f)
	}
	// A balance off with the right count is no duplicate: a failure.
	odd := checkLedger(expected, map[string]ledger.Sum{"a": sum(101, 2), "b": sum(-50, 1), "c": sum(30, 3)})
	if v, f, _ := ledgerVerdict(odd, "at_least_once"); v || !f || odd.Unexplained != 1 {
		t.Errorf("unexplained difference: verified %v failed %v %+v", v, f, odd)
	}
	if v, f, p := ledgerVerdict(checkLedger(expected, expected), "exactly_once_v2"); !v || f || p != "" {
		t.Errorf("exact ledger: verified %v failed %v %q", v, f, p)
	}
}

// Only the first 10 differences are listed; the problem says how many more.
func TestLedgerCheckListsTenDifferences(t *testing.T) {
	expected := map[string]ledger.Sum{}
	for i := range 25 {
		expected[ledger.AccountName(i)] = ledger.Sum{Balance: 1, Count: 1}
	}
	c := checkLedger(expected, nil)
	if c.Lost != 25 || len(c.Differences) != 10 || c.Differences[0].Account != "acct-000000" {
		t.Fatalf("%+v", c)
	}
	if _, _, p := ledgerVerdict(c, "exactly_once_v2"); !strings.Contains(p, "and 15 more") {
		t.Fatalf("%q", p)
	}
}

func TestParseBalances(t *testing.T) {
	read := func(s string) (map[string]ledger.Sum, error) {
		return fleet.ParseBalances(strings.NewReader(s), "b.tsv")
	}
	got, err := read("acct-1\t-250\t3\nacct-2\t100\t1\n")
	if err != nil || len(got) != 2 || got["acct-1"] != (ledger.Sum{Balance: -250, Count: 3}) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"acct-1\t1\t1\nacct-1\t2\t2\n", "acct-1\t1\n", "acct-1\tx\t1\n"} {
		if _, err := read(bad); err == nil || !strings.Contains(err.Error(), "b.tsv:") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestStableGroup(t *testing.T) {
	run := ksdriver.StateRunning
	a := foView{state: run, tasks: fleet.TaskSet{Active: []string{"0_0"}, Standby: []string{"0_1"}}}
	b := foView{state: run, tasks: fleet.TaskSet{Active: []string{"0_1"}, Standby: []string{"0_0"}}}
	if _, ok, why := stableSignature([]foView{a, b}, 2, true); !ok {
		t.Fatalf("balanced group with standbys not stable: %s", why)
	}
	noStandby := foView{state: run, tasks: fleet.TaskSet{Active: []string{"0_1"}}}
	if _, ok, why := stableSignature([]foView{a, noStandby}, 2, true); ok || !strings.Contains(why, "0_0 has no standby") {
		t.Fatalf("missing standby: %v %q", ok, why)
	}
	if _, ok, _ := stableSignature([]foView{a, noStandby}, 2, false); !ok {
		t.Fatal("without standbys, every task active once is stable")
	}
	both := foView{state: run, tasks: fleet.TaskSet{Active: []string{"0_0", "0_1"}}}
	if _, ok, why := stableSignature([]foView{a, both}, 2, false); ok || !strings.Contains(why, "0_0 is active on 2") {
		t.Fatalf("task active twice: %v %q", ok, why)
	}
	rebal := b
	rebal.state = ksdriver.StateRebalancing
	s1, ok, why := stableSignature([]foView{a, rebal}, 2, true)
	if ok || !strings.Contains(why, "REBALANCING") {
		t.Fatalf("rebalancing instance: %v %q", ok, why)
	}
	if s2, _, _ := stableSignature([]foView{a, b}, 2, true); s1 == s2 {
		t.Fatal("the signature does not change with the state")
	}
}

func TestDrainBehind(t *testing.T) {
	offsets := cluster.TopicOffsets{Topic: foIn, Start: map[int32]int64{0: 0, 1: 0, 2: 0}, End: map[int32]int64{0: 521, 1: 611, 2: 0}}
	evs := []ksdriver.Event{state(1, ksdriver.StateRunning), tasks(2, []string{"0_0", "0_1", "0_2"}, nil),
		processed(3, 0, 1, 2, 520), processed(4, 1, 1, 2, 600)}
	if b := drainBehind(evs, foIn, offsets, 3); !strings.Contains(b, "partition 1 at offset 600 of 610") || strings.Contains(b, "partition 0") {
		t.Fatalf("%q", b)
	}
	evs = append(evs, processed(5, 1, 3, 4, 610))
	if b := drainBehind(evs, foIn, offsets, 3); b != "" {
		t.Fatalf("drained, but %q", b)
	}
	evs = append(evs, tasks(6, []string{"0_0", "0_1"}, nil))
	if b := drainBehind(evs, foIn, offsets, 3); b != "task 0_2 not active" {
		t.Fatalf("%q", b)
	}
}

func TestFailoverProperties(t *testing.T) {
	c := config.DefaultCase()
	c.Name, c.Engine, c.Scenario = "f", config.EngineKafkaStreams, config.ScenarioFailover
	c.Streams = map[string]string{"processing.guarantee": "exactly_once_v2", "session.timeout.ms": "10000"}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	env := &fleet.Env{Cluster: cluster.Config{Brokers: []string{"h:1", "h:2"}}}
	p, err := failoverProperties(env, fleet.Request{Case: c}, "app", "balances", "app-transactions")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"session.timeout.ms": "10000", "heartbeat.interval.ms": "2000", "num.standby.replicas": "1",
		"processing.guarantee": "exactly_once_v2", "application.id": "app", "bootstrap.servers": "h:1,h:2",
		"restorebench.topology": "ledger", "restorebench.input.topic": "app-transactions", "restorebench.processed.interval.ms": "20"}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
	c.Failover.Standby = false
	c.Streams["num.standby.replicas"] = "1"
	if _, err := failoverProperties(env, fleet.Request{Case: c}, "app", "balances", "in"); err == nil || !strings.Contains(err.Error(), "failover.standby") {
		t.Fatalf("contradicting standby settings: %v", err)
	}
}

func TestFailoverIsOnTheKafkaStreamsEngine(t *testing.T) {
	c := config.DefaultCase()
	c.Engine, c.Scenario = config.EngineKafkaStreams, config.ScenarioFailover
	if s, err := scenario.For(c); err != nil || s != (FailoverKafkaStreams{}) {
		t.Fatalf("%v %v", s, err)
	}
}

// judge puts the check on the last record and the verdict on all: an
// exactly-once difference is an ErrUnverified failure, at-least-once
// duplicates are not verified but no failure.
func TestJudgeMarksEveryKillRecord(t *testing.T) {
	expected := map[string]ledger.Sum{"a": sum(10, 1), "b": sum(20, 2)}
	dup := checkLedger(expected, map[string]ledger.Sum{"a": sum(20, 2), "b": sum(20, 2)})
	for _, c := range []struct {
		guarantee string
		check     runs.LedgerCheck
		verified  bool
		failed    bool
	}{
		{"exactly_once_v2", checkLedger(expected, expected), true, false},
		{"exactly_once_v2", dup, false, true},
		{"at_least_once", dup, false, false},
	} {
		r := &failoverRun{env: &fleet.Env{Logf: func(string, ...any) {}}, guarantee: c.guarantee, req: fleet.Request{Case: config.Case{Name: "c"}, Repeat: 1}}
		for k := 1; k <= 3; k++ {
			r.out = append(r.out, runs.Restore{Failover: &runs.FailoverRecord{Kill: k}})
		}
		err := r.judge(c.check)
		if failed := errors.Is(err, fleet.ErrUnverified); failed != c.failed || (err != nil) != c.failed {
			t.Errorf("%s %+v: error %v, want failed=%v", c.guarantee, c.check, err, c.failed)
		}
		for i, rec := range r.out {
			if rec.Verified != c.verified || (rec.Error == "") != c.verified || rec.Verification.Mode != runs.VerificationLedger {
				t.Errorf("%s: record %d verified %v error %q mode %q", c.guarantee, i, rec.Verified, rec.Error, rec.Verification.Mode)
			}
			if (rec.Failover.Ledger != nil) != (i == 2) {
				t.Errorf("%s: record %d carries the check: %v", c.guarantee, i, rec.Failover.Ledger != nil)
			}
		}
		if !c.verified && !strings.Contains(r.out[2].Error, "1 counted twice") {
			t.Errorf("%s: last record's error %q", c.guarantee, r.out[2].Error)
		}
	}
}
