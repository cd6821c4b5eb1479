package loadgen

import (
	"bytes"
	"testing"
)

// TestInputKeyIsTheRecordKey: the input record of a window or session
// store's changelog record carries the record key alone (the store adds
// the window or session from the timestamp); a key-value record's is its
// changelog key.
func TestInputKeyIsTheRecordKey(t *testing.T) {
	for _, kind := range []StoreKind{KindKeyValue, KindWindow, KindSession} {
		s := DefaultSpec()
		s.Records, s.Keys, s.StoreKind = 10, 50, kind
		if kind != KindKeyValue {
			s.EventStepMicros, s.WindowSizeMs, s.RetentionMs = 1_000_000, 60_000, 600_000
		}
		g, err := NewGenerator(s)
		if err != nil {
			t.Fatal(err)
		}
		r := g.At(3)
		if got, want := InputKey(r), AppendKey(nil, r.KeyID); !bytes.Equal(got, want) {
			t.Errorf("%s: input key %q, want %q", kind, got, want)
		}
		if kind != KindKeyValue && len(r.Key) == keyWidth {
			t.Errorf("%s: changelog key %q has no window or session suffix", kind, r.Key)
		}
	}
}
