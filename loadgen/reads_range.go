package loadgen

import "fmt"

// KeyID is the key id of a key AppendKey wrote, ok false for any other
// bytes.
func KeyID(key []byte) (id int64, ok bool) {
	if len(key) < 16 || key[0] != 'k' {
		return 0, false
	}
	for _, b := range key[1:] {
		if b < '0' || b > '9' {
			return 0, false
		}
		id = id*10 + int64(b-'0')
	}
	return id, string(AppendKey(nil, id)) == string(key)
}

// RangeJudge judges one key of a range, as Check or CheckLive does.
type RangeJudge func(id int64, value []byte, found bool) (ReadVerdict, int64)

// CheckRange judges a range query's answer for the key ids from to to,
// both included (AppendKey's zero-padded keys sort as their ids, so that
// is the byte range from AppendKey(from) to AppendKey(to)): entries maps
// each answered key to its value. Every id in the range is judged by
// judge, found or not; an answered key outside the range, or not a fill
// key, is wrong. It returns the worst verdict, the most records behind of
// the stale keys, and for a wrong one what was wrong.
func CheckRange(from, to int64, entries map[string][]byte, judge RangeJudge) (worst ReadVerdict, behind int64, why string) {
	seen := 0
	for id := from; id <= to; id++ {
		v, found := entries[string(AppendKey(nil, id))]
		if found {
			seen++
		}
		verdict, b := judge(id, v, found)
		if verdict > worst {
			worst = verdict
			if verdict == ReadWrong {
				why = fmt.Sprintf("key %s: found=%v, %d bytes", AppendKey(nil, id), found, len(v))
			}
		}
		if verdict == ReadStale {
			behind = max(behind, b)
		}
	}
	if seen != len(entries) {
		for k := range entries {
			if id, ok := KeyID([]byte(k)); !ok || id < from || id > to {
				return ReadWrong, behind, fmt.Sprintf("key %q answered outside the range %s-%s", k, AppendKey(nil, from), AppendKey(nil, to))
			}
		}
	}
	return worst, behind, why
}
