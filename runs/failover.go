package runs

import (
	"fmt"
	"strings"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/verify"
)

// StepKill is one kill of a failover sequence, Step.Kill its number.
const StepKill StepKind = "kill"

func init() {
	registerRecord(recordDef{
		scenario: config.ScenarioFailover,
		kinds:    []StepKind{StepKill},
		holds:    func(r *Restore) bool { return r.Failover != nil },
		example:  failoverExample,
		headline: &Headline{Label: "gap s (longest task)", seconds: func(r *Restore) float64 { return r.Failover.MaxGapSeconds }},
		// A sequence's kills share their case's name: one case.
		steps: map[StepKind]stepDef{StepKill: {
			param: func(s Step) string { return fmt.Sprintf("kill %d", s.Kill) },
			keep:  func(from Step, to *Step) { to.Kill = from.Kill },
			check: func(s Step) error {
				if s.Kill < 1 {
					return fmt.Errorf("step kill %d: kills count from 1", s.Kill)
				}
				return nil
			},
		}},
		checkStep: func(r *Restore, s Step) error {
			if f := r.Failover; f.Kill != s.Kill {
				return fmt.Errorf("step kill %d, but its failover record is kill %d", s.Kill, f.Kill)
			}
			return nil
		},
	})
}

// VerificationLedger is the verify.Result mode of a failover measurement:
// the balances of the ledger (one per account) checked, account by account,
// against independent sums of the transactions the producer got
// acknowledged (the partitions of the result stay empty).
const VerificationLedger = "ledger"

// Takeover kinds: how a survivor came to process a killed instance's task.
const (
	// TakeoverPromoted: the survivor held the task as a standby (or a
	// KIP-441 warmup, which rides as a standby) and promoted it
	// (standby_suspended with reason PROMOTED), restoring only what the
	// standby had not applied yet.
	TakeoverPromoted = "promoted"
	// TakeoverWarm: the survivor restored the task from a local checkpoint
	// (restore_start at an offset above 0): a store it kept from before.
	TakeoverWarm = "warm"
	// TakeoverRestored: the survivor restored the task's store from the
	// start of its changelog (a cold restore).
	TakeoverRestored = "restored"
	// TakeoverNone: the task had nothing to restore (an empty changelog).
	TakeoverNone = "none"
	// TakeoverMixed is a kill's Takeover when its tasks were taken over in
	// different ways (FailoverRecord.Tasks says which).
	TakeoverMixed = "mixed"
)

// FailoverRecord is what one kill of a failover measurement adds to its
// record (kafka-streams engine, the ledger topology; with a query load or
// a store kind beyond key-value, the kv topology over the fill): two
// instance processes of one application run while a producer writes
// deposits and withdrawals (or the fill's generator, continued); one
// instance is killed with SIGKILL at a random moment and
// the other takes its tasks over. The record is measured by its headline,
// MaxGapSeconds (Restore.Headline): it carries no restore figures, and
// Records is RestoredRecords.
//
// Times are CLOCK_MONOTONIC differences between the Go side (the kill) and
// the instances' events (System.nanoTime, the same clock on one host).
type FailoverRecord struct {
	// Kill is this kill's number in the sequence, from 1; Kills how many
	// the sequence made.
	Kill  int `json:"kill"`
	Kills int `json:"kills"`
	// Killed and Survivor are the instance ids; Incarnation counts the
	// killed instance's starts before this kill (1 = its first process).
	Killed      string `json:"killed"`
	Survivor    string `json:"survivor"`
	Incarnation int    `json:"incarnation"`
	// AtSeconds is when the kill came, from the producer's start.
	AtSeconds float64 `json:"at_seconds"`
	// WaitSeconds is the random wait before the kill, once the group was
	// stable (seeded; between half of failover.run and all of it).
	WaitSeconds float64 `json:"wait_seconds"`
	// VictimTasks are the tasks the killed instance had active.
	VictimTasks []string `json:"victim_tasks"`
	// Tasks are the per-task figures of the takeover.
	Tasks []FailoverTask `json:"tasks"`
	// MaxGapSeconds and MedianGapSeconds summarize Tasks' gaps.
	MaxGapSeconds    float64 `json:"max_gap_seconds"`
	MedianGapSeconds float64 `json:"median_gap_seconds"`
	// ClockBoundSeconds is how far the clocks of the killed and the
	// surviving instance's hosts may be apart on the coordinator's
	// timeline (the sum of their agents' clock bounds): the uncertainty of
	// a gap from one host's record to another's. 0 on one host.
	ClockBoundSeconds float64 `json:"clock_bound_seconds,omitempty"`
	// DetectionSeconds runs from the kill to the survivor's first state
	// change to REBALANCING: failure detection (session.timeout.ms, as the
	// killed member sends no LeaveGroup) plus the rebalance up to its
	// assignment. 0 when the survivor did not report one.
	DetectionSeconds float64 `json:"detection_seconds"`
	// AssignedSeconds runs from the kill until the survivor's task list
	// first shows every victim task active.
	AssignedSeconds float64 `json:"assigned_seconds"`
	// RunningSeconds runs from the kill until the survivor is RUNNING again
	// after that rebalance (its restores done).
	RunningSeconds float64 `json:"running_seconds"`
	// Takeover is how the victim tasks were taken over: promoted, warm,
	// restored, none, or mixed (see Tasks).
	Takeover string `json:"takeover"`
	// RestoredRecords are the changelog records the survivor restored for
	// the victim tasks (a promoted standby's catch-up included).
	RestoredRecords int64 `json:"restored_records"`
	// RestartSeconds runs from relaunching the killed instance until the
	// group was stable again (both RUNNING, every task active once, with
	// standbys every task also on standby); 0 after the last kill, which is
	// not followed by a restart.
	RestartSeconds float64 `json:"restart_seconds,omitempty"`
	// Guarantee is processing.guarantee; Standby says whether
	// num.standby.replicas was 1; Persistent whether a killed instance
	// came back with its state directory (else wiped).
	Guarantee  string `json:"guarantee"`
	Standby    bool   `json:"standby"`
	Persistent bool   `json:"persistent"`
	// StoreKind is the kind of store the instances ran: the case's, over
	// its fill (the kv topology), or key-value for the ledger's balances.
	// Empty in records written before failovers ran other kinds (all
	// key-value).
	StoreKind config.StoreKind `json:"store_kind,omitempty"`
	// SessionTimeoutMs is the session.timeout.ms the instances ran with:
	// the bound on failure detection.
	SessionTimeoutMs int64 `json:"session_timeout_ms"`
	// ProcessedIntervalMs is how often the instances reported processed
	// records: each gap end is known to within it.
	ProcessedIntervalMs int64 `json:"processed_interval_ms"`
	// Ledger is the balance check after the sequence: on the last kill's
	// record only.
	Ledger *LedgerCheck `json:"ledger,omitempty"`
}

// FailoverTask is one victim task's takeover.
type FailoverTask struct {
	// Task is Kafka Streams' task id (0_P); Partition its input (and
	// changelog) partition.
	Task      string `json:"task"`
	Partition int32  `json:"partition"`
	// GapSeconds runs from the last record the killed instance processed
	// for the task to the first its survivor processed: how long the
	// partition's records waited. -1 when either end is unknown.
	GapSeconds float64 `json:"gap_seconds"`
	// IdleBeforeKillSeconds is how long before the kill the killed instance
	// last processed the task (its records arrive at the producer's rate,
	// so this is normally under a processed interval).
	IdleBeforeKillSeconds float64 `json:"idle_before_kill_seconds"`
	// Takeover is promoted, warm, restored or none (see the constants).
	Takeover string `json:"takeover"`
	// RestoreStartOffset is the changelog offset the survivor's restore
	// began at (-1 when it did not restore); RestoredRecords how many it
	// restored.
	RestoreStartOffset int64 `json:"restore_start_offset"`
	RestoredRecords    int64 `json:"restored_records"`
	// RestoreSeconds is the survivor's restore of the task, restore_start
	// to restore_end.
	RestoreSeconds float64 `json:"restore_seconds"`
}

// LedgerCheck is the balance check after a failover sequence: the active
// instance's balances (interactive queries over every account) against the
// sums of the transactions the producer got acknowledged.
type LedgerCheck struct {
	// Accounts is how many accounts the acknowledged transactions touched;
	// AccountsQueried how many the instances' stores held.
	Accounts        int `json:"accounts"`
	AccountsQueried int `json:"accounts_queried"`
	// Acked are the transactions the producer got acknowledged (with an
	// idempotent producer each is in the log exactly once); Counted the sum
	// of the stores' per-account transaction counts.
	Acked   int64 `json:"acked"`
	Counted int64 `json:"counted"`
	// Duplicates is the sum over accounts of count - expected count where
	// positive: transactions counted twice. Lost is the sum of expected
	// count - count where positive: acknowledged transactions missing.
	Duplicates int64 `json:"duplicates"`
	Lost       int64 `json:"lost"`
	// Mismatched counts the accounts whose balance or count differ;
	// Differences are the first of them (at most 10), by account.
	Mismatched  int                 `json:"mismatched"`
	Differences []AccountDifference `json:"differences,omitempty"`
	// Unexplained counts the accounts whose count is right but whose
	// balance is not: neither a duplicate nor a loss explains them.
	Unexplained int `json:"unexplained"`
	// Exact is true when every account's balance and count equal the sums.
	Exact bool `json:"exact"`
	// ProducerSeconds is how long the producer wrote and ProducerRate the
	// acknowledged transactions a second it reached.
	ProducerSeconds float64 `json:"producer_seconds"`
	ProducerRate    float64 `json:"producer_rate"`
	// WaitSeconds is how long the last active instance took, after the
	// producer stopped, to have processed every acknowledged transaction.
	WaitSeconds float64 `json:"wait_seconds"`
}

// AccountDifference is one account whose balance or count differ from the
// sums of its acknowledged transactions.
type AccountDifference struct {
	Account         string `json:"account"`
	Balance         int64  `json:"balance"`
	ExpectedBalance int64  `json:"expected_balance"`
	Count           int64  `json:"count"`
	ExpectedCount   int64  `json:"expected_count"`
}

// GapResolved says whether the kill's gap is a measurement: longer than
// the clocks' bound between the killed and the surviving instance's hosts
// (always, on one host). A gap within the bound could be the clocks'
// error alone, so summaries and answers leave it out and count it.
func (f *FailoverRecord) GapResolved() bool {
	return f.ClockBoundSeconds == 0 || f.MaxGapSeconds > f.ClockBoundSeconds
}

// FailoverSummary is one case's failover measurements together: the gaps
// of its kills (each kill's MaxGapSeconds) and what its balance checks
// found, over every repeat.
type FailoverSummary struct {
	Case string
	// StoreKind is the kind of store the case's instances ran
	// (FailoverRecord.StoreKind; key-value when the records do not say).
	StoreKind  config.StoreKind
	Guarantee  string
	Standby    bool
	Persistent bool
	// SessionTimeoutMs is the instances' session.timeout.ms (the largest,
	// should repeats differ): the floor under failure detection.
	SessionTimeoutMs int64
	// Kills counts the kills measured; Gaps are their max gaps, in order,
	// but for the Unresolved kills, whose gaps lay within the clocks'
	// bound across hosts (FailoverRecord.GapResolved).
	Kills      int
	Gaps       []float64
	Unresolved int
	// MedianGap, MinGap and MaxGap summarize Gaps.
	MedianGap, MinGap, MaxGap float64
	// MedianDetection and MedianRunning are the medians of the kills'
	// DetectionSeconds and RunningSeconds.
	MedianDetection, MedianRunning float64
	// Takeovers counts the kills by takeover kind.
	Takeovers map[string]int
	// Sequences counts the repeats; Checked those whose ledger was checked
	// and Exact those whose ledger matched.
	Sequences, Checked, Exact int
	// Acked, Duplicates and Lost add up the checks' figures.
	Acked, Duplicates, Lost int64
}

// Verdict says in a few words what the case's balance checks found:
// "verified", "N duplicates" (under at-least-once), "LOST N", or
// "unchecked" for sequences that broke off before the check.
func (s FailoverSummary) Verdict() string {
	var parts []string
	switch {
	case s.Checked > 0 && s.Exact == s.Checked:
		parts = append(parts, "verified")
	case s.Duplicates > 0 || s.Lost > 0:
		if s.Duplicates > 0 {
			parts = append(parts, fmt.Sprintf("%d duplicates", s.Duplicates))
		}
		if s.Lost > 0 {
			parts = append(parts, fmt.Sprintf("LOST %d", s.Lost))
		}
	case s.Checked > s.Exact:
		parts = append(parts, "MISMATCH")
	}
	if n := s.Sequences - s.Checked; n > 0 {
		parts = append(parts, fmt.Sprintf("%d unchecked", n))
	}
	return strings.Join(parts, ", ")
}

// kind is the store kind the record's instances ran: key-value when it
// does not say (records from before failovers ran other kinds).
func (f *FailoverRecord) kind() config.StoreKind {
	if f.StoreKind == "" {
		return config.StoreKeyValue
	}
	return f.StoreKind
}

// SummarizeFailover groups the failover records by case, in first-seen
// order; restores of other scenarios are left out (nil when none is a
// failover record).
func SummarizeFailover(restores []Restore) []FailoverSummary {
	var out []FailoverSummary
	for _, g := range GroupByCase(restores) {
		s := FailoverSummary{Case: g.Case, Takeovers: map[string]int{}}
		var det, run []float64
		seqs := map[int]bool{}
		for _, r := range g.Restores {
			f := r.Failover
			if f == nil {
				continue
			}
			s.Guarantee, s.Standby, s.Persistent, s.StoreKind = f.Guarantee, f.Standby, f.Persistent, f.kind()
			s.SessionTimeoutMs = max(s.SessionTimeoutMs, f.SessionTimeoutMs)
			seqs[r.Repeat] = true
			switch {
			case len(f.Tasks) > 0 && !f.GapResolved():
				s.Kills++
				s.Unresolved++
			case len(f.Tasks) > 0:
				s.Kills++
				s.Gaps = append(s.Gaps, f.MaxGapSeconds)
				det, run = append(det, f.DetectionSeconds), append(run, f.RunningSeconds)
				s.Takeovers[f.Takeover]++
			}
			if l := f.Ledger; l != nil {
				s.Checked++
				if l.Exact {
					s.Exact++
				}
				s.Acked, s.Duplicates, s.Lost = s.Acked+l.Acked, s.Duplicates+l.Duplicates, s.Lost+l.Lost
			} else if storesChecked(r) {
				s.Checked++
				if r.Verified {
					s.Exact++
				}
			}
		}
		if len(seqs) == 0 {
			continue
		}
		s.Sequences = len(seqs)
		if len(s.Gaps) > 0 {
			s.MedianGap, s.MinGap, s.MaxGap = Median(s.Gaps), Min(s.Gaps), Max(s.Gaps)
			s.MedianDetection, s.MedianRunning = Median(det), Median(run)
		}
		out = append(out, s)
	}
	return out
}

// storesChecked says whether a failover record is the last kill of a
// sequence that ran the kv topology over a fill (a failover with a query
// load, or of a store kind beyond key-value) and carries its stores'
// verification against the fill and the write load instead of a ledger
// check.
func storesChecked(r Restore) bool {
	f := r.Failover
	overFill := r.Queries != nil || f.kind() != config.StoreKeyValue
	return f.Ledger == nil && f.Kill == f.Kills && overFill && r.Verification.Mode != VerificationLedger && r.Verification.Mode != ""
}

// failoverExample is two failover sequences on kafka-streams: three kills
// whose survivor promotes a standby, and two whose survivor restores.
func failoverExample(kit ExampleKit) []Restore {
	out := failoverExampleSequence(kit, "eos-standby", true, []float64{7.2, 8.1, 9.6})
	return append(out, failoverExampleSequence(kit, "eos-no-standby", false, []float64{14.2, 18.9})...)
}

// failoverExampleSequence is one failover sequence: a kill per gap, the
// survivor promoting a standby or restoring; the ledger checked on the
// last.
func failoverExampleSequence(kit ExampleKit, name string, standby bool, gaps []float64) []Restore {
	start := kit.Start()
	p := kit.Case(name, config.ScenarioFailover, config.EngineKafkaStreams)
	p.Failover.Standby, p.Failover.Kills = standby, len(gaps)
	p.Streams = map[string]string{"processing.guarantee": "exactly_once_v2", "session.timeout.ms": "6000"}
	takeover := TakeoverRestored
	if standby {
		takeover = TakeoverPromoted
	}
	var out []Restore
	for i, gap := range gaps {
		f := &FailoverRecord{Kill: i + 1, Kills: len(gaps), Killed: "i1", Survivor: "i2", Incarnation: 1, AtSeconds: 10 * float64(i+1),
			MaxGapSeconds: gap, MedianGapSeconds: gap - 0.3, DetectionSeconds: 6.4, AssignedSeconds: 6.9, RunningSeconds: gap - 0.2,
			Takeover: takeover, Guarantee: "exactly_once_v2", Standby: standby, Persistent: true, SessionTimeoutMs: 6000, ProcessedIntervalMs: 100}
		for t := int32(0); t < 2; t++ {
			f.Tasks = append(f.Tasks, FailoverTask{Task: fmt.Sprintf("0_%d", t), Partition: t, GapSeconds: gap - float64(t)*0.3, Takeover: takeover})
		}
		if i == len(gaps)-1 {
			f.Ledger = &LedgerCheck{Accounts: 1000, AccountsQueried: 1000, Acked: 30000, Counted: 30000, Exact: true}
		}
		out = append(out, Restore{Case: name, Step: &Step{Case: name, Kind: StepKill, Kill: i + 1}, Repeat: 1, Params: p,
			Partitions: 4, StartedAt: start.Add(time.Duration(i) * time.Minute),
			Verified: true, Verification: verify.Result{Mode: VerificationLedger}, Failover: f})
	}
	return out
}
