package loadgen

import (
	"bytes"
	"testing"
)

// sessionSpec is a session fill over two hours of event time, one record
// a second, five-minute windows (sessions of 75 s to 5 min) and a
// retention of 62.5 minutes: about the first half of its sessions expire
// by the end, and as the retention is not a whole number of windows it
// cuts through one window, whose two longer sessions live and two shorter
// ones expire.
func sessionSpec() Spec {
	s := windowSpec()
	s.StoreKind, s.RetentionMs = KindSession, 62*60_000+30_000
	return s
}

// session names one session of a fill: its record key and start.
type session struct{ key, start int64 }

// naiveSessionState is the session store's expected state the slow way:
// the last record per session over all records, kept when the session
// ends after the largest session end minus the retention (by end, as
// Kafka Streams' session stores expire; byStart expires by the start
// instead, which a store must not).
func naiveSessionState(t *testing.T, s Spec, byStart bool) []PartitionState {
	t.Helper()
	g, err := NewGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	last := map[session]int64{}
	var stream int64
	for i := range s.Records {
		r := g.At(i)
		last[session{r.KeyID, r.WindowStart}] = i
		stream = max(stream, r.SessionEnd)
		if byStart {
			stream = max(stream, r.WindowStart)
		}
	}
	states := make([]PartitionState, s.Partitions)
	for p := range states {
		states[p].Partition = int32(p)
	}
	for _, i := range last {
		r := g.At(i)
		t := r.SessionEnd
		if byStart {
			t = r.WindowStart
		}
		if r.Value == nil || t < stream-s.RetentionMs+1 {
			continue
		}
		states[r.Partition].Keys++
		states[r.Partition].LiveBytes += int64(len(r.Key) + len(r.Value))
		states[r.Partition].Digest.Add(r.Key, r.Value)
	}
	return states
}

// TestSessionFillExpectsTheLiveSessionsOnly: a session fill whose event
// time spans twice the retention expects the sessions that end within the
// retention of the last end, the state a brute-force count gives; some
// windows keep some of their keys' sessions and lose the others (the
// retention cuts by session end), so expiring by start gives another state.
func TestSessionFillExpectsTheLiveSessionsOnly(t *testing.T) {
	s := sessionSpec()
	got, tot, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	want := naiveSessionState(t, s, false)
	byStart := naiveSessionState(t, s, true)
	var keys, startKeys int64
	for p := range want {
		if got[p] != want[p] {
			t.Errorf("partition %d: derived %+v, brute force %+v", p, got[p], want[p])
		}
		keys += got[p].Keys
		startKeys += byStart[p].Keys
	}
	// 24 windows of 5 min over 2 h; sessions ending within the last hour:
	// 12 windows' worth, 50 keys each at most.
	if keys == 0 || keys > 13*50 || keys < 10*50 {
		t.Errorf("%d live sessions, want about 12 windows × 50 keys", keys)
	}
	if startKeys == keys {
		t.Errorf("expiring by session start keeps %d sessions, as many as by end: the fill does not tell them apart", startKeys)
	}
	if tot.Records != 7200 {
		t.Errorf("%d records, want 7200", tot.Records)
	}
	partial := map[int64]map[bool]bool{} // by window start: kept, expired
	g, _ := NewGenerator(s)
	var stream int64
	for i := range s.Records {
		stream = max(stream, g.At(i).SessionEnd)
	}
	for i := range s.Records {
		r := g.At(i)
		if partial[r.WindowStart] == nil {
			partial[r.WindowStart] = map[bool]bool{}
		}
		partial[r.WindowStart][r.SessionEnd >= stream-s.RetentionMs+1] = true
	}
	cut := 0
	for _, m := range partial {
		if m[true] && m[false] {
			cut++
		}
	}
	if cut == 0 {
		t.Error("no window has both live and expired sessions: the retention must cut through a window key by key")
	}
}

// TestSessionRecordsCarryTheirSessionInTheKey: every record of a session
// fill has Kafka Streams' changelog key (record key, session end, session
// start), a session within the window of its event time whose length is
// SessionLength of its key, the session end as its timestamp and the
// partition of its record key.
func TestSessionRecordsCarryTheirSessionInTheKey(t *testing.T) {
	s := sessionSpec()
	g, err := NewGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	lengths := map[int64]bool{}
	for i := range int64(500) {
		r := g.At(i)
		key, start, end, err := SplitSessionKey(r.Key)
		if err != nil {
			t.Fatal(err)
		}
		event := s.timeOf(i)
		if start != r.WindowStart || end != r.SessionEnd || r.Timestamp != end || start != s.windowStartOf(event) || end-start != SessionLength(key, s.WindowSizeMs) || end >= start+s.WindowSizeMs {
			t.Fatalf("record %d: key %x, session [%d, %d], time %d, event %d", i, r.Key, start, end, r.Timestamp, event)
		}
		if want := AppendKey(nil, r.KeyID); !bytes.Equal(key, want) || r.Partition != PartitionFor(want, s.Partitions) {
			t.Fatalf("record %d: record key %q partition %d, want %q partition %d", i, key, r.Partition, want, PartitionFor(want, s.Partitions))
		}
		lengths[end-start] = true
	}
	if len(lengths) != 4 {
		t.Errorf("session lengths %v, want four (a quarter to all of the window)", lengths)
	}
}

// TestSessionKeyIsKafkaStreamsLayout: the changelog key is the record key,
// then the end, then the start, each 8 bytes big-endian
// (SessionKeySchema.toBinary), and splits back.
func TestSessionKeyIsKafkaStreamsLayout(t *testing.T) {
	k := AppendSessionKey(nil, []byte("ab"), 0x0102, 0x0304)
	want := []byte{'a', 'b', 0, 0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 1, 2}
	if !bytes.Equal(k, want) {
		t.Fatalf("key %x, want %x", k, want)
	}
	key, start, end, err := SplitSessionKey(k)
	if err != nil || string(key) != "ab" || start != 0x0102 || end != 0x0304 {
		t.Fatalf("split %q %d %d %v", key, start, end, err)
	}
	if _, _, _, err := SplitSessionKey(make([]byte, 15)); err == nil {
		t.Fatal("a 15-byte key split as a session key")
	}
}

// TestSessionSettingsAreChecked: a session fill needs a window and a
// retention at least as long, and lookups by key refuse it.
func TestSessionSettingsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*Spec)
	}{
		{"window_size", func(s *Spec) { s.WindowSizeMs = 0 }},
		{"retention", func(s *Spec) { s.RetentionMs = s.WindowSizeMs - 1 }},
		{"time_range", func(s *Spec) { s.EventStepMicros = 0 }},
	} {
		s := sessionSpec()
		tc.edit(&s)
		se, ok := s.Validate().(*SpecError)
		if !ok || se.Field != tc.field {
			t.Errorf("%+v: error %v, want one naming %s", s, s.Validate(), tc.field)
		}
	}
	if err := sessionSpec().Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewReadChecker(sessionSpec()); err == nil {
		t.Error("a read checker over a session fill")
	}
}
