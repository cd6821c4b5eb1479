package loadgen

import "hash/maphash"

// HotKeyWindow is how many of its partition's records before it a record's
// key is looked for among to count the record hot (HotKeys).
//
// Why 64: a restore writes each partition's records in offset order into
// one RocksDB memtable, and a record whose key was written a moment ago
// finds that key's place in the memtable in the CPU's cache. Measured on
// the real broker with Kafka Streams 4.4 (3 M records of 16 B, 2
// partitions, one thread): keys drawn Zipf(1.1) over 100 k or 1 M keys
// (44–48% of records hot at 64) restored in 7.0–7.5 s, uniform ones over
// 3 k, 30 k or 300 k keys (0–4% hot at 64, but 49% for 3 k keys at a
// window of 1,024) in 9.3–9.4 s: a uniform 3 k-key changelog is no faster
// than a 300 k-key one, so the window that tells skew from repetition is
// short.
const HotKeyWindow = 64

// HotKeys counts the hot records of a changelog read or written in each
// partition's offset order: those whose key (the changelog key, bytes
// compared by a 64-bit hash) is among the HotKeyWindow records of the
// partition before it. Records without a key are neither counted nor
// remembered. The zero value is ready; memory is HotKeyWindow hashes a
// partition.
type HotKeys struct {
	// Hot is the records counted hot so far.
	Hot  int64
	ring map[int32]*hotRing
}

// hotSeed hashes every HotKeys' keys: one seed a process, so two trackers
// that followed the same records hold the same hashes.
var hotSeed = maphash.MakeSeed()

// hotRing is one partition's last HotKeyWindow key hashes.
type hotRing struct {
	hashes [HotKeyWindow]uint64
	n      int // hashes held, at most HotKeyWindow
	next   int // where the next hash goes
}

// Add follows one record of partition p with key (nil: no key).
func (h *HotKeys) Add(p int32, key []byte) {
	if key == nil {
		return
	}
	if h.ring == nil {
		h.ring = map[int32]*hotRing{}
	}
	r := h.ring[p]
	if r == nil {
		r = &hotRing{}
		h.ring[p] = r
	}
	k := maphash.Bytes(hotSeed, key)
	for _, x := range r.hashes[:r.n] {
		if x == k {
			h.Hot++
			break
		}
	}
	r.hashes[r.next] = k
	r.next = (r.next + 1) % HotKeyWindow
	r.n = min(r.n+1, HotKeyWindow)
}
