package profiles

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestFillKeyBytes: fill.key_bytes reaches the fill's spec (16 is the
// default's own spec, so the same fill), sweeps with store kinds, and a
// width out of bounds or too narrow for the keys is refused naming
// fill.key_bytes and its line.
func TestFillKeyBytes(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want int // spec.KeyBytes
	}{
		{"fill:\n  records: 100\n  keys: 1000\n  key_bytes: 8\n  value_size: 8\n", 8},
		{"fill:\n  records: 100\n  key_bytes: 16\n", 0},
		{"fill:\n  records: 100\n", 0},
	} {
		p, err := Parse([]byte(c.yaml), "k.yaml")
		if err != nil {
			t.Fatalf("%q: %v", c.yaml, err)
		}
		if p.Spec.KeyBytes != c.want {
			t.Errorf("%q: key_bytes %d, want %d", c.yaml, p.Spec.KeyBytes, c.want)
		}
	}
	p, err := Parse([]byte("store_kinds: [key-value, window, session]\nfill:\n  records: 100\n  key_bytes: 8\n"), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.KindSpecs {
		if s.KeyWidth() != 8 {
			t.Errorf("kind %s: key width %d", s.StoreKind.Of(), s.KeyWidth())
		}
	}
	for _, c := range []struct{ yaml, want string }{
		{"fill:\n  records: 100\n  key_bytes: 3\n", "line 3: fill.key_bytes: 3 is not in [4, 64]"},
		{"fill:\n  records: 100\n  key_bytes: 65\n", "fill.key_bytes: 65 is not in [4, 64]"},
		{"fill:\n  records: 100\n  keys: 100000\n  key_bytes: 5\n", "fill.key_bytes: 5-byte keys (\"k\" and 4 digits) hold 10000 keys, not the fill's 100000"},
	} {
		_, err := Parse([]byte(c.yaml), "k.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.yaml, err, c.want)
		}
	}
}

// TestKeyBytesRefusedOnKafkaStreamsVersioned: the one case a non-default
// key width cannot run is a versioned store on the kafka-streams engine
// (the driver digests it over 16-byte keys): refused before anything
// runs, naming fill.key_bytes, the case and why; the model engine runs it,
// and so does kafka-streams at 16 bytes, and a store-kind sweep is
// checked kind by kind.
func TestKeyBytesRefusedOnKafkaStreamsVersioned(t *testing.T) {
	const ks = "restore:\n  engine: kafka-streams\n"
	for _, c := range []struct {
		yaml    string
		refused bool
	}{
		{"fill:\n  records: 100\n  key_bytes: 8\n  store_kind: versioned-key-value\n" + ks, true},
		{"store_kinds: [key-value, versioned-key-value]\nfill:\n  records: 100\n  key_bytes: 8\n" + ks, true},
		{"fill:\n  records: 100\n  key_bytes: 8\n  store_kind: versioned-key-value\n", false},
		{"fill:\n  records: 100\n  key_bytes: 16\n  store_kind: versioned-key-value\n" + ks, false},
		{"store_kinds: [key-value, timestamped-key-value, window, session]\nfill:\n  records: 100\n  key_bytes: 8\n" + ks, false},
	} {
		_, err := Parse([]byte(c.yaml), "k.yaml")
		if !c.refused {
			if err != nil {
				t.Errorf("%q: %v", c.yaml, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "fill.key_bytes: case ") || !strings.Contains(err.Error(), "digests a versioned-key-value store key by key") {
			t.Errorf("%q: got %v, want the versioned refusal", c.yaml, err)
		}
	}
	// The run-time net under it: the driver's properties for such a fill.
	spec := loadgen.DefaultSpec()
	spec.Records, spec.KeyBytes = 10, 8
	c := config.DefaultCase()
	c.Name, c.Engine, c.StoreKind = "v", config.EngineKafkaStreams, config.StoreVersionedKeyValue
	if _, err := c.FillProperties(&spec); err == nil || !strings.Contains(err.Error(), "key by key") {
		t.Errorf("driver properties of an 8-byte-key versioned fill: %v", err)
	}
}
