package runs

import (
	"fmt"
	"math"
	"strings"

	"github.com/restorebench/restorebench/verify"
)

// Plausibility bounds for figures read from a results file. A figure past
// them was not measured by this tool (a crafted or corrupted file), and an
// answer computed from it would be nonsense presented as a measurement.
const (
	// MaxPlausibleSeconds bounds any duration: 30 days.
	MaxPlausibleSeconds = 30 * 24 * 3600
	// MaxPlausibleBytes bounds any byte count: 1 PB.
	MaxPlausibleBytes = 1e15
	// MaxPlausibleRecords bounds any record count: 10^13.
	MaxPlausibleRecords = 1e13
)

// Identity names one record of a run: its case, repeat and, for a
// scenario that records several steps under one case name, the step (a
// failover's kill). A run holds each identity at most once; a second record
// of it would be counted twice by every median, test and fit.
type Identity struct {
	Case   string
	Repeat int
	Step   string
}

func (id Identity) String() string {
	s := fmt.Sprintf("case %q repeat %d", id.Case, id.Repeat)
	if id.Step != "" {
		s += " " + id.Step
	}
	return s
}

// ID is the record's identity within its run.
func (r Restore) ID() Identity {
	id := Identity{Case: r.Case, Repeat: r.Repeat}
	if r.Failover != nil {
		id.Step = fmt.Sprintf("kill %d", r.Failover.Kill)
	}
	return id
}

// Check reports the first thing in r that a results file written by this
// tool cannot hold: a repeated (case, repeat), a verdict its own parts
// contradict, or a figure that is negative, not finite or implausibly large.
// Load and Save call it, so a file that fails it is never read nor written.
func (r *Results) Check() error {
	seen := make(map[Identity]int, len(r.Restores))
	for i := range r.Restores {
		rec := &r.Restores[i]
		id := rec.ID()
		if j, dup := seen[id]; dup {
			return fmt.Errorf("restores[%d] (%s) repeats restores[%d]: a run records each case and repeat once", i, id, j)
		}
		seen[id] = i
		if err := rec.check(); err != nil {
			return fmt.Errorf("restores[%d] (%s): %w", i, id, err)
		}
	}
	for i, f := range append([]*Fill{r.Fill}, r.Fills...) {
		if f == nil {
			continue
		}
		if err := f.check(); err != nil {
			if i == 0 {
				return fmt.Errorf("fill: %w", err)
			}
			return fmt.Errorf("fills[%d]: %w", i-1, err)
		}
	}
	return nil
}

// check reports a figure out of bounds or a verdict its parts contradict.
func (r *Restore) check() error {
	if r.Repeat < 1 {
		return fmt.Errorf("repeat %d: repeats count from 1", r.Repeat)
	}
	for _, f := range []struct {
		name  string
		value float64
		max   float64
	}{
		{"duration_seconds", r.DurationSeconds, MaxPlausibleSeconds},
		{"load_seconds", r.LoadSeconds, MaxPlausibleSeconds},
		{"finish_seconds", r.FinishSeconds, MaxPlausibleSeconds},
		{"total_seconds", r.TotalSeconds, MaxPlausibleSeconds},
		{"cpu_seconds", r.CPUSeconds, MaxPlausibleSeconds * 1024},
		{"records", float64(r.Records), MaxPlausibleRecords},
		{"bytes", float64(r.Bytes), MaxPlausibleBytes},
		{"disk_bytes", float64(r.DiskBytes), MaxPlausibleBytes},
		{"peak_rss_bytes", float64(r.PeakRSSBytes), MaxPlausibleBytes},
		{"records_per_sec", r.RecordsPerSec, MaxPlausibleRecords},
		{"mb_per_sec", r.MBPerSec, MaxPlausibleBytes / 1e6},
	} {
		if err := plausible(f.name, f.value, f.max); err != nil {
			return err
		}
	}
	if r.Ready != nil {
		if err := plausible("ready.seconds", r.Ready.Seconds, MaxPlausibleSeconds); err != nil {
			return err
		}
	}
	if r.Partitions < 0 {
		return fmt.Errorf("partitions %d is negative", r.Partitions)
	}
	return r.checkVerdict()
}

// checkVerdict derives the verdict from the verification's parts: a record
// says verified only when what it checked says so too.
func (r *Restore) checkVerdict() error {
	v := r.Verification
	for _, p := range v.Partitions {
		if err := plausible(fmt.Sprintf("partition %d actual_keys", p.Partition), float64(p.ActualKeys), MaxPlausibleRecords); err != nil {
			return err
		}
		if err := plausible(fmt.Sprintf("partition %d live_bytes", p.Partition), float64(p.LiveBytes), MaxPlausibleBytes); err != nil {
			return err
		}
	}
	if !r.Verified {
		return nil
	}
	contradiction := func(why string) error {
		return fmt.Errorf("says verified, but %s: the verdict contradicts its own verification", why)
	}
	if r.Error != "" {
		return contradiction("it records the error " + quoteShort(r.Error))
	}
	if v.Problem != "" {
		return contradiction("its verification records the problem " + quoteShort(v.Problem))
	}
	switch v.Mode {
	case verify.ModeExpectedState:
		if len(v.Partitions) == 0 {
			return contradiction("its verification checked no partition")
		}
		var bad []string
		for _, p := range v.Partitions {
			matches := p.ActualKeys == p.ExpectedKeys && p.ActualDigest == p.ExpectedDigest && p.LiveBytes == p.ExpectedLiveBytes
			if !p.OK || !matches {
				bad = append(bad, fmt.Sprintf("partition %d holds %d keys, %d live bytes (digest %s), expected %d keys, %d live bytes (digest %s), ok %t",
					p.Partition, p.ActualKeys, p.LiveBytes, p.ActualDigest, p.ExpectedKeys, p.ExpectedLiveBytes, p.ExpectedDigest, p.OK))
			}
		}
		if len(bad) > 0 {
			if len(bad) > 3 {
				bad = append(bad[:3], fmt.Sprintf("and %d more", len(bad)-3))
			}
			return contradiction(strings.Join(bad, "; "))
		}
	case VerificationLedger:
		if f := r.Failover; f != nil && f.Ledger != nil {
			c := f.Ledger
			if !c.Exact || c.Duplicates != 0 || c.Lost != 0 || c.Mismatched != 0 || c.Unexplained != 0 {
				return contradiction(fmt.Sprintf("its ledger check found %d counted twice, %d lost, %d accounts differing (exact %t)",
					c.Duplicates, c.Lost, c.Mismatched, c.Exact))
			}
		}
	case verify.ModeUnverified:
		return contradiction("its contents were only counted (verification mode unverified)")
	default:
		return contradiction(fmt.Sprintf("its verification mode is %q, which this build does not know", v.Mode))
	}
	return nil
}

// check reports a fill figure out of bounds.
func (f *Fill) check() error {
	for _, x := range []struct {
		name  string
		value float64
		max   float64
	}{
		{"records", float64(f.Records), MaxPlausibleRecords},
		{"tombstones", float64(f.Tombstones), MaxPlausibleRecords},
		{"bytes", float64(f.Bytes), MaxPlausibleBytes},
		{"duration_seconds", f.DurationSeconds, MaxPlausibleSeconds},
	} {
		if err := plausible(x.name, x.value, x.max); err != nil {
			return err
		}
	}
	return nil
}

// plausible says why value is not a figure this tool measures: negative,
// not finite, or above max.
func plausible(name string, value, max float64) error {
	switch {
	case math.IsNaN(value) || math.IsInf(value, 0):
		return fmt.Errorf("%s is %v: not a measurement", name, value)
	case value < 0:
		return fmt.Errorf("%s is %v: a measured figure is never negative", name, value)
	case value > max:
		return fmt.Errorf("%s is %v, above the plausible %v: not a measurement of this tool", name, value, max)
	}
	return nil
}

// quoteShort quotes s, cut to 120 bytes, for an error message.
func quoteShort(s string) string {
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Failed reports whether the record is a failed measurement: it errored, or
// its contents were checked and did not verify. A failover's ledger verdict
// is judged by its scenario (at-least-once duplicates are not a failure)
// and a topic restorebench did not fill is only counted, so neither fails
// here unless it errored before its check.
func (r Restore) Failed() bool {
	switch r.Verification.Mode {
	case VerificationLedger:
		return false
	case verify.ModeUnverified:
		return r.Error != ""
	}
	return r.Error != "" || !r.Verified
}

// IncompleteReason says why the run's results are partial, or "" when the
// run finished and every record it holds is a finished measurement. A file
// that says complete while holding failed records is partial too: the
// verdict comes from the records, not from the flag alone.
func (r *Results) IncompleteReason() string {
	switch {
	case r.Error == ErrorInProgress:
		return fmt.Sprintf("run %s never finished (the process was killed or is still running); %d restore(s) were recorded before that", r.RunID, len(r.Restores))
	case !r.Complete && r.Failed > 0:
		return fmt.Sprintf("run %s ran every case, but %s", r.RunID, r.Error)
	case !r.Complete && r.Error != "":
		return fmt.Sprintf("run %s stopped early: %s; %d restore(s) finished", r.RunID, r.Error, len(r.Restores))
	case !r.Complete:
		return fmt.Sprintf("run %s is marked incomplete; %d restore(s) finished", r.RunID, len(r.Restores))
	}
	var failed []string
	for _, rec := range r.Restores {
		if rec.Failed() {
			failed = append(failed, fmt.Sprintf("%s #%d", rec.Case, rec.Repeat))
		}
	}
	if len(failed) == 0 {
		return ""
	}
	n := len(failed)
	if n > 5 {
		failed = append(failed[:5], fmt.Sprintf("and %d more", n-5))
	}
	return fmt.Sprintf("run %s says it is complete, but %d measurement(s) failed: %s", r.RunID, n, strings.Join(failed, ", "))
}
