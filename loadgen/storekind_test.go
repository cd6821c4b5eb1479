package loadgen

import (
	"bytes"
	"testing"
)

// windowSpec is a window fill over two hours of event time, one record a
// second (3600 µs × 1000 per record), five-minute windows and an hour's
// retention: the first half of its windows expire by the end.
func windowSpec() Spec {
	s := DefaultSpec()
	s.Records, s.Keys, s.Partitions, s.TombstoneRatio = 7200, 50, 3, 0.05
	s.StoreKind, s.EventStepMicros, s.WindowSizeMs, s.RetentionMs = KindWindow, 1_000_000, 5*60_000, 60*60_000
	return s
}

// naiveWindowState is the window store's expected state the slow way: the
// last record per (key, window start) over all records, kept when its
// window starts after the last window start minus the retention.
func naiveWindowState(t *testing.T, s Spec) []PartitionState {
	t.Helper()
	g, err := NewGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	type win struct {
		key int64
		ws  int64
	}
	last := map[win]int64{}
	var stream int64
	for i := range s.Records {
		r := g.At(i)
		last[win{r.KeyID, r.WindowStart}] = i
		stream = max(stream, r.WindowStart)
	}
	states := make([]PartitionState, s.Partitions)
	for p := range states {
		states[p].Partition = int32(p)
	}
	for w, i := range last {
		r := g.At(i)
		if r.Value == nil || w.ws < stream-s.RetentionMs+1 {
			continue
		}
		k := WindowDigestKey(r.Key)
		states[r.Partition].Keys++
		states[r.Partition].LiveBytes += int64(len(k) + len(r.Value))
		states[r.Partition].Digest.Add(k, r.Value)
	}
	return states
}

// TestWindowFillExpectsTheLiveWindowsOnly: a window fill whose event time
// spans twice the retention expects the windows of the last retention
// only, the same state a brute-force count over every (key, window) gives,
// and about half of what the fill wrote.
func TestWindowFillExpectsTheLiveWindowsOnly(t *testing.T) {
	s := windowSpec()
	got, tot, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	want := naiveWindowState(t, s)
	var keys int64
	for p := range want {
		if got[p] != want[p] {
			t.Errorf("partition %d: derived %+v, brute force %+v", p, got[p], want[p])
		}
		keys += got[p].Keys
	}
	// 24 windows of 5 min over 2 h, 13 live (window starts after
	// stream time − 1 h: 60/5 + the current one), 50 keys each at most.
	if keys == 0 || keys > 13*50 || keys < 11*50 {
		t.Errorf("%d live (key, window) entries, want about 13 windows × 50 keys", keys)
	}
	if tot.Records != 7200 {
		t.Errorf("%d records, want 7200", tot.Records)
	}
}

// TestWindowRecordsCarryTheirWindowInTheKey: every record of a window fill
// has Kafka Streams' changelog key (record key, window start, sequence 0),
// its event time inside its window, and the partition of its record key.
func TestWindowRecordsCarryTheirWindowInTheKey(t *testing.T) {
	s := windowSpec()
	g, err := NewGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(500) {
		r := g.At(i)
		key, ws, err := SplitWindowKey(r.Key)
		if err != nil {
			t.Fatal(err)
		}
		if ws != r.WindowStart || r.Timestamp < ws || r.Timestamp >= ws+s.WindowSizeMs || !bytes.HasSuffix(r.Key, []byte{0, 0, 0, 0}) {
			t.Fatalf("record %d: key %x, window %d, time %d", i, r.Key, ws, r.Timestamp)
		}
		if want := AppendKey(nil, r.KeyID); !bytes.Equal(key, want) || r.Partition != PartitionFor(want, s.Partitions) {
			t.Fatalf("record %d: record key %q partition %d, want %q partition %d", i, key, r.Partition, want, PartitionFor(want, s.Partitions))
		}
	}
}

// TestTimestampedFillDigestsTheTimestamp: a timestamped fill's expected
// state is the key-value fill's with each value behind its record's
// timestamp: same keys, 8 more bytes each, another digest.
func TestTimestampedFillDigestsTheTimestamp(t *testing.T) {
	kv := DefaultSpec()
	kv.Records, kv.Keys = 2000, 300
	ts := kv
	ts.StoreKind, ts.EventStepMicros = KindTimestampedKeyValue, 1000
	a, _, err := Expect(kv)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Expect(ts)
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Keys != b[0].Keys || b[0].LiveBytes != a[0].LiveBytes+8*a[0].Keys || a[0].Digest == b[0].Digest {
		t.Errorf("key-value %+v, timestamped %+v", a[0], b[0])
	}
}

// TestTimestampedWindowFillDigestsTheTimestamp: a timestamped window
// fill writes the window fill's records, and expects the same live windows
// with each value behind its record's timestamp: the same entries, 8 more
// bytes each, another digest.
func TestTimestampedWindowFillDigestsTheTimestamp(t *testing.T) {
	w := windowSpec()
	tw := w
	tw.StoreKind = KindTimestampedWindow
	gw, err := NewGenerator(w)
	if err != nil {
		t.Fatal(err)
	}
	gt, err := NewGenerator(tw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(200) {
		a, b := gw.At(i), gt.At(i)
		if !bytes.Equal(a.Key, b.Key) || !bytes.Equal(a.Value, b.Value) || a.Timestamp != b.Timestamp {
			t.Fatalf("record %d: window %x=%x at %d, timestamped window %x=%x at %d", i, a.Key, a.Value, a.Timestamp, b.Key, b.Value, b.Timestamp)
		}
	}
	a, _, err := Expect(w)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Expect(tw)
	if err != nil {
		t.Fatal(err)
	}
	for p := range a {
		if a[p].Keys == 0 || a[p].Keys != b[p].Keys || b[p].LiveBytes != a[p].LiveBytes+8*a[p].Keys || a[p].Digest == b[p].Digest {
			t.Errorf("partition %d: window %+v, timestamped window %+v", p, a[p], b[p])
		}
	}
}

// TestStoreKindSettingsAreChecked: each kind refuses the settings it does
// not read, and a window fill needs a window and a retention at least as
// long.
func TestStoreKindSettingsAreChecked(t *testing.T) {
	base := windowSpec()
	for _, tc := range []struct {
		field string
		edit  func(*Spec)
	}{
		{"store_kind", func(s *Spec) { s.StoreKind = "sessions" }},
		{"time_range", func(s *Spec) { s.StoreKind = ""; s.WindowSizeMs, s.RetentionMs = 0, 0 }},
		{"time_range", func(s *Spec) { s.EventStepMicros = 0 }},
		{"window_size", func(s *Spec) { s.StoreKind = KindTimestampedKeyValue }},
		{"window_size", func(s *Spec) { s.WindowSizeMs = 0 }},
		{"retention", func(s *Spec) { s.RetentionMs = s.WindowSizeMs - 1 }},
	} {
		s := base
		tc.edit(&s)
		err := s.Validate()
		se, ok := err.(*SpecError)
		if !ok || se.Field != tc.field {
			t.Errorf("%+v: error %v, want one naming %s", s, err, tc.field)
		}
	}
}
