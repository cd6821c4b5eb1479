package kvtest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// KV is one operation: a put, or a tombstone when V is nil.
type KV struct {
	K, V []byte
}

// Replay is the expected state: a map replay of ops, in key order.
func Replay(ops []KV) []KV {
	m := map[string][]byte{}
	for _, op := range ops {
		if op.V == nil {
			delete(m, string(op.K))
		} else {
			m[string(op.K)] = op.V
		}
	}
	out := make([]KV, 0, len(m))
	for k, v := range m {
		out = append(out, KV{K: []byte(k), V: v})
	}
	slices.SortFunc(out, func(a, b KV) int { return bytes.Compare(a.K, b.K) })
	return out
}

// RandomOps are puts, overwrites and tombstones over keys distinct keys of
// varied lengths (some sharing 8-byte prefixes, one empty), with values of
// 0-maxValue bytes (some empty but live).
func RandomOps(r *rand.Rand, n, keys, maxValue int, tombRatio float64) []KV {
	ops := make([]KV, n)
	for i := range ops {
		id := r.IntN(keys)
		var k []byte
		switch id % 4 {
		case 0:
			k = fmt.Appendf(nil, "k%d", id) // short: prefix padding
		case 1:
			k = fmt.Appendf(nil, "sharedprefix-%08d", id) // long common prefix
		case 2:
			k = []byte{byte(id), byte(id >> 8)}
		default:
			k = fmt.Appendf(nil, "%016x", id*7919)
		}
		if id == 0 {
			k = []byte{}
		}
		ops[i].K = k
		if r.Float64() < tombRatio {
			continue
		}
		v := make([]byte, r.IntN(maxValue+1))
		for j := range v {
			v[j] = byte(r.Uint32())
		}
		ops[i].V = v
	}
	return ops
}

// CheckSorted fails t unless got is in strictly increasing key order and
// equals want.
func CheckSorted(t *testing.T, got, want []KV) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		if bytes.Compare(got[i-1].K, got[i].K) >= 0 {
			t.Fatalf("output not strictly increasing at %d: %q then %q", i, got[i-1].K, got[i].K)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d keys, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].K, want[i].K) || !bytes.Equal(got[i].V, want[i].V) {
			t.Fatalf("entry %d: got %q=%q, want %q=%q", i, got[i].K, got[i].V, want[i].K, want[i].V)
		}
	}
}
