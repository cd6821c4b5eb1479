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
