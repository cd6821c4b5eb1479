package loadgen

import (
	"errors"
	"testing"
)

// versionedSpec is a versioned fill of about two hours of event time (a
// record every 700 ms), 40 keys over 3 partitions, 10% tombstones and 30
// minutes of history retention: most of each key's versions fall out of
// it by the end.
func versionedSpec() Spec {
	s := DefaultSpec()
	s.Records, s.Keys, s.Partitions, s.TombstoneRatio = 10_000, 40, 3, 0.1
	s.StoreKind, s.EventStepMicros, s.RetentionMs = KindVersionedKeyValue, 700_000, 30*60_000
	return s
}

// naiveVersioned is what a versioned store serves, the slow way: every
// key's whole timeline (a write at a timestamp already in it replaces that
// version), each non-null version served when it is the key's last or its
// validTo is after its partition's stream time minus the retention.
func naiveVersioned(t *testing.T, s Spec) ([]PartitionState, int64) {
	t.Helper()
	g, err := NewGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	type point struct{ from, idx int64 }
	lines := map[int64][]point{}
	stream := map[int32]int64{}
	for i := range s.Records {
		r := g.At(i)
		stream[r.Partition] = max(stream[r.Partition], r.Timestamp)
		idx := int64(-1)
		if r.Value != nil {
			idx = i
		}
		l := lines[r.KeyID]
		if n := len(l); n > 0 && l[n-1].from == r.Timestamp {
			l[n-1].idx = idx
		} else {
			l = append(l, point{r.Timestamp, idx})
		}
		lines[r.KeyID] = l
	}
	states := make([]PartitionState, s.Partitions)
	for p := range states {
		states[p].Partition = int32(p)
	}
	var stale int64 // non-null versions no longer served
	for _, l := range lines {
		for j, pt := range l {
			if pt.idx < 0 {
				continue
			}
			r := g.At(pt.idx)
			to := NoValidTo
			if j+1 < len(l) {
				to = l[j+1].from
			}
			if to != NoValidTo && to <= stream[r.Partition]-s.RetentionMs {
				stale++
				continue
			}
			k := AppendVersionedDigestKey(nil, r.Key, pt.from)
			v := AppendVersionedDigestValue(nil, to, r.Value)
			states[r.Partition].Keys++
			states[r.Partition].LiveBytes += int64(len(k) + len(v))
			states[r.Partition].Digest.Add(k, v)
		}
	}
	return states, stale
}

// TestVersionedFillExpectsLatestAndHistoryWithinRetention: the derived
// state of a versioned fill is the brute-force one (each key's latest
// version, whatever its age, and its older versions whose validTo is
// within the history retention of stream time), which leaves out most of
// the history the fill wrote.
func TestVersionedFillExpectsLatestAndHistoryWithinRetention(t *testing.T) {
	s := versionedSpec()
	got, tot, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	want, stale := naiveVersioned(t, s)
	var versions int64
	for p := range want {
		if got[p] != want[p] {
			t.Errorf("partition %d: derived %+v, brute force %+v", p, got[p], want[p])
		}
		versions += got[p].Keys
	}
	// 10,000 records over 2 h, 30 min of history: about a quarter of the
	// versions (minus tombstones) are still served, at least one per key.
	if versions < s.Keys || versions > 3500 || stale < 6000 {
		t.Errorf("%d versions served, %d not: want about 2,300 and 6,700", versions, stale)
	}
	if tot.Records != s.Records || tot.Tombstones == 0 {
		t.Errorf("totals %+v", tot)
	}
	// Records 300 µs apart share milliseconds, so a key's second write in
	// one replaces its version there; 1 s of history over 3 s.
	s.EventStepMicros, s.Keys, s.RetentionMs = 300, 4, 1000
	got, _, err = Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ = naiveVersioned(t, s); got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("same-millisecond writes: derived %+v, brute force %+v", got, want)
	}
}

// TestVersionedLatestOutlivesRetention: a key written once at the start
// of a fill whose stream time then runs past the history retention still
// serves that version (the latest never expires), while a key rewritten
// since serves only its versions within the retention.
func TestVersionedLatestOutlivesRetention(t *testing.T) {
	s := DefaultSpec()
	s.Records, s.Keys, s.KeyOrder = 1000, 10, KeysSequential
	s.StoreKind, s.EventStepMicros, s.RetentionMs = KindVersionedKeyValue, 1_000_000, 60_000 // 1 s a record, 1 min history
	got, _, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	// Sequential keys: each key written every 10 s; stream time at
	// 999 s, history from 939 s: versions whose validTo is after it, 6
	// per key (validTo 940..990 s), plus the latest: 7 × 10 keys.
	if got[0].Keys != 70 {
		t.Errorf("%d versions served, want 70 (6 within the history + the latest, per key)", got[0].Keys)
	}
	s.Records = 5 // keys 0..4 written once, at 0..4 s; stream time 4 s
	s.RetentionMs = 1
	got, _, err = Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Keys != 5 {
		t.Errorf("%d versions served, want the 5 latest ones however old", got[0].Keys)
	}
}

// TestVersionedSpecRefusesWindowsAndNoHistory: a versioned fill names its
// history retention and no window size, and holds no more versions within
// it than can be derived in memory.
func TestVersionedSpecRefusesWindowsAndNoHistory(t *testing.T) {
	for field, mod := range map[string]func(*Spec){
		"retention":   func(s *Spec) { s.RetentionMs = 0 },
		"window_size": func(s *Spec) { s.WindowSizeMs = 60_000 },
		"time_range":  func(s *Spec) { s.EventStepMicros = 0 },
	} {
		s := versionedSpec()
		mod(&s)
		var se *SpecError
		if err := s.Validate(); !errors.As(err, &se) || se.Field != field {
			t.Errorf("%s: got %v, want an error naming %s", field, err, field)
		}
	}
	// 300 million records all within a long history: too many versions
	// to derive in memory; the same records over a minute's history fit.
	s := versionedSpec()
	s.Records, s.EventStepMicros, s.RetentionMs = 300_000_000, 1000, 400_000_000
	var se *SpecError
	if err := s.Validate(); !errors.As(err, &se) || se.Field != "retention" {
		t.Errorf("300M versions within the history: %v", err)
	}
	if s.RetentionMs = 60_000; s.Validate() != nil {
		t.Errorf("300M records over a minute's history: %v", s.Validate())
	}
}
