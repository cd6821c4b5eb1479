package loadgen

import (
	"bytes"
	"fmt"
)

// KeyID is the key id of a key AppendKey wrote (a default-width key),
// ok false for any other bytes.
func KeyID(key []byte) (id int64, ok bool) { return keyIDWidth(key, DefaultKeyBytes) }

// KeyID is the key id of a key the spec's fill writes (Spec.AppendKey),
// ok false for any other bytes.
func (s Spec) KeyID(key []byte) (id int64, ok bool) { return keyIDWidth(key, s.KeyWidth()) }

// keyIDWidth is the id of a width-byte key AppendKeyWidth wrote.
func keyIDWidth(key []byte, width int) (id int64, ok bool) {
	// More than 18 significant digits would overflow an id; no fill has
	// that many keys.
	if len(key) != width || key[0] != 'k' || len(bytes.TrimLeft(key[1:], "0")) > 18 {
		return 0, false
	}
	for _, b := range key[1:] {
		if b < '0' || b > '9' {
			return 0, false
		}
		id = id*10 + int64(b-'0')
	}
	return id, string(AppendKeyWidth(nil, id, width)) == string(key)
}

// RangeJudge judges one key of a range, as Check or CheckLive does.
type RangeJudge func(id int64, value []byte, found bool) (ReadVerdict, int64)

// CheckRange judges a range query's answer for the key ids from to to,
// both included, of a default-width fill (ReadChecker.CheckRange: of any
// fill).
func CheckRange(from, to int64, entries map[string][]byte, judge RangeJudge) (worst ReadVerdict, behind int64, why string) {
	return DefaultSpec().checkRange(from, to, entries, judge)
}

// CheckRange judges a range query's answer for the key ids from to to,
// both included (the fill's zero-padded keys sort as their ids, so that
// is the byte range from Key(from) to Key(to)): entries maps each
// answered key to its value. Every id in the range is judged by judge,
// found or not; an answered key outside the range, or not a fill key, is
// wrong. It returns the worst verdict, the most records behind of the
// stale keys, and for a wrong one what was wrong.
func (c *ReadChecker) CheckRange(from, to int64, entries map[string][]byte, judge RangeJudge) (worst ReadVerdict, behind int64, why string) {
	return c.spec.checkRange(from, to, entries, judge)
}

// checkRange is CheckRange over the spec's keys.
func (s Spec) checkRange(from, to int64, entries map[string][]byte, judge RangeJudge) (worst ReadVerdict, behind int64, why string) {
	seen := 0
	for id := from; id <= to; id++ {
		v, found := entries[string(s.AppendKey(nil, id))]
		if found {
			seen++
		}
		verdict, b := judge(id, v, found)
		if verdict > worst {
			worst = verdict
			if verdict == ReadWrong {
				why = fmt.Sprintf("key %s: found=%v, %d bytes", s.AppendKey(nil, id), found, len(v))
			}
		}
		if verdict == ReadStale {
			behind = max(behind, b)
		}
	}
	if seen != len(entries) {
		for k := range entries {
			if id, ok := s.KeyID([]byte(k)); !ok || id < from || id > to {
				return ReadWrong, behind, fmt.Sprintf("key %q answered outside the range %s-%s", k, s.AppendKey(nil, from), s.AppendKey(nil, to))
			}
		}
	}
	return worst, behind, why
}
