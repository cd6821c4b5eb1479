package loadgen

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

func testSpec() Spec {
	s := DefaultSpec()
	s.Records = 20_000
	s.Keys = 3_000
	s.ValueMin, s.ValueMax = 10, 300
	s.TombstoneRatio = 0.1
	s.Partitions = 4
	return s
}

func collect(t *testing.T, s Spec) []Record {
	t.Helper()
	g, err := NewGenerator(s)
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for {
		r, ok := g.Next()
		if !ok {
			return out
		}
		r.Key = append([]byte(nil), r.Key...)
		if r.Value != nil {
			r.Value = append([]byte(nil), r.Value...)
		}
		out = append(out, r)
	}
}

func TestGeneratorIsDeterministic(t *testing.T) {
	for _, order := range []KeyOrder{KeysUniform, KeysZipf, KeysSequential} {
		s := testSpec()
		s.KeyOrder = order
		a, b := collect(t, s), collect(t, s)
		if int64(len(a)) != s.Records || int64(len(b)) != s.Records {
			t.Fatalf("%s: got %d and %d records, want %d", order, len(a), len(b), s.Records)
		}
		for i := range a {
			if !bytes.Equal(a[i].Key, b[i].Key) || !bytes.Equal(a[i].Value, b[i].Value) || (a[i].Value == nil) != (b[i].Value == nil) || a[i].Partition != b[i].Partition {
				t.Fatalf("%s: record %d differs between two generators of one spec", order, i)
			}
		}
		s.Seed = 2
		c := collect(t, s)
		same := 0
		for i := range a {
			if bytes.Equal(a[i].Value, c[i].Value) {
				same++
			}
		}
		if same > len(a)/10 {
			t.Fatalf("%s: seed 2 repeats %d of %d values of seed 1", order, same, len(a))
		}
	}
}

func TestGeneratorHonoursSpec(t *testing.T) {
	s := testSpec()
	recs := collect(t, s)
	var tombs int
	for _, r := range recs {
		if r.KeyID < 0 || r.KeyID >= s.Keys {
			t.Fatalf("key id %d outside [0,%d)", r.KeyID, s.Keys)
		}
		if r.Value == nil {
			tombs++
			continue
		}
		if len(r.Value) < s.ValueMin || len(r.Value) > s.ValueMax {
			t.Fatalf("value of %d bytes outside [%d,%d]", len(r.Value), s.ValueMin, s.ValueMax)
		}
		if r.Partition != PartitionFor(r.Key, s.Partitions) {
			t.Fatalf("record %d in partition %d, key hashes to %d", r.Index, r.Partition, PartitionFor(r.Key, s.Partitions))
		}
	}
	ratio := float64(tombs) / float64(len(recs))
	if ratio < 0.08 || ratio > 0.12 {
		t.Fatalf("tombstone ratio %.3f, want about 0.1", ratio)
	}

	sized := testSpec()
	sized.Records, sized.TargetBytes = 0, 1_000_000
	var total int64
	for _, r := range collect(t, sized) {
		total += int64(len(r.Key) + len(r.Value))
	}
	if total < sized.TargetBytes || total > sized.TargetBytes+int64(DefaultKeyBytes+sized.ValueMax) {
		t.Fatalf("size-bounded fill wrote %d bytes, want just over %d", total, sized.TargetBytes)
	}
}

// TestExpectMatchesReplay checks the expected state against a plain replay of
// the records into a map: last write wins, a tombstone deletes.
func TestExpectMatchesReplay(t *testing.T) {
	s := testSpec()
	states, totals, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	want, live := replayState(t, s)
	var keys int64
	for p := range states {
		if states[p].Keys != want[p].Keys || states[p].Digest != want[p].Digest || states[p].LiveBytes != want[p].LiveBytes {
			t.Fatalf("partition %d: Expect says %+v, replay says %+v", p, states[p], want[p])
		}
		keys += states[p].Keys
	}
	if keys != int64(live) || keys == 0 {
		t.Fatalf("expected %d live keys, replay has %d", keys, live)
	}
	if totals.Records != s.Records || totals.Tombstones == 0 {
		t.Fatalf("totals %+v", totals)
	}
}

// replayState is the state a plain replay of s's records into a map
// leaves (last write wins, a tombstone deletes), per partition, and its
// live keys.
func replayState(t *testing.T, s Spec) ([]PartitionState, int) {
	t.Helper()
	m := map[string][]byte{}
	for _, r := range collect(t, s) {
		if r.Value == nil {
			delete(m, string(r.Key))
		} else {
			m[string(r.Key)] = r.Value
		}
	}
	want := make([]PartitionState, s.Partitions)
	for k, v := range m {
		p := PartitionFor([]byte(k), s.Partitions)
		want[p].Keys++
		want[p].LiveBytes += int64(len(k) + len(v))
		want[p].Digest.Add([]byte(k), v)
	}
	return want, len(m)
}

func TestDigestDetectsChanges(t *testing.T) {
	var a, b, c Digest
	a.Add([]byte("k1"), []byte("v1"))
	a.Add([]byte("k2"), []byte("v2"))
	b.Add([]byte("k2"), []byte("v2"))
	b.Add([]byte("k1"), []byte("v1"))
	if a != b {
		t.Fatal("digest depends on order")
	}
	c.Add([]byte("k1"), []byte("v1"))
	c.Add([]byte("k2"), []byte("v3"))
	if a == c {
		t.Fatal("digest missed a changed value")
	}
	var d Digest
	d.Add([]byte("k1v"), []byte("1"))
	var e Digest
	e.Add([]byte("k1"), []byte("v1"))
	if d == e {
		t.Fatal("digest confuses key/value boundary")
	}
}

// TestPartitionForMatchesKafka checks murmur2 against the values Kafka's
// own Utils.murmur2 test asserts.
func TestPartitionForMatchesKafka(t *testing.T) {
	cases := map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	}
	for in, want := range cases {
		if got := int32(murmur2([]byte(in))); got != want {
			t.Errorf("murmur2(%q) = %d, Kafka says %d", in, got, want)
		}
	}
}

func TestSpecValidateNamesField(t *testing.T) {
	cases := map[string]func(*Spec){
		"keys":            func(s *Spec) { s.Keys = 0 },
		"value_size":      func(s *Spec) { s.ValueMax = s.ValueMin - 1 },
		"tombstone_ratio": func(s *Spec) { s.TombstoneRatio = 1.5 },
		"key_order":       func(s *Spec) { s.KeyOrder = "random" },
		"partitions":      func(s *Spec) { s.Partitions = 0 },
		"records":         func(s *Spec) { s.Records = -1 },
	}
	for field, mutate := range cases {
		s := testSpec()
		mutate(&s)
		err := s.Validate()
		if err == nil || !bytes.HasPrefix([]byte(err.Error()), []byte(field+":")) {
			t.Errorf("%s: got %v, want an error naming %s", field, err, field)
		}
	}
}

// TestLandmarksMapOffsetsToRecords checks that Landmarks name, for the
// first and last offsets of every partition, exactly the record a fill
// writes there: the records of a partition in generator order.
func TestLandmarksMapOffsetsToRecords(t *testing.T) {
	spec := DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 5000, 700, 3
	d, err := Derive(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewGenerator(spec)
	perPart := make([][]int64, spec.Partitions) // offset -> generator index
	for {
		r, ok := g.Next()
		if !ok {
			break
		}
		perPart[r.Partition] = append(perPart[r.Partition], r.Index)
	}
	for p, idxs := range perPart {
		n := int64(len(idxs))
		if n != d.Totals.PerPart[p].Records || n != d.Log.Ends[p] || n <= 2*LandmarkWindow {
			t.Fatalf("partition %d: %d records, totals say %d", p, n, d.Totals.PerPart[p].Records)
		}
		checked := 0
		for o := int64(0); o < n; o++ {
			slot, ok := d.Landmarks.At(int32(p), o, n)
			inWindow := o < LandmarkWindow || o >= n-LandmarkWindow
			if ok != inWindow {
				t.Fatalf("partition %d offset %d: landmark %v, want %v", p, o, ok, inWindow)
			}
			if ok {
				if slot.Kind != SlotRecord || slot.Index != idxs[o] {
					t.Fatalf("partition %d offset %d: landmark %+v, the fill writes record %d there", p, o, slot, idxs[o])
				}
				checked++
			}
		}
		if checked != 2*LandmarkWindow {
			t.Fatalf("partition %d: %d landmarks", p, checked)
		}
	}
}

// TestAppendKeyMatchesFormat: keys are what "k%015d" writes, for ids of
// every width, so fills made before and after keep the same keys (and
// the same partitions and digests).
func TestAppendKeyMatchesFormat(t *testing.T) {
	for _, id := range []int64{0, 1, 9, 10, 12345, 999_999_999_999_999, 1_000_000_000_000_000, math.MaxInt64, -1, -12345} {
		want := fmt.Sprintf("k%015d", id)
		if got := string(AppendKey([]byte("x"), id)); got != "x"+want {
			t.Errorf("AppendKey(%d) = %q, want %q", id, got, "x"+want)
		}
	}
}
