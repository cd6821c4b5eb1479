package profiles

import (
	"reflect"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestShapesProfile: the built-in shapes profile sweeps 26 fills (8 B
// values with 8-byte keys, 64 B, 512 B and 4 KiB values, 1 and 20
// records per key, 64 B with 10% tombstones, 8 B and 64 B with Zipf keys,
// two sizes each, the uniform 8 B and 64 B ones without tombstones a
// third, small one) restored
// by both engines with one setting, Kafka Streams' defaults, cold, with
// the log cleaner held.
func TestShapesProfile(t *testing.T) {
	p, err := Load("shapes")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Shapes) != 26 || p.Fills() != 26 || !p.HoldCleaner || !p.Interleave || p.Ready || p.Repeats < 2 {
		t.Fatalf("shapes: %d shapes, %d fills, hold %v, interleave %v, ready %v, repeats %d", len(p.Shapes), p.Fills(), p.HoldCleaner, p.Interleave, p.Ready, p.Repeats)
	}
	if p.Spec != p.Shapes[0].Spec {
		t.Errorf("the plan's spec %+v is not its first shape's %+v", p.Spec, p.Shapes[0].Spec)
	}
	values := map[int]int{}
	perKey := map[int64]int{}
	tombstones, zipf := 0, 0
	for _, s := range p.Shapes {
		sp := s.Spec
		if sp.KeyOrder == loadgen.KeysZipf {
			zipf++
		}
		if sp.ValueMin != sp.ValueMax || sp.Records == 0 || (sp.KeyOrder != loadgen.KeysUniform && sp.KeyOrder != loadgen.KeysZipf) || sp.Partitions != 4 {
			t.Errorf("shape %s: %+v", s.Name, sp)
		}
		if (sp.ValueMin == 8) != (sp.KeyWidth() == 8) {
			t.Errorf("shape %s: %d-byte values with %d-byte keys", s.Name, sp.ValueMin, sp.KeyWidth())
		}
		if sp.TombstoneRatio > 0 {
			tombstones++
		}
		values[sp.ValueMin]++
		// Uniform keys: a "1 record per key" shape draws from at least 5
		// times as many keys as records, a "20" one from a twentieth.
		switch {
		case sp.Keys >= 5*sp.Records:
			perKey[1]++
		case sp.Records == 20*sp.Keys:
			perKey[20]++
		default:
			t.Errorf("shape %s: %d records over %d keys", s.Name, sp.Records, sp.Keys)
		}
		if bytes := sp.Records * int64(sp.KeyWidth()+sp.ValueMin); bytes > 310_000_000 {
			t.Errorf("shape %s: %d bytes", s.Name, bytes)
		}
	}
	if len(values) != 4 || values[8] != 8 || values[64] != 10 || values[4096] != 4 || perKey[1] != 10 || perKey[20] != 16 || tombstones != 2 || zipf != 4 {
		t.Errorf("values %v, records per key %v, tombstone shapes %d, Zipf shapes %d", values, perKey, tombstones, zipf)
	}
	engines := map[config.Engine]bool{}
	for _, c := range p.Cases {
		engines[c.Engine] = true
		if c.Scenario != config.ScenarioCold || c.BatchRecords != 1000 || c.Threads != 1 || c.RocksDBPreset != "kstreams" || c.Strategy != config.StrategyPut {
			t.Errorf("case %s: %+v", c.Name, c)
		}
		d := p.Cases[0]
		d.Name, d.Engine, d.KafkaStreamsVersion = c.Name, c.Engine, c.KafkaStreamsVersion
		if !reflect.DeepEqual(d, c) {
			t.Errorf("case %s's setting differs from %s's beyond the engine", c.Name, p.Cases[0].Name)
		}
	}
	if !engines[config.EngineModel] || !engines[config.EngineKafkaStreams] || len(p.Cases) != 2 {
		t.Errorf("cases %v", engines)
	}
}

// TestShapeSweep: each shape lays its settings over the fill section (its
// size or records replacing the section's), and a shape sweep is refused
// where it cannot run, naming the field and line.
func TestShapeSweep(t *testing.T) {
	p, err := Parse([]byte("fill: {size: 1MB, keys: 500, value_size: 100}\nshapes:\n  - {name: a}\n  - {name: b, records: 300, key_bytes: 8, value_size: 8}\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Shapes[0].Spec, p.Shapes[1].Spec
	if a.TargetBytes != 1_000_000 || a.Records != 0 || a.ValueMin != 100 || a.KeyWidth() != 16 || a.Keys != 500 {
		t.Errorf("shape a: %+v", a)
	}
	if b.TargetBytes != 0 || b.Records != 300 || b.ValueMin != 8 || b.KeyBytes != 8 || b.Keys != 500 {
		t.Errorf("shape b: %+v", b)
	}
	if p.Fills() != 2 || p.Spec != a {
		t.Errorf("fills %d, spec %+v", p.Fills(), p.Spec)
	}
	const fill = "fill: {records: 100}\n"
	for _, c := range []struct{ yaml, want string }{
		{fill + "shapes:\n  - {records: 10}\n", "line 3: shapes[0].name: missing"},
		{fill + "shapes:\n  - {name: a}\n  - {name: a}\n", `line 4: shapes[1].name: "a" is shapes[0]'s name too`},
		{fill + "shapes: []\n", "line 2: shapes: an empty list"},
		{fill + "shapes:\n", "line 2: shapes: an empty list"},
		{fill + "shapes:\n  - {name: a}\n  - {name: A}\n", `line 4: shapes[1].name: "A" and shapes[0]'s "a" differ only in case`},
		{fill + "shapes:\n  - {name: a/b}\n", `shapes[0].name: "a/b" may hold only`},
		{fill + "shapes:\n  - {name: a, topic: t}\n", "line 3: shapes[0].topic: each shape fills the changelog of its own application id"},
		{fill + "shapes:\n  - {name: a, store_kind: window}\n", "shapes[0].store_kind: every shape restores the fill section's store kind"},
		{fill + "shapes:\n  - {name: a, compression: lz4}\n", "shapes[0].compression: every shape is written with the fill section's compression"},
		{fill + "shapes:\n  - {name: a, key_bytes: 3}\n", "line 3: shapes[0].key_bytes: 3 is not in [4, 64]"},
		{fill + "shapes:\n  - {name: a, value_sise: 3}\n", "line 3: shapes[0].value_sise: unknown field (did you mean value_size?)"},
		{"fill: {keys: 10}\nshapes:\n  - {name: a}\n", "shapes[0] (a): line 1: fill.size: one of size or records is required"},
		{"fill: {records: 100, key_bytes: 4}\nshapes:\n  - {name: a, keys: 5000}\n", "shapes[0] (a): line 1: fill.key_bytes: 4-byte keys"},
		{"fill: {}\nsizes: [1MB]\nshapes:\n  - {name: a}\n", "shapes: a shape sweep gives each shape its own size or records"},
		{fill + "store_kinds: [window]\nshapes:\n  - {name: a}\n", "shapes: not with store_kinds"},
		{"fill: {records: 10, topic: x}\nshapes:\n  - {name: a}\n", "shapes: each shape fills the changelog of its own application id"},
		{fill + "shapes:\n  - {name: a}\ncases:\n  - {name: w, scenario: warm}\n", "shapes: case w runs scenario warm, but a shape sweep runs cold restores only so far"},
		{fill + "shapes:\n  - {name: a}\n  - {name: b, value_size: 4}\ncases:\n  - {name: q, queries: {rate: 10}}\n", "fill.value_size: case q runs queries"},
		{fill + "restore: {engine: kafka-streams}\nshapes:\n  - {name: a, key_bytes: 8, store_kind: versioned-key-value}\n", "shapes[0].store_kind"},
		{"fill: {records: 100, store_kind: versioned-key-value}\nrestore: {engine: kafka-streams}\nshapes:\n  - {name: a}\n  - {name: b, key_bytes: 8}\n", "fill.key_bytes: case default"},
	} {
		_, err := Parse([]byte(c.yaml), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.yaml, err, c.want)
		}
	}
}
