package engine

import "math/rand/v2"

// maxSampleKeys bounds the keys kept for read-latency probes.
const maxSampleKeys = 10_000

// keySampler keeps a uniform sample of the keys offered (reservoir sampling).
type keySampler struct {
	keys []SampledKey
	cap  int
	seen int64
	rng  *rand.Rand
}

func newKeySampler(capacity int, seed int64) *keySampler {
	return &keySampler{cap: capacity, rng: rand.New(rand.NewPCG(uint64(seed), 0x5a3911e))}
}

// offer considers one key; a nil sampler keeps nothing.
func (s *keySampler) offer(p int32, key []byte) {
	if s == nil {
		return
	}
	s.seen++
	if len(s.keys) < s.cap {
		s.keys = append(s.keys, SampledKey{Partition: p, Key: append([]byte(nil), key...)})
		return
	}
	if j := s.rng.Int64N(s.seen); j < int64(s.cap) {
		s.keys[j] = SampledKey{Partition: p, Key: append(s.keys[j].Key[:0], key...)}
	}
}
