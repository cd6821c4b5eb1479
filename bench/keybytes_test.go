package bench

import (
	"testing"
)

// TestKeyBytesFillRestoresVerified: a fill of 8-byte keys and 8-byte
// values (a tenth of them tombstones) on the embedded broker restores on
// the model engine, verified against its expected state, whose live bytes
// count 8 + 8 per key; the fill records the width in its spec.
func TestKeyBytesFillRestoresVerified(t *testing.T) {
	res := runYAML(t, "fill: {records: 20000, keys: 5000, key_bytes: 8, value_size: 8, tombstone_ratio: 0.1, partitions: 2}\n"+
		"cases: [{name: put}, {name: bulk, strategy: bulk}]\n", "keys8.yaml")
	if f := res.Fill; f == nil || f.Spec == nil || f.Spec.KeyBytes != 8 || f.Bytes != (f.Records-f.Tombstones)*16+f.Tombstones*8 {
		t.Fatalf("fill %+v", res.Fill)
	}
	if len(res.Restores) != 2 {
		t.Fatalf("%d restores", len(res.Restores))
	}
	for _, r := range res.Restores {
		if !r.Verified {
			t.Fatalf("%s not verified: %s", r.Case, r.Error)
		}
		if r.Records != 20000 {
			t.Errorf("%s: restored %d records", r.Case, r.Records)
		}
	}
}
