package loadgen

import (
	"runtime"
	"sync"
)

// keyValueStates fills states, a key-value fill's partitions, from the
// last record applied per key: each live key's entry regenerated and
// digested. The keys are split into one contiguous range per core, each
// range summed by its own goroutine and generator, and the sums added:
// every term (count, bytes, digest) is a sum over keys, so the order does
// not change it. Digesting every live entry is most of a derivation's
// time (FNV-1a over every value byte), on one core until then.
func (d *deriver) keyValueStates(states []PartitionState) ([]PartitionState, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(d.last)/minKeysPerWorker))
	parts := make([][]PartitionState, workers)
	gens := make([]*Generator, workers)
	for w := range gens {
		g, err := NewGenerator(d.spec)
		if err != nil {
			return nil, err
		}
		gens[w] = g
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := len(d.last)*w/workers, len(d.last)*(w+1)/workers
		wg.Go(func() {
			parts[w] = d.sumKeys(gens[w], d.last[lo:hi])
		})
	}
	wg.Wait()
	for _, part := range parts {
		for p, st := range part {
			states[p].Keys += st.Keys
			states[p].LiveBytes += st.LiveBytes
			states[p].Digest += st.Digest
		}
	}
	return states, nil
}

// minKeysPerWorker keeps small key spaces on one goroutine.
const minKeysPerWorker = 1 << 16

// sumKeys is the per-partition count, bytes and digest of the live
// entries whose last writes (index + 1, 0 for none) are last.
func (d *deriver) sumKeys(g *Generator, last []int64) []PartitionState {
	states := make([]PartitionState, d.spec.Partitions)
	timestamped := d.spec.StoreKind.TimestampedValue()
	var buf []byte
	for _, idx := range last {
		if idx == 0 {
			continue
		}
		r := g.At(idx - 1)
		if r.Value == nil {
			continue
		}
		v := r.Value
		if timestamped { // the store keeps the value behind its timestamp
			buf = AppendTimestamped(buf[:0], r.Timestamp, r.Value)
			v = buf
		}
		st := &states[r.Partition]
		st.Keys++
		st.LiveBytes += int64(len(r.Key) + len(v))
		st.Digest.Add(r.Key, v)
	}
	return states
}
