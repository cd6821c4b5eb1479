package bench

import (
	"strings"
	"testing"
)

// TestShapeSweepRestoresEachShape: a profile sweeping shapes (8-byte keys
// and values, one record per key; 64-byte values, 20 records per key, a
// tenth tombstones) fills each shape on its own topic and restores every
// case there, verified; the records' steps carry the shape, named
// case@shape, and each fill is recorded with its own spec.
func TestShapeSweepRestoresEachShape(t *testing.T) {
	res := runYAML(t, "application_id: sh\nfill: {key_order: sequential, partitions: 2}\nshapes:\n"+
		"  - {name: k8-v8-r1, key_bytes: 8, value_size: 8, records: 6000, keys: 6000}\n"+
		"  - {name: v64-r20-t10, value_size: 64, records: 6000, keys: 300, tombstone_ratio: 0.1}\n"+
		"cases: [{name: a}, {name: b, batch_records: 100}]\nhold_cleaner: true\nready: false\n", "shapes.yaml")
	if len(res.Fills) != 2 || res.Fills[0].Topic != "sh-k8-v8-r1-balances-changelog" || res.Fills[1].Topic != "sh-v64-r20-t10-balances-changelog" {
		t.Fatalf("fills %+v", res.Fills)
	}
	if f := res.Fills[0]; f.Spec.KeyBytes != 8 || f.Bytes != 6000*16 {
		t.Errorf("first fill %+v", f)
	}
	var names []string
	for _, r := range res.Restores {
		if !r.Verified {
			t.Fatalf("%s not verified: %s", r.Case, r.Error)
		}
		if r.Step.Shape == "" || !strings.HasSuffix(r.Topic, "-"+r.Step.Shape+"-balances-changelog") {
			t.Errorf("%s: step %+v on %s", r.Case, *r.Step, r.Topic)
		}
		names = append(names, r.Case)
	}
	if got, want := strings.Join(names, " "), "a@k8-v8-r1 b@k8-v8-r1 a@v64-r20-t10 b@v64-r20-t10"; got != want {
		t.Fatalf("records %q, want %q", got, want)
	}
	if keys, _ := res.Restores[0].Verification.Totals(); keys != 6000 {
		t.Errorf("one record per key: %d keys restored, want 6000", keys)
	}
}
