package loadgen

import "testing"

// benchSpec is a 1M-record fill of 100k keys and 100-byte values: the
// shape of the quick profile's, scaled.
func benchSpec() Spec {
	s := DefaultSpec()
	s.Records, s.Keys, s.ValueMin, s.ValueMax, s.TombstoneRatio, s.Partitions = 1_000_000, 100_000, 100, 100, 0.02, 4
	return s
}

// BenchmarkGeneratorNext is the fill's cost per record on the generating
// side (the producer aside): key, value, partition.
func BenchmarkGeneratorNext(b *testing.B) {
	g, err := NewGenerator(benchSpec())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(116)
	for b.Loop() {
		if _, ok := g.Next(); !ok {
			g.next, g.written = 0, 0
		}
	}
}

// BenchmarkDigestAdd is the verifier's cost per live entry.
func BenchmarkDigestAdd(b *testing.B) {
	key, value := AppendKey(nil, 12345), make([]byte, 100)
	var d Digest
	b.SetBytes(int64(len(key) + len(value)))
	for b.Loop() {
		d.Add(key, value)
	}
}

// BenchmarkDerive1M derives a 1M-record fill's expected state (what a fill
// of that size waits for before its first restore).
func BenchmarkDerive1M(b *testing.B) {
	s := benchSpec()
	for b.Loop() {
		if _, err := Derive(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkWindowDerive1M is the same for a window fill (2 h of events,
// 5-minute windows, 1 h retention).
func BenchmarkWindowDerive1M(b *testing.B) {
	s := benchSpec()
	s.StoreKind, s.EventStepMicros, s.WindowSizeMs, s.RetentionMs = KindWindow, 7200, 300_000, 3_600_000
	for b.Loop() {
		if _, err := Derive(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// largeSpec is the large profile's record shape (values of 500-1500 bytes,
// zipf keys, 8 partitions) at 200k records.
func largeSpec() Spec {
	s := DefaultSpec()
	s.Records, s.Keys, s.ValueMin, s.ValueMax, s.TombstoneRatio, s.Partitions = 200_000, 200_000, 500, 1500, 0.01, 8
	s.KeyOrder = KeysZipf
	return s
}

// BenchmarkGeneratorNextLarge is BenchmarkGeneratorNext on the large
// profile's record shape.
func BenchmarkGeneratorNextLarge(b *testing.B) {
	g, err := NewGenerator(largeSpec())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(1016)
	for b.Loop() {
		if _, ok := g.Next(); !ok {
			g.next, g.written = 0, 0
		}
	}
}

// BenchmarkDigestAddLarge is the verifier's cost per live entry of the
// large profile's size (16-byte key, 1000-byte value).
func BenchmarkDigestAddLarge(b *testing.B) {
	key, value := AppendKey(nil, 12345), make([]byte, 1000)
	var d Digest
	b.SetBytes(int64(len(key) + len(value)))
	for b.Loop() {
		d.Add(key, value)
	}
}

// BenchmarkDeriveLarge derives the expected state of 200k records of the
// large profile's shape.
func BenchmarkDeriveLarge(b *testing.B) {
	s := largeSpec()
	for b.Loop() {
		if _, err := Derive(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
