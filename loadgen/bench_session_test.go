package loadgen

import "testing"

// BenchmarkSessionDerive1M derives a 1M-record session fill's expected
// state (2 h of events, sessions within 5-minute windows, 62.5 min
// retention), as BenchmarkWindowDerive1M does a window fill's.
func BenchmarkSessionDerive1M(b *testing.B) {
	s := benchSpec()
	s.StoreKind, s.EventStepMicros, s.WindowSizeMs, s.RetentionMs = KindSession, 7200, 300_000, 3_750_000
	for b.Loop() {
		if _, err := Derive(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
