package profiles

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// The calibrate profile pairs every setting on both engines, engine varying
// fastest, and interleaves its repeats.
func TestCalibrateProfilePairsEngines(t *testing.T) {
	p, err := Load("calibrate")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Interleave || p.Ready || p.Repeats < 3 || p.Spec.Partitions != 4 || p.Spec.Keys != 2_000_000 {
		t.Fatalf("calibrate: interleave %v ready %v repeats %d partitions %d keys %d", p.Interleave, p.Ready, p.Repeats, p.Spec.Partitions, p.Spec.Keys)
	}
	if len(p.Cases) != 8 {
		t.Fatalf("%d cases, want 2 threads x 2 batch sizes x 2 engines", len(p.Cases))
	}
	for i := 0; i < len(p.Cases); i += 2 {
		m, k := p.Cases[i], p.Cases[i+1]
		if m.Engine != config.EngineModel || k.Engine != config.EngineKafkaStreams {
			t.Fatalf("cases %d,%d: engines %s, %s", i, i+1, m.Engine, k.Engine)
		}
		if m.Threads != k.Threads || m.BatchRecords != k.BatchRecords || !strings.HasSuffix(k.Name, "-kafka-streams") {
			t.Fatalf("cases %s and %s are not one setting", m.Name, k.Name)
		}
	}
}

// A case's streams mapping merges onto the restore section's and never
// leaks into another case; YAML numbers and booleans are taken as text.
func TestStreamsMergeWithoutLeaking(t *testing.T) {
	p, err := Parse([]byte(`
fill: {size: 1MB}
restore:
  engine: kafka-streams
  streams: {num.standby.replicas: 1, acceptable.recovery.lag: 10000}
cases:
  - name: a
    streams: {group.protocol: streams, num.stream.threads: 2}
  - name: b
    jvm_heap: 2GiB
    jvm_flags: [-XX:+UseParallelGC]
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Cases[0], p.Cases[1]
	if a.Streams["group.protocol"] != "streams" || a.Streams["num.standby.replicas"] != "1" || a.Threads != 2 {
		t.Fatalf("a: streams %v threads %d", a.Streams, a.Threads)
	}
	if len(b.Streams) != 2 || b.Streams["group.protocol"] != "" || b.Threads != 1 {
		t.Fatalf("b inherited a's streams: %v threads %d", b.Streams, b.Threads)
	}
	if b.JVMHeap != 2<<30 || len(b.JVMFlags) != 1 || a.JVMHeap != config.DefaultJVMHeap {
		t.Fatalf("jvm: a %v, b %v %v", a.JVMHeap, b.JVMHeap, b.JVMFlags)
	}
}

func TestKafkaStreamsProfileErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    engine: kafka-streams\n    strategy: ingest\n", "line 5: cases[0].strategy: ingest is model-only"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    engine: kafka-streams\n    streams: {state.dir: /tmp/x}\n", "cases[0].streams.state.dir: must not be set here"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    streams: {group.protocol: streams}\n", "cases[0].streams.group.protocol: the model engine has no such setting"},
		{"fill: {size: 1MB}\ncases:\n  - name: a\n    streams: [a]\n", "cases[0].streams"},
		{"fill: {size: 1MB}\ninterleave: maybe\n", "interleave"},
	} {
		_, err := Parse([]byte(tc.yaml), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

// Errors inside a case's streams mapping and warm counts name the key's
// own path and line, whichever common setting it maps to; prefixed client
// overrides of what restorebench owns and secrets are profile errors.
func TestStreamsAndWarmErrorsNameTheirLine(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"fill: {records: 1000}\ncases:\n  - name: a\n    engine: kafka-streams\n    streams:\n      group.protocol: classic\n      num.stream.threads: \"0\"\n",
			"line 7: cases[0].streams.num.stream.threads: 0 must be positive"},
		{"fill: {records: 1000}\ncases:\n  - name: a\n    engine: kafka-streams\n    streams:\n      acceptable.recovery.lag: \"1\"\n      consumer.bootstrap.servers: other:9092\n",
			"line 7: cases[0].streams.consumer.bootstrap.servers: must not be set here"},
		{"fill: {records: 1000}\ncases:\n  - name: a\n    engine: kafka-streams\n    streams:\n      acceptable.recovery.lag: \"1\"\n      ssl.keystore.key: |\n        -----BEGIN PRIVATE KEY-----\n        MIIE\n",
			"line 7: cases[0].streams.ssl.keystore.key: a secret does not belong in a profile"},
		{"fill: {records: 2500}\ncases:\n  - name: w\n    scenario: warm\n    warm:\n      changed:\n        - 10\n        - 10000000\n",
			"line 8: cases[0].warm.changed[1]: 10000000 records is over 10 times the fill's 2500 records (at most 25000"},
		{"fill: {size: 1MB, value_size: 400}\ncases:\n  - name: w\n    scenario: warm\n    warm: {changed: [10000000]}\n",
			"line 5: cases[0].warm.changed[0]: 10000000 records is over 10 times the fill's about 2403 records"},
	} {
		_, err := Parse([]byte(c.yaml), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\nerror %v\nwant %q", c.yaml, err, c.want)
		}
	}
}

// A fill.topic that is not the changelog named after the store runs a
// kafka-streams cold restore (a KTable over the topic) and failover (its own
// topics); every other kafka-streams scenario keeps the kv topology's store,
// so it is refused when the profile is read, naming fill.topic and its line.
func TestKafkaStreamsOnFillTopic(t *testing.T) {
	const fill = "application_id: app\nfill:\n  records: 5000\n  topic: copy-of-prod\n"
	for _, ok := range []string{
		fill + "restore: {engine: kafka-streams}\n",
		fill + "cases:\n  - name: m\n    scenario: warm\n",
		fill + "cases:\n  - name: f\n    engine: kafka-streams\n    scenario: failover\n",
		"application_id: app\nfill:\n  records: 5000\n  topic: app-balances-changelog\ncases:\n  - name: w\n    engine: kafka-streams\n    scenario: warm\n",
	} {
		p, err := Parse([]byte(ok), "t.yaml")
		if err != nil {
			t.Errorf("%q: %v", ok, err)
			continue
		}
		if !strings.HasSuffix(p.Topic, "-changelog") && p.Topic != "copy-of-prod" {
			t.Errorf("%q: topic %s", ok, p.Topic)
		}
	}
	for _, sc := range []string{"warm", "standby", "scaleout", "rolling"} {
		y := fill + "cases:\n  - name: c\n    engine: kafka-streams\n    scenario: " + sc + "\n"
		_, err := Parse([]byte(y), "t.yaml")
		want := "line 4: fill.topic: case c runs scenario " + sc + " on the kafka-streams engine, which restores its store only from app-balances-changelog"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "copy-of-prod") {
			t.Errorf("%s: err = %v, want %q", sc, err, want)
		}
	}
}

// The calibrate-sizes profiles run one setting on both engines at several
// sizes, interleaved; the two differ only in key order (and application
// id, so their fills never share a topic).
func TestCalibrateSizesProfilesSweepBothEngines(t *testing.T) {
	u, err := Load("calibrate-sizes")
	if err != nil {
		t.Fatal(err)
	}
	z, err := Load("calibrate-sizes-zipf")
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Sizes) < 3 || !u.Interleave || u.Ready || u.Repeats < 3 || len(u.Cases) != 2 {
		t.Fatalf("calibrate-sizes: sizes %v interleave %v ready %v repeats %d cases %d", u.Sizes, u.Interleave, u.Ready, u.Repeats, len(u.Cases))
	}
	if u.Cases[0].Engine != config.EngineModel || u.Cases[1].Engine != config.EngineKafkaStreams || u.Cases[0].Threads != u.Cases[1].Threads {
		t.Fatalf("cases %+v", u.Cases)
	}
	if u.Spec.KeyOrder != "uniform" || z.Spec.KeyOrder != "zipf" || u.AppID == z.AppID {
		t.Fatalf("key orders %s / %s, application ids %s / %s", u.Spec.KeyOrder, z.Spec.KeyOrder, u.AppID, z.AppID)
	}
	zs := z.Spec
	zs.KeyOrder = u.Spec.KeyOrder
	if zs != u.Spec || len(z.Cases) != len(u.Cases) || z.Repeats != u.Repeats || len(z.Sizes) != len(u.Sizes) {
		t.Fatalf("the zipf profile differs beyond its key order: %+v vs %+v", z.Spec, u.Spec)
	}
}
