package loadgen

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Record is one generated changelog record. A nil Value is a tombstone.
type Record struct {
	Index     int64
	KeyID     int64
	Key       []byte
	Value     []byte
	Partition int32
	// Timestamp is the record's event time in milliseconds for a timed
	// store kind (StoreKind.Timed); 0 otherwise: the producer stamps it.
	Timestamp int64
	// WindowStart is a window fill's record's window start (milliseconds),
	// also in its Key, and a session fill's session start; 0 for the other
	// kinds.
	WindowStart int64
	// SessionEnd is a session fill's record's session end (milliseconds),
	// also in its Key and its Timestamp; 0 for the other kinds.
	SessionEnd int64
}

// Generator yields a Spec's records in order. It is not safe for concurrent use.
type Generator struct {
	spec    Spec
	filler  []byte
	src     resettableSource
	rng     *rand.Rand
	zipf    *rand.Zipf
	next    int64
	written int64 // key+value bytes written, for TargetBytes
	keyBuf  []byte
	winBuf  []byte // a window or session fill's changelog keys
	valBuf  []byte
}

// fillerSize is the size of the seed-derived block values are cut from.
const fillerSize = 1 << 20

// NewGenerator returns a generator for a valid spec.
func NewGenerator(spec Spec) (*Generator, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	w := spec.KeyWidth()
	g := &Generator{spec: spec, keyBuf: make([]byte, w),
		winBuf: make([]byte, 0, w+max(windowSuffix, sessionSuffix)), valBuf: make([]byte, spec.ValueMax)}
	g.filler = make([]byte, fillerSize+spec.ValueMax)
	fill := rand.New(rand.NewPCG(spec.Seed, 0x5eed))
	for i := 0; i+8 <= len(g.filler); i += 8 {
		binary.LittleEndian.PutUint64(g.filler[i:], fill.Uint64())
	}
	g.rng = rand.New(&g.src)
	if spec.KeyOrder == KeysZipf {
		g.zipf = rand.NewZipf(g.rng, 1.1, 1, uint64(spec.Keys-1))
	}
	return g, nil
}

// Next returns the next record, or false when the spec's records or bytes are
// all generated. The returned slices are reused by the following call.
func (g *Generator) Next() (Record, bool) {
	if !g.More() {
		return Record{}, false
	}
	r := g.At(g.next)
	g.next++
	g.written += int64(len(r.Key) + len(r.Value))
	return r, true
}

// More reports whether Next has a record left to return.
func (g *Generator) More() bool {
	if g.spec.TargetBytes > 0 {
		return g.written < g.spec.TargetBytes
	}
	return g.next < g.spec.Records
}

// SkipTo makes Next continue at index i. Only a Records spec can skip: a
// size-bounded one would need the bytes of the records skipped.
func (g *Generator) SkipTo(i int64) error {
	if i == 0 {
		return nil
	}
	if g.spec.TargetBytes > 0 {
		return fmt.Errorf("generator: cannot skip in a size-bounded spec (use records)")
	}
	g.next = i
	return nil
}

// At returns the record at index i. Records are pure functions of (seed, i).
func (g *Generator) At(i int64) Record {
	g.src.reset(g.spec.Seed, uint64(i))
	var keyID int64
	switch g.spec.KeyOrder {
	case KeysSequential:
		keyID = i % g.spec.Keys
	case KeysZipf:
		keyID = int64(g.zipf.Uint64())
	default:
		keyID = int64(g.rng.Uint64N(uint64(g.spec.Keys)))
	}
	tombstone := g.spec.TombstoneRatio > 0 && g.rng.Float64() < g.spec.TombstoneRatio
	size := g.spec.ValueMin
	if g.spec.ValueMax > g.spec.ValueMin {
		size += int(g.rng.IntN(g.spec.ValueMax - g.spec.ValueMin + 1))
	}
	off := int(g.rng.Uint64N(fillerSize))
	key := g.spec.AppendKey(g.keyBuf[:0], keyID)
	r := Record{Index: i, KeyID: keyID, Key: key, Partition: PartitionFor(key, g.spec.Partitions)}
	g.stamp(&r)
	if !tombstone {
		v := g.valBuf[:size]
		copy(v, g.filler[off:off+size])
		var hdr [8]byte
		binary.LittleEndian.PutUint64(hdr[:], uint64(i))
		copy(v, hdr[:]) // the record index makes every value distinct
		r.Value = v
	}
	return r
}

// stamp sets a timed kind's event time and, for a window fill, the window
// start and the changelog key, for a session fill its session and key
// (stampSession); the partition stays the record key's, as the
// changelog's partition is its task's input partition.
func (g *Generator) stamp(r *Record) {
	d := g.spec.StoreKind.def()
	if !d.Timed {
		return
	}
	r.Timestamp = g.spec.timeOf(r.Index)
	if d.stamp != nil {
		d.stamp(g, r)
	}
}

// stampSession puts a session fill's record into its session
// (Spec.sessionOf): the changelog key names the session, and the record's
// timestamp is the session's end.
func (g *Generator) stampSession(r *Record) {
	r.WindowStart, r.SessionEnd = g.spec.sessionOf(r.Key, r.Timestamp)
	r.Timestamp = r.SessionEnd
	g.winBuf = AppendSessionKey(g.winBuf[:0], r.Key, r.WindowStart, r.SessionEnd)
	r.Key = g.winBuf
}

// AppendKey appends the default-width key for keyID (DefaultKeyBytes):
// "k" and the id in at least 15 decimal digits, zero-padded (what fmt's
// "k%015d" writes, without its per-call allocation: the generator makes a
// key for every record it yields, the fill's and every derivation's).
func AppendKey(dst []byte, keyID int64) []byte {
	return AppendKeyWidth(dst, keyID, DefaultKeyBytes)
}

// AppendKeyWidth appends the width-byte key for keyID: "k" and the id in
// at least width-1 decimal digits, zero-padded (fmt's "k%0*d" with
// width-1). Spec.Validate keeps a fill's ids within those digits, so its
// keys are all width bytes and sort as their ids.
func AppendKeyWidth(dst []byte, keyID int64, width int) []byte {
	if keyID < 0 {
		return fmt.Appendf(dst, "k%0*d", width-1, keyID) // never generated; kept exact
	}
	var digits [20]byte
	i := len(digits)
	for u := uint64(keyID); u > 0; u /= 10 {
		i--
		digits[i] = byte('0' + u%10)
	}
	dst = append(dst, 'k')
	for pad := width - 1 - (len(digits) - i); pad > 0; pad-- {
		dst = append(dst, '0')
	}
	return append(dst, digits[i:]...)
}

// resettableSource is a splitmix64 stream re-seeded per record, which makes
// every record independent of the ones generated before it.
type resettableSource struct{ state uint64 }

func (s *resettableSource) reset(seed, index uint64) {
	s.state = seed*0x9E3779B97F4A7C15 ^ (index+1)*0xBF58476D1CE4E5B9
}

func (s *resettableSource) Uint64() uint64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// PartitionFor is the partition Kafka's default partitioner picks for a
// keyed record: murmur2(key), made positive, modulo the partition count. The
// fill sets partitions explicitly with it, so a Java producer writing the
// same keys would put them in the same partitions.
func PartitionFor(key []byte, partitions int32) int32 {
	return int32((murmur2(key) & 0x7fffffff) % uint32(partitions))
}

// murmur2 is the 32-bit MurmurHash2 variant Kafka's clients use, with
// Kafka's seed 0x9747b28c.
func murmur2(b []byte) uint32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	h := uint32(seed) ^ uint32(len(b))
	for len(b) >= 4 {
		k := binary.LittleEndian.Uint32(b)
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
		b = b[4:]
	}
	switch len(b) {
	case 3:
		h ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(b[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
