package loadgen

// tracker follows a fill's applied records for its expected state (a
// store kind's Tracker): set sees each applied record in log order, states
// folds what a restore at the end serves into the partitions' states.
type tracker interface {
	set(r Record)
	states(g *Generator, states []PartitionState)
}

// lastWrite follows a windowed fill's writes for its expected state: the
// last record applied per (key, window), for the entries a restore at the
// end can still serve. It is one tracker for every kind whose entries live
// in windows and expire by stream time, parameterised by the timestamp
// that moves stream time (moment: a window store's window start, a session
// store's session end).
//
// Stream time is the largest moment applied; an entry whose moment is at
// or before stream time minus the retention is expired (Kafka Streams'
// window and session stores serve from stream time − retention + 1 on,
// drop records of segments out of the retention on restore, and their
// in-memory stores skip such a put and remove such entries before each
// read). A record of an expired entry is dropped, as the store drops it. As
// stream time never goes back an expired entry never returns, so a window
// whose latest moment (its start plus span) expired is forgotten: memory
// holds at most Spec.liveWindows windows of Keys entries.
type lastWrite struct {
	keys      int64
	retention int64
	// span is how far after its window's start an entry's moment can lie
	// (0 for a window store's, whose moment is the start; window − 1 for
	// a session store's, whose longest session ends there).
	span   int64
	stream int64
	// moment is the timestamp of r that moves stream time and ages it.
	moment func(r Record) int64
	// digestKey is the key an entry is digested under, from its
	// changelog key (it may share its bytes).
	digestKey func(changelogKey []byte) []byte
	// last is, by window start, the last record index + 1 per key (0 =
	// never written in that window).
	last map[int64][]int64
	// timestamped says the store keeps each value behind its record's
	// timestamp (a timestamped window store's, StoreKind.TimestampedValue).
	timestamped bool
}

func newLastWrite(spec Spec, span int64, moment func(Record) int64, digestKey func([]byte) []byte) *lastWrite {
	return &lastWrite{keys: spec.Keys, retention: spec.RetentionMs, span: span, stream: -1,
		moment: moment, digestKey: digestKey, last: map[int64][]int64{}, timestamped: spec.StoreKind.TimestampedValue()}
}

// set records that r was applied: it is its entry's last write, and its
// moment may move stream time on. A record of an entry already expired is
// dropped, as the store drops it.
func (w *lastWrite) set(r Record) {
	m := w.moment(r)
	if m > w.stream {
		w.stream = m
		w.expire()
	}
	if !w.live(m) {
		return
	}
	win := w.last[r.WindowStart]
	if win == nil {
		win = make([]int64, w.keys)
		w.last[r.WindowStart] = win
	}
	win[r.KeyID] = r.Index + 1
}

// live says whether an entry of moment m is still served at stream time.
func (w *lastWrite) live(m int64) bool { return m >= w.stream-w.retention+1 }

// expire forgets the windows whose latest entry has expired.
func (w *lastWrite) expire() {
	for start := range w.last {
		if !w.live(start + w.span) {
			delete(w.last, start)
		}
	}
}

// states folds the live entries' last records into states: each live
// entry with a value is one entry, digested under digestKey of its
// changelog key with its value (behind its timestamp for a timestamped
// store). Entries of a kept window that expired before its latest one are
// left out.
func (w *lastWrite) states(g *Generator, states []PartitionState) {
	var buf []byte
	for _, win := range w.last {
		for _, idx := range win {
			if idx == 0 {
				continue
			}
			r := g.At(idx - 1)
			if r.Value == nil || !w.live(w.moment(r)) {
				continue
			}
			key, v := w.digestKey(r.Key), r.Value
			if w.timestamped {
				buf = AppendTimestamped(buf[:0], r.Timestamp, r.Value)
				v = buf
			}
			st := &states[r.Partition]
			st.Keys++
			st.LiveBytes += int64(len(key) + len(v))
			st.Digest.Add(key, v)
		}
	}
}
