package runs

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/config"

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

// Identity names one record of a run: its step (case, size, scenario step
// with its parameters, a failover's kill among them) and repeat. A run
// holds each identity at most once; a second record of it would be
// counted twice by every median, test and fit.
type Identity struct {
	Step   Step
	Repeat int
}

func (id Identity) String() string {
	s := fmt.Sprintf("case %q repeat %d", id.Step.Name(), id.Repeat)
	if id.Step.Kind == StepKill {
		s += fmt.Sprintf(" kill %d", id.Step.Kill)
	}
	return s
}

// ID is the record's identity within its run (its step's zero value for
// a record without one, which Check refuses).
func (r Restore) ID() Identity {
	id := Identity{Repeat: r.Repeat}
	if r.Step != nil {
		id.Step = *r.Step
	}
	return id
}

// label names the record in an error: by its name and repeat, and a
// failover's kill.
func (r Restore) label() string {
	s := fmt.Sprintf("case %q repeat %d", r.Case, r.Repeat)
	if r.Step != nil && r.Step.Kind == StepKill {
		s += fmt.Sprintf(" kill %d", r.Step.Kill)
	}
	return s
}

// Check reports the first thing in r that a results file written by this
// tool cannot hold: a record without its step or with a step its name,
// scenario or scenario record contradicts, a repeated (step, repeat), a
// verdict its own parts contradict, or a figure that is negative, not
// finite or implausibly large. Load and Save call it, so a file that fails
// it is never read nor written.
func (r *Results) Check() error {
	seen := make(map[Identity]int, len(r.Restores))
	for i := range r.Restores {
		rec := &r.Restores[i]
		if err := rec.check(); err != nil {
			return fmt.Errorf("restores[%d] (%s): %w", i, rec.label(), err)
		}
		id := rec.ID()
		if j, dup := seen[id]; dup {
			return fmt.Errorf("restores[%d] (%s) repeats restores[%d]: a run records each case and repeat once", i, rec.label(), j)
		}
		seen[id] = i
		if err := rec.checkAgainstFill(r.FillOf(rec.Topic), r.Fill != nil || len(r.Fills) > 0); err != nil {
			return fmt.Errorf("restores[%d] (%s): %w", i, rec.label(), err)
		}
		if p := r.Profile; p != nil && p.Repeats > 0 && rec.Repeat > p.Repeats {
			return fmt.Errorf("restores[%d] (%s): repeat %d, but the run's profile ran %d repeats", i, rec.label(), rec.Repeat, p.Repeats)
		}
	}
	if err := r.checkRun(); err != nil {
		return err
	}
	if err := r.checkConfirmations(); err != nil {
		return err
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

// FillOf is the run's fill of topic (its Fill or one of a sweep's Fills),
// or nil.
func (r *Results) FillOf(topic string) *Fill {
	for _, f := range append([]*Fill{r.Fill}, r.Fills...) {
		if f != nil && f.Topic == topic {
			return f
		}
	}
	return nil
}

// checkRun checks what the run says of itself: it finished after it
// started, its host is one, and a complete run holds every repeat of each
// cold-restore case it names.
func (r *Results) checkRun() error {
	// Wall-clock times are not checked against each other: a clock stepped
	// back mid-run (NTP, a resumed VM) would otherwise make every later save
	// of a real run fail.
	if r.Host.CPUs < 0 || r.Host.MemoryBytes < 0 {
		return fmt.Errorf("host: %d CPUs, %d bytes of memory: not a machine", r.Host.CPUs, r.Host.MemoryBytes)
	}
	if r.Complete && r.Profile != nil && r.Profile.Repeats > 0 {
		repeats := map[string]map[int]bool{}
		for _, rec := range r.Restores {
			if rec.IsCold() {
				if repeats[rec.Case] == nil {
					repeats[rec.Case] = map[int]bool{}
				}
				repeats[rec.Case][rec.Repeat] = true
			}
		}
		for c, reps := range repeats {
			if len(reps) != r.Profile.Repeats {
				return fmt.Errorf("case %q: the run says it is complete, but holds %d of the %d repeats its profile ran", c, len(reps), r.Profile.Repeats)
			}
		}
	}
	return nil
}

// IsCold reports whether the record is a cold restore: its case's scenario
// is cold (or unnamed, in files from before scenarios were recorded) and it
// carries no scenario's record. Figures that describe restores (throughput,
// restore time, phases) are drawn from cold restores only: another
// scenario's duration is a gap, a warmup-assignment time or a downtime.
func (r Restore) IsCold() bool { return r.Scenario() == config.ScenarioCold }

// ColdRestores are the results' cold restores, in order.
func (r *Results) ColdRestores() []Restore {
	var out []Restore
	for _, rec := range r.Restores {
		if rec.IsCold() {
			out = append(out, rec)
		}
	}
	return out
}

// checkAgainstFill checks a record against the fill it restored, when the
// run recorded one: restorebench verified it against that fill's expected
// state, so a verification whose partitions or expected values are not the
// fill's, or a cold restore that read fewer records than it restored keys,
// is not one this tool wrote.
func (r *Restore) checkAgainstFill(f *Fill, hasFills bool) error {
	v := r.Verification
	read := f != nil && f.Spec == nil && f.ExpectedFrom == ExpectedFromIndependentRead && len(f.Expected) > 0
	if (f == nil || f.Spec == nil) && !read {
		if hasFills && v.Mode == verify.ModeExpectedState && r.Verified && r.IsCold() {
			return fmt.Errorf("verified against an expected state, but topic %q is not a fill this run recorded", r.Topic)
		}
		return nil
	}
	if v.Mode == verify.ModeUnverified && !read {
		return fmt.Errorf("verification mode unverified on topic %q, which this run filled (its contents are always checked)", r.Topic)
	}
	if v.Mode != verify.ModeExpectedState {
		return nil
	}
	parts := len(f.Expected)
	if f.Spec != nil {
		parts = int(f.Spec.Partitions)
	}
	if r.Partitions > 0 && parts > 0 && r.Partitions != parts {
		return fmt.Errorf("restored %d partitions of a fill of %d", r.Partitions, parts)
	}
	seen := map[int32]bool{}
	for _, p := range v.Partitions {
		if seen[p.Partition] {
			return fmt.Errorf("its verification lists partition %d twice", p.Partition)
		}
		seen[p.Partition] = true
		if r.RestoredPartitions != nil {
			if !slices.Contains(r.RestoredPartitions, p.Partition) {
				return fmt.Errorf("its verification checks partition %d, not among the partitions it restored %v", p.Partition, r.RestoredPartitions)
			}
			continue
		}
		if p.Partition < 0 || (parts > 0 && int(p.Partition) >= parts) {
			return fmt.Errorf("its verification checks partition %d of a fill of %d partitions", p.Partition, parts)
		}
	}
	if !r.Verified || !r.IsCold() {
		return nil
	}
	if len(f.Expected) > 0 {
		want := map[int32]partitionExpected{}
		for _, e := range f.Expected {
			want[e.Partition] = partitionExpected{e.Keys, e.LiveBytes, uint64(e.Digest)}
		}
		if len(v.Partitions) != len(want) {
			return fmt.Errorf("says verified, but checked %d of the fill's %d partitions", len(v.Partitions), len(want))
		}
		for _, p := range v.Partitions {
			w, ok := want[p.Partition]
			got := partitionExpected{p.ExpectedKeys, p.ExpectedLiveBytes, uint64(p.ExpectedDigest)}
			if p.ExpectedLiveBytes == 0 { // not recorded by early schema-1 builds
				got.LiveBytes = w.LiveBytes
			}
			if !ok || w != got {
				return fmt.Errorf("says verified, but partition %d was checked against %d keys, %d live bytes (digest %s), not "+
					"the fill's expected state", p.Partition, p.ExpectedKeys, p.ExpectedLiveBytes, p.ExpectedDigest)
			}
		}
	}
	if keys, _ := v.Totals(); r.Records < keys {
		return fmt.Errorf("a cold restore read %d records but restored %d keys", r.Records, keys)
	}
	return nil
}

// partitionExpected is one partition's expected state as a comparable value.
type partitionExpected struct {
	Keys, LiveBytes int64
	Digest          uint64
}

// checkFigures checks that the record's sub-records are of its kind (a
// restore phase only on a restore, a standby's following phase only on
// its following steps, no model figures on kafka-streams), and a cold
// restore's rates against its own records, bytes and time: they are
// computed from them, never measured apart.
func (r *Restore) checkFigures() error {
	kind := r.StepKind()
	switch {
	case r.Phase != nil && r.measuredByHeadline():
		return fmt.Errorf("a %s record is measured by its own figure, not a restore's, but carries a restore phase", r.Scenario())
	case r.Phase != nil && !kind.IsRestore():
		return fmt.Errorf("a %s step is not a restore, but carries a restore phase", kind)
	case r.Model != nil && r.OnKafkaStreams():
		return fmt.Errorf("a kafka-streams record carries figures only the model measures (model)")
	}
	if sb := r.Standby; sb != nil && sb.Following != nil && kind.IsRestore() {
		return fmt.Errorf("a standby's %s step is a restore, but carries a following phase", kind)
	}
	if !r.IsCold() || !r.Verified {
		return nil
	}
	p := r.Phase
	switch {
	case p == nil && r.Records > 0:
		return fmt.Errorf("restored %d records without a restore phase: a restore takes time", r.Records)
	case p == nil:
		return nil
	case r.Records > 0 && !(p.Seconds > 0):
		return fmt.Errorf("restored %d records in %v s: a restore takes time", r.Records, p.Seconds)
	case p.Seconds <= 0:
		return nil
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.01+0.01*math.Abs(want) }
	if mb := MBPerSec(r.Bytes, p.Seconds); !near(p.MBPerSec, mb) {
		return fmt.Errorf("restore.mb_per_sec %v, but %d bytes in %v s is %v", p.MBPerSec, r.Bytes, p.Seconds, mb)
	}
	if rps := PerSec(r.Records, p.Seconds); !near(p.RecordsPerSec, rps) && math.Abs(p.RecordsPerSec-rps) > 1 {
		return fmt.Errorf("restore.records_per_sec %v, but %d records in %v s is %v", p.RecordsPerSec, r.Records, p.Seconds, rps)
	}
	return nil
}

// figures are the record's figures by their JSON path, with the most a
// measurement of each gives: those of its sub-records only where present.
func (r *Restore) figures() []restoreFigure {
	f := func(name string, v float64, max float64) restoreFigure { return restoreFigure{name, &v, max} }
	out := []restoreFigure{
		f("records", float64(r.Records), MaxPlausibleRecords),
		f("bytes", float64(r.Bytes), MaxPlausibleBytes),
	}
	if p := r.Phase; p != nil {
		out = append(out,
			f("restore.seconds", p.Seconds, MaxPlausibleSeconds),
			f("restore.total_seconds", p.TotalSeconds, MaxPlausibleSeconds),
			f("restore.records_per_sec", p.RecordsPerSec, MaxPlausibleRecords),
			f("restore.mb_per_sec", p.MBPerSec, MaxPlausibleBytes/1e6),
			f("restore.cpu_seconds", p.CPUSeconds, MaxPlausibleSeconds*1024),
			f("restore.disk_bytes", float64(p.DiskBytes), MaxPlausibleBytes),
			f("restore.peak_rss_bytes", float64(p.PeakRSSBytes), MaxPlausibleBytes))
	}
	if m := r.Model; m != nil {
		out = append(out,
			f("model.load_seconds", m.LoadSeconds, MaxPlausibleSeconds),
			f("model.finish_seconds", m.FinishSeconds, MaxPlausibleSeconds))
		if m.Ready != nil {
			out = append(out, f("model.ready.seconds", m.Ready.Seconds, MaxPlausibleSeconds))
		}
	}
	if sb := r.Standby; sb != nil && sb.Following != nil {
		out = append(out,
			f("standby.following.seconds", sb.Following.Seconds, MaxPlausibleSeconds),
			f("standby.following.records_per_sec", sb.Following.RecordsPerSec, MaxPlausibleRecords),
			f("standby.following.mb_per_sec", sb.Following.MBPerSec, MaxPlausibleBytes/1e6))
	}
	return out
}

// checkParams checks the record's settings name a case this tool runs.
func (r *Restore) checkParams() error {
	p := r.Params
	switch {
	case r.Case == "":
		return fmt.Errorf("no case name")
	case p.Engine != "" && !slices.Contains(config.Engines, p.Engine):
		return fmt.Errorf("engine %q is not one of %v", p.Engine, config.Engines)
	case p.Scenario != "" && !slices.Contains(config.Scenarios, p.Scenario):
		return fmt.Errorf("scenario %q is not one of %v", p.Scenario, config.Scenarios)
	case p.Threads < 0 || p.BatchRecords < 0:
		return fmt.Errorf("threads %d, batch_records %d: not settings a restore ran with", p.Threads, p.BatchRecords)
	}
	return nil
}

// nonNegative checks every number of a figures struct (latencies, RocksDB
// counters): none of them is ever negative, NaN or infinite.
func nonNegative(name string, v any) error {
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		f := rv.Field(i)
		var x float64
		switch f.Kind() {
		case reflect.Int, reflect.Int64, reflect.Int32:
			x = float64(f.Int())
		case reflect.Float64, reflect.Float32:
			x = f.Float()
		default:
			continue
		}
		if err := plausible(name+"."+rv.Type().Field(i).Name, x, math.MaxFloat64); err != nil {
			return err
		}
	}
	return nil
}

// check reports a figure out of bounds or a verdict its parts contradict.
func (r *Restore) check() error {
	if r.Repeat < 1 {
		return fmt.Errorf("repeat %d: repeats count from 1", r.Repeat)
	}
	if err := r.checkParams(); err != nil {
		return err
	}
	if err := r.checkStep(); err != nil {
		return err
	}
	if ks := r.KafkaStreams; ks != nil && ks.Metrics != nil {
		if err := ks.Metrics.check(); err != nil {
			return err
		}
	}
	if m := r.Model; m != nil {
		for name, v := range map[string]any{"model.poll_wait": m.PollWait, "model.batch_write": m.BatchWrite, "model.rocksdb": m.RocksDB} {
			if err := nonNegative(name, v); err != nil {
				return err
			}
		}
		if m.Ready != nil {
			if err := nonNegative("model.ready.reads", m.Ready.Reads); err != nil {
				return err
			}
			if err := nonNegative("model.ready.rocksdb_after", m.Ready.After); err != nil {
				return err
			}
		}
	}
	for _, f := range r.figures() {
		if err := plausible(f.name, *f.value, f.max); err != nil {
			return err
		}
	}
	if r.Partitions < 0 {
		return fmt.Errorf("partitions %d is negative", r.Partitions)
	}
	if err := r.checkRestoredPartitions(); err != nil {
		return err
	}
	if err := r.checkSampleCopy(); err != nil {
		return err
	}
	if r.Read != nil {
		if err := r.Read.check(); err != nil {
			return err
		}
	}
	if err := r.checkFigures(); err != nil {
		return err
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
			// Files of early schema-1 builds did not record expected live
			// bytes (0 there): only a recorded figure is compared.
			matches := p.ActualKeys == p.ExpectedKeys && p.ActualDigest == p.ExpectedDigest && (p.ExpectedLiveBytes == 0 || p.LiveBytes == p.ExpectedLiveBytes)
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
		if r.Failover == nil {
			return contradiction("a ledger verification belongs to a failover measurement, and it has none")
		}
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
	if f.Spec != nil {
		if err := f.Spec.Validate(); err != nil {
			return fmt.Errorf("spec: %w", err)
		}
	}
	for _, x := range []struct {
		name  string
		value float64
		max   float64
	}{
		{"records_per_sec", f.RecordsPerSec, MaxPlausibleRecords},
		{"mb_per_sec", f.MBPerSec, MaxPlausibleBytes / 1e6},
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
		return r.Failover == nil && (r.Error != "" || !r.Verified)
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
	case r.Error != "":
		return fmt.Sprintf("run %s says it is complete, but records the error %s", r.RunID, quoteShort(r.Error))
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

// checkRestoredPartitions refuses a sampled restore's partition list that
// is not ascending, names a partition twice or below 0, or disagrees with
// the count it restored.
func (r *Restore) checkRestoredPartitions() error {
	ps := r.RestoredPartitions
	if ps == nil {
		return nil
	}
	if len(ps) == 0 || len(ps) != r.Partitions {
		return fmt.Errorf("restored_partitions lists %d partitions, but it restored %d", len(ps), r.Partitions)
	}
	for i, p := range ps {
		if p < 0 || (i > 0 && p <= ps[i-1]) {
			return fmt.Errorf("restored_partitions %v: not distinct partitions in ascending order", ps)
		}
	}
	return nil
}

// checkSampleCopy refuses a sample_copy on a restore of every partition
// (there is nothing to copy), without a topic, or with a negative or
// implausible figure.
func (r *Restore) checkSampleCopy() error {
	c := r.SampleCopy
	if c == nil {
		return nil
	}
	if r.RestoredPartitions == nil {
		return fmt.Errorf("sample_copy on a restore of every partition (no restored_partitions)")
	}
	if c.Topic == "" {
		return fmt.Errorf("sample_copy names no topic")
	}
	if c.Records < 0 || c.Bytes < 0 {
		return fmt.Errorf("sample_copy: records %d or bytes %d is negative", c.Records, c.Bytes)
	}
	return plausible("sample_copy.seconds", c.Seconds, MaxPlausibleSeconds)
}
