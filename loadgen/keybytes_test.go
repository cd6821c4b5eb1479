package loadgen

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestAppendKeyWidthMatchesFormat: a key of width w is what "k%0*d"
// writes with w-1 digits, for every width allowed and ids of every size;
// at the default width it is AppendKey's key.
func TestAppendKeyWidthMatchesFormat(t *testing.T) {
	for w := MinKeyBytes; w <= MaxKeyBytes; w++ {
		for _, id := range []int64{0, 1, 9, 10, 999, 1000, 12345, 9_999_999, 1_000_000_000_000_000, math.MaxInt64, -1} {
			want := fmt.Sprintf("k%0*d", w-1, id)
			if got := string(AppendKeyWidth([]byte("x"), id, w)); got != "x"+want {
				t.Errorf("AppendKeyWidth(%d, %d) = %q, want %q", id, w, got, "x"+want)
			}
		}
	}
	for _, id := range []int64{0, 7, 123456789012345} {
		if a, b := string(AppendKey(nil, id)), string(AppendKeyWidth(nil, id, DefaultKeyBytes)); a != b {
			t.Errorf("AppendKey(%d) = %q, AppendKeyWidth at the default width %q", id, a, b)
		}
	}
}

// TestKeyBytesGeneratesThatWidth: a fill of key_bytes 8 writes 8-byte
// keys ("k" and 7 digits) that parse back to their ids, and key+value
// bytes that count them so; unset (0) and 16 are the default width.
func TestKeyBytesGeneratesThatWidth(t *testing.T) {
	for _, c := range []struct{ keyBytes, width int }{{0, 16}, {16, 16}, {8, 8}, {4, 4}, {40, 40}} {
		s := DefaultSpec()
		s.Records, s.Keys, s.ValueMin, s.ValueMax, s.KeyBytes = 200, 900, 8, 8, c.keyBytes
		if s.KeyWidth() != c.width {
			t.Fatalf("key_bytes %d: width %d, want %d", c.keyBytes, s.KeyWidth(), c.width)
		}
		g, err := NewGenerator(s)
		if err != nil {
			t.Fatal(err)
		}
		for {
			r, ok := g.Next()
			if !ok {
				break
			}
			if len(r.Key) != c.width || string(r.Key) != fmt.Sprintf("k%0*d", c.width-1, r.KeyID) {
				t.Fatalf("key_bytes %d: record %d has key %q (id %d)", c.keyBytes, r.Index, r.Key, r.KeyID)
			}
			if id, ok := s.KeyID(r.Key); !ok || id != r.KeyID {
				t.Fatalf("key_bytes %d: KeyID(%q) = %d %v, want %d", c.keyBytes, r.Key, id, ok, r.KeyID)
			}
			if r.Partition != PartitionFor(r.Key, s.Partitions) {
				t.Fatalf("key_bytes %d: record %d in partition %d, its key's is %d", c.keyBytes, r.Index, r.Partition, PartitionFor(r.Key, s.Partitions))
			}
		}
		if got, want := g.written, int64(200*(c.width+8)); got != want {
			t.Errorf("key_bytes %d: %d key+value bytes, want %d", c.keyBytes, got, want)
		}
	}
	// A key of another width is not a key of this fill.
	s := DefaultSpec()
	s.KeyBytes = 8
	if _, ok := s.KeyID(AppendKey(nil, 5)); ok {
		t.Error("an 8-byte-key fill took a 16-byte key as its own")
	}
	if _, ok := KeyID(AppendKeyWidth(nil, 5, 8)); ok {
		t.Error("KeyID (default width) took an 8-byte key")
	}
	if _, ok := (Spec{KeyBytes: 64}).KeyID([]byte("k" + strings.Repeat("9", 63))); ok {
		t.Error("KeyID took a 63-digit id that overflows")
	}
}

// TestKeyBytesEstimatedRecords: a size-bounded fill's estimate counts its
// own key width.
func TestKeyBytesEstimatedRecords(t *testing.T) {
	s := DefaultSpec()
	s.TargetBytes, s.ValueMin, s.ValueMax, s.KeyBytes = 16_000_000, 8, 8, 8
	if got := s.EstimatedRecords(); got != 1_000_000 {
		t.Errorf("16 MB of 8-byte keys and 8-byte values: %d records estimated, want 1000000", got)
	}
}

// TestKeyBytesValidation: key_bytes out of its bounds, or too narrow for
// the fill's keys, is a SpecError naming key_bytes and saying why.
func TestKeyBytesValidation(t *testing.T) {
	for _, c := range []struct {
		keyBytes int
		keys     int64
		want     string // "" = valid
	}{
		{0, 100_000, ""},
		{8, 10_000_000, ""},                   // "k" + 7 digits: ids 0..9,999,999
		{8, 10_000_001, "hold 10000000 keys"}, // one key too many
		{4, 1000, ""},
		{4, 1001, "hold 1000 keys"},
		{3, 10, "not in [4, 64]"},
		{-1, 10, "not in [4, 64]"},
		{65, 10, "not in [4, 64]"},
		{64, maxExpectKeys, ""},
		{20, maxExpectKeys, ""},
	} {
		s := testSpec()
		s.KeyBytes, s.Keys = c.keyBytes, c.keys
		err := s.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("key_bytes %d, keys %d: %v", c.keyBytes, c.keys, err)
			}
			continue
		}
		se, ok := err.(*SpecError)
		if !ok || se.Field != "key_bytes" || !strings.Contains(se.Msg, c.want) {
			t.Errorf("key_bytes %d, keys %d: got %v, want a key_bytes error saying %q", c.keyBytes, c.keys, err, c.want)
		}
	}
}

// TestKeyBytesExpectedState: the expected state of an 8-byte-key fill of
// 8-byte values (the digest a restore is verified against) is the replay
// of its records, and differs from the same fill at the default width.
func TestKeyBytesExpectedState(t *testing.T) {
	s := DefaultSpec()
	s.Records, s.Keys, s.ValueMin, s.ValueMax, s.TombstoneRatio, s.Partitions = 3000, 500, 8, 8, 0.1, 2
	wide, _, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	s.KeyBytes = 8
	states, _, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := replayState(t, s)
	for p := range states {
		if states[p].Keys != want[p].Keys || states[p].Digest != want[p].Digest || states[p].LiveBytes != want[p].LiveBytes {
			t.Fatalf("partition %d: Expect says %+v, replay says %+v", p, states[p], want[p])
		}
		if states[p].LiveBytes != 16*states[p].Keys {
			t.Fatalf("partition %d: %d live bytes for %d keys of 8+8 bytes", p, states[p].LiveBytes, states[p].Keys)
		}
		if states[p].Digest == wide[p].Digest {
			t.Fatalf("partition %d: 8-byte and 16-byte keys expect the same state", p)
		}
	}
}
