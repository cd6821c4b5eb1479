package loadgen

import "math"

// versionedHistory follows a versioned fill's writes for its expected
// state: what Kafka Streams' RocksDBVersionedStore serves once it restored
// them. Its logical contents, from RocksDBVersionedStore's put and get
// (Kafka Streams 3.5 to 4.4):
//
//   - Each key has a timeline of versions: a write at timestamp t starts a
//     version valid from t (validFrom, inclusive) until the key's next
//     write at a later timestamp (validTo, exclusive); a second write at
//     the same t replaces the first (a put with timestamp equal to the
//     latest's overwrites it). A tombstone starts a null version: it ends
//     the version before it and is never served.
//   - The latest version (no validTo) sits in the latest value store and is
//     served whatever its age (get(key)).
//   - Older versions sit in segments by validTo and are served by
//     get(key, asOf) only for asOf ≥ observedStreamTime − historyRetention,
//     so a version is served while its validTo > stream time − retention
//     (stream time: the largest record timestamp the store's partition
//     restored). Versions beyond it may linger in a live segment but no
//     read returns them.
//
// Stream time only grows, so a version that stops being served never is
// again, and is forgotten at once: memory holds each key's versions within
// the retention. The fill writes in timestamp order, so no write lands
// behind the key's latest version (out-of-order writes, which Kafka
// Streams inserts into the history or drops past the grace period, are
// not generated).
type versionedHistory struct {
	retention int64
	stream    []int64          // by partition: the largest timestamp applied
	points    [][]versionPoint // by key, oldest first
}

// versionPoint is one version of a key: from its validFrom; idx is its
// record's index + 1, or 0 for a tombstone's null version.
type versionPoint struct {
	from int64
	idx  int64
}

func newVersionedHistory(spec Spec) *versionedHistory {
	h := &versionedHistory{retention: spec.RetentionMs, stream: make([]int64, spec.Partitions), points: make([][]versionPoint, spec.Keys)}
	for p := range h.stream {
		h.stream[p] = math.MinInt64
	}
	return h
}

// set records that r was applied to its key's timeline.
func (h *versionedHistory) set(r Record) {
	h.stream[r.Partition] = max(h.stream[r.Partition], r.Timestamp)
	var idx int64
	if r.Value != nil {
		idx = r.Index + 1
	}
	pts := h.points[r.KeyID]
	if n := len(pts); n > 0 && pts[n-1].from >= r.Timestamp {
		pts[n-1].idx = idx // the same timestamp (never earlier: the fill writes in order) replaces it
	} else {
		pts = append(pts, versionPoint{from: r.Timestamp, idx: idx})
	}
	h.points[r.KeyID] = h.prune(pts, h.stream[r.Partition])
}

// prune drops the versions no longer served at stream time st (validTo at
// or before st − retention) and leading null versions, which end nothing
// still served.
func (h *versionedHistory) prune(pts []versionPoint, st int64) []versionPoint {
	k := 0
	for k < len(pts)-1 && (pts[k+1].from <= st-h.retention || pts[k].idx == 0) {
		k++
	}
	if k == len(pts)-1 && pts[k].idx == 0 {
		k++ // only a tombstone left: the key serves nothing
	}
	if k == 0 {
		return pts
	}
	return append(pts[:0], pts[k:]...)
}

// states folds the served versions into states: each one entry, digested
// under the record key and validFrom (AppendVersionedDigestKey) with its
// validTo and value (AppendVersionedDigestValue).
func (h *versionedHistory) states(g *Generator, states []PartitionState) {
	var key, val []byte
	for _, pts := range h.points {
		for j, pt := range pts {
			if pt.idx == 0 {
				continue
			}
			r := g.At(pt.idx - 1)
			to := NoValidTo
			if j+1 < len(pts) {
				to = pts[j+1].from
			}
			if to != NoValidTo && to <= h.stream[r.Partition]-h.retention {
				continue
			}
			key = AppendVersionedDigestKey(key[:0], r.Key, pt.from)
			val = AppendVersionedDigestValue(val[:0], to, r.Value)
			st := &states[r.Partition]
			st.Keys++
			st.LiveBytes += int64(len(key) + len(val))
			st.Digest.Add(key, val)
		}
	}
}
