package loadgen

import (
	"encoding/binary"
	"fmt"
)

// KindSession is a session store's changelog (Stores.persistentSessionStore
// or Stores.inMemorySessionStore): each changelog key is the record key,
// the session end and the session start (8 bytes each, big-endian), as
// Kafka Streams' SessionKeySchema.toBinary lays it out, and a restore drops
// the sessions that end at or before stream time (the largest session
// end) minus the retention.
//
// A session fill's sessions are derived from the spec alone: record i's
// session starts at the tumbling window (WindowSizeMs) of its event time
// and lasts a quarter, half, three quarters or all of the window by its
// key's last byte (SessionLength). So every write of a key within one
// window addresses the same session (the last write wins: a session
// aggregate updated in place), a tombstone removes that session (as a
// session merge removes the sessions it replaces), and the sessions of one
// window end at four different times: a retention cuts through a window
// key by key, so a store that expired sessions by their start, not their
// end, would not verify. Each record's timestamp is its session's end, as
// the changelog record of a session aggregate carries the time of the
// event that last extended the session; records are therefore not in
// timestamp order across keys.
const KindSession StoreKind = "session"

// sessionSuffix is the bytes a session store's changelog key adds to the
// record key: the session end and start.
const sessionSuffix = 8 + 8

func init() {
	registerFillKind(FillKindDef{Kind: KindSession, Order: 40, Timed: true, Segmented: true, KeySuffix: sessionSuffix, StampsAhead: true,
		validate: func(s Spec) error {
			return s.validateWindows(" a session lasts up to: the DSL refuses a session store whose retention is under its inactivity gap plus grace")
		},
		stamp: func(g *Generator, r *Record) { g.stampSession(r) },
		// Stream time is the largest session end applied, as Kafka
		// Streams' session stores track it (SessionKeySchema.segmentTimestamp
		// is the end; InMemorySessionStore likewise); a window's longest
		// session ends window − 1 after its start. A session is digested
		// under its changelog key (record key, end, start).
		tracker: func(s Spec) tracker {
			return newLastWrite(s, s.WindowSizeMs-1, func(r Record) int64 { return r.SessionEnd }, func(k []byte) []byte { return k })
		}})
}

// AppendSessionKey appends a session store's changelog key: key, the
// session end and the session start in milliseconds (big-endian), Kafka
// Streams' SessionKeySchema.toBinary. It is also the key a session is
// digested under: the store's own key for it, from which the driver's
// Windowed key (record key, start, end) is rebuilt.
func AppendSessionKey(dst, key []byte, start, end int64) []byte {
	dst = append(dst, key...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(end))
	return binary.BigEndian.AppendUint64(dst, uint64(start))
}

// SplitSessionKey splits a session store's changelog key into the record
// key, the session start and its end; an error when it is too short.
func SplitSessionKey(changelogKey []byte) (key []byte, start, end int64, err error) {
	n := len(changelogKey) - sessionSuffix
	if n < 0 {
		return nil, 0, 0, fmt.Errorf("a %d-byte key is not a session store's changelog key (record key, 8-byte end, 8-byte start)", len(changelogKey))
	}
	end = int64(binary.BigEndian.Uint64(changelogKey[n:]))
	start = int64(binary.BigEndian.Uint64(changelogKey[n+8:]))
	return changelogKey[:n], start, end, nil
}

// SessionLength is how long after its start a session fill's session of
// key ends, in milliseconds: (window − 1) × (q + 1) / 4 where q is key's
// last byte mod 4, so a session ends within its window. The driver's
// processor puts records into sessions by the same rule.
func SessionLength(key []byte, windowMs int64) int64 {
	q := int64(0)
	if len(key) > 0 {
		q = int64(key[len(key)-1] % 4)
	}
	return (windowMs - 1) * (q + 1) / 4
}

// sessionOf is the session [start, end] of a record of key at event time
// ts in a session fill.
func (s Spec) sessionOf(key []byte, ts int64) (start, end int64) {
	start = s.windowStartOf(ts)
	return start, start + SessionLength(key, s.WindowSizeMs)
}
