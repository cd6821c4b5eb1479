package loadgen

// windowLast follows a window fill's writes for its expected state: the
// last record applied per (key, window), for the windows a restore at the
// end can still show. Stream time is the largest window start applied; a
// window that starts at or before stream time minus the retention is
// expired (Kafka Streams' window store serves a window only from stream
// time − retention + 1 on), and as stream time never goes back it never
// returns, so its records are forgotten as soon as it expires: memory
// holds at most Spec.liveWindows windows of Keys entries.
type windowLast struct {
	keys      int64
	retention int64
	size      int64
	stream    int64
	// last is, by window start, the last record index + 1 per key (0 =
	// never written in that window).
	last map[int64][]int64
}

func newWindowLast(spec Spec) *windowLast {
	return &windowLast{keys: spec.Keys, retention: spec.RetentionMs, size: spec.WindowSizeMs, stream: -1, last: map[int64][]int64{}}
}

// set records that r was applied: it is its window's last write of its
// key, and may move stream time on.
func (w *windowLast) set(r Record) {
	if r.WindowStart > w.stream {
		w.stream = r.WindowStart
		w.expire()
	}
	if !w.live(r.WindowStart) {
		return
	}
	win := w.last[r.WindowStart]
	if win == nil {
		win = make([]int64, w.keys)
		w.last[r.WindowStart] = win
	}
	win[r.KeyID] = r.Index + 1
}

// live says whether window start ws is still served at stream time.
func (w *windowLast) live(ws int64) bool { return ws >= w.stream-w.retention+1 }

// expire forgets the windows stream time has expired.
func (w *windowLast) expire() {
	for ws := range w.last {
		if !w.live(ws) {
			delete(w.last, ws)
		}
	}
}

// states folds the live windows' last records into states: each live
// (key, window) with a value is one entry, digested under the record key
// and window start (WindowDigestKey) with its value.
func (w *windowLast) states(g *Generator, states []PartitionState) {
	for _, win := range w.last {
		for _, idx := range win {
			if idx == 0 {
				continue
			}
			r := g.At(idx - 1)
			if r.Value == nil {
				continue
			}
			key := WindowDigestKey(r.Key)
			st := &states[r.Partition]
			st.Keys++
			st.LiveBytes += int64(len(key) + len(r.Value))
			st.Digest.Add(key, r.Value)
		}
	}
}
