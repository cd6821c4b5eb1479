package loadgen

// sessionLast follows a session fill's writes for its expected state: the
// last record applied per session (key and start; a key's session in a
// window always has the same end), for the sessions a restore at the end
// can still serve. Stream time is the largest session end applied, as
// Kafka Streams' session stores track it (SessionKeySchema.segmentTimestamp
// is the end; InMemorySessionStore likewise); a session that ends at or
// before stream time minus the retention is expired: RocksDB session
// stores serve ends from stream time − retention + 1 on
// (AbstractRocksDBSegmentedBytesStore's reads) and drop records of segments
// out of the retention on restore, InMemorySessionStore skips such a put
// and removes such sessions before each read. As stream time never goes
// back an expired session never returns, so a window whose longest session
// expired is forgotten: memory holds at most Spec.liveWindows windows of
// Keys entries.
type sessionLast struct {
	keys      int64
	retention int64
	size      int64
	stream    int64
	// last is, by session start, the last record index + 1 per key (0 =
	// never written in that session).
	last map[int64][]int64
}

func newSessionLast(spec Spec) *sessionLast {
	return &sessionLast{keys: spec.Keys, retention: spec.RetentionMs, size: spec.WindowSizeMs, stream: -1, last: map[int64][]int64{}}
}

// set records that r was applied: it is its session's last write, and its
// end may move stream time on. A record of a session already expired is
// dropped, as the store drops it.
func (s *sessionLast) set(r Record) {
	if r.SessionEnd > s.stream {
		s.stream = r.SessionEnd
		s.expire()
	}
	if !s.live(r.SessionEnd) {
		return
	}
	win := s.last[r.WindowStart]
	if win == nil {
		win = make([]int64, s.keys)
		s.last[r.WindowStart] = win
	}
	win[r.KeyID] = r.Index + 1
}

// live says whether a session ending at end is still served at stream
// time.
func (s *sessionLast) live(end int64) bool { return end >= s.stream-s.retention+1 }

// expire forgets the windows whose longest session (one window long) has
// expired.
func (s *sessionLast) expire() {
	for start := range s.last {
		if !s.live(start + s.size - 1) {
			delete(s.last, start)
		}
	}
}

// states folds the live sessions' last records into states: each live
// session with a value is one entry, digested under its changelog key
// (record key, end, start: AppendSessionKey) with its value. Sessions of
// a kept window that ended before the retention are left out.
func (s *sessionLast) states(g *Generator, states []PartitionState) {
	for _, win := range s.last {
		for _, idx := range win {
			if idx == 0 {
				continue
			}
			r := g.At(idx - 1)
			if r.Value == nil || !s.live(r.SessionEnd) {
				continue
			}
			st := &states[r.Partition]
			st.Keys++
			st.LiveBytes += int64(len(r.Key) + len(r.Value))
			st.Digest.Add(r.Key, r.Value)
		}
	}
}
