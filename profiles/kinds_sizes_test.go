package profiles

import "testing"

// TestSizeByKindSweep: a profile with sizes and store_kinds sweeps both:
// a fill per kind and size, each kind's spec at the first size (bench
// gives it the others), each kind's time settings its own.
func TestSizeByKindSweep(t *testing.T) {
	p, err := Parse([]byte("store_kinds: [key-value, window]\nsizes: [1MB, 2MB, 3MB]\nfill: {keys: 100, time_range: 1h, window_size: 5m, retention: 30m}\n"), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Fills() != 6 || len(p.KindSpecs) != 2 || len(p.Sizes) != 3 {
		t.Fatalf("fills %d, kinds %d, sizes %d; want 6, 2, 3", p.Fills(), len(p.KindSpecs), len(p.Sizes))
	}
	for _, s := range p.KindSpecs {
		if s.TargetBytes != 1_000_000 || s.Records != 0 {
			t.Errorf("%s spec at %d bytes, %d records: want the first size", s.StoreKind, s.TargetBytes, s.Records)
		}
	}
	if kv, win := p.KindSpecs[0], p.KindSpecs[1]; kv.RetentionMs != 0 || kv.EventStepMicros != 0 || win.RetentionMs != 1_800_000 {
		t.Errorf("key-value spec %+v, window spec %+v: each kind's own time settings", kv, win)
	}
}
