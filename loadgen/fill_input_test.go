package loadgen

import (
	"bytes"
	"testing"
)

// TestInputKeyIsTheRecordKey: the input record of a window or session
// store's changelog record carries the record key alone (the store adds
// the window or session from the timestamp); a key-value record's is its
// changelog key; at the default key width and at 8 bytes.
func TestInputKeyIsTheRecordKey(t *testing.T) {
	for _, kb := range []int{0, 8} {
		for _, kind := range []StoreKind{KindKeyValue, KindWindow, KindSession} {
			s := DefaultSpec()
			s.Records, s.Keys, s.StoreKind, s.KeyBytes = 10, 50, kind, kb
			if kind != KindKeyValue {
				s.EventStepMicros, s.WindowSizeMs, s.RetentionMs = 1_000_000, 60_000, 600_000
			}
			g, err := NewGenerator(s)
			if err != nil {
				t.Fatal(err)
			}
			r := g.At(3)
			if got, want := s.InputKey(r), AppendKeyWidth(nil, r.KeyID, s.KeyWidth()); !bytes.Equal(got, want) {
				t.Errorf("%s: input key %q, want %q", kind, got, want)
			}
			if kind != KindKeyValue && len(r.Key) == s.KeyWidth() {
				t.Errorf("%s: changelog key %q has no window or session suffix", kind, r.Key)
			}
		}
	}
}
