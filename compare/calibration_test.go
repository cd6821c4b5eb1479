package compare

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// engineRestore is a verified restore of case c on engine e at the given
// threads, taking secs.
func engineRestore(c string, e config.Engine, threads, repeat int, secs float64) runs.Restore {
	r := restore(c, repeat, secs, 100, 100)
	r.Params.Engine, r.Params.Threads = e, threads
	if e == config.EngineKafkaStreams {
		r.Params.Streams = map[string]string{"group.protocol": "classic"} // KS-only: not part of the setting
		r.Params.JVMFlags = []string{"-XX:+UseG1GC"}
		r.Params.KafkaStreamsMetrics = true                             // sampling Kafka Streams' metrics is not a setting either
		r.Params.KafkaStreamsVersion = config.DriverKafkaStreamsVersion // which Kafka Streams ran is not either
	}
	return r
}

func TestEnginePairsRatioPerSettingWithSpread(t *testing.T) {
	m, k := config.EngineModel, config.EngineKafkaStreams
	rs := []runs.Restore{
		engineRestore("t1-model", m, 1, 1, 9), engineRestore("t1-ks", k, 1, 1, 10),
		engineRestore("t2-model", m, 2, 1, 6), engineRestore("t2-ks", k, 2, 1, 6),
		engineRestore("t2-ks", k, 2, 2, 7.5), engineRestore("t2-model", m, 2, 2, 6),
		engineRestore("t1-ks", k, 1, 2, 10), engineRestore("t1-model", m, 1, 2, 8),
		engineRestore("t1-model", m, 1, 3, 8.5), engineRestore("t1-ks", k, 1, 3, 10),
		engineRestore("lonely-model", m, 4, 1, 3), // no kafka-streams counterpart
	}
	rs = append(rs, engineRestore("t1-ks", k, 1, 4, 99))
	rs[len(rs)-1].Verified = false // an unverified repeat never counts
	pairs := EnginePairs(rs)
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want 2: %+v", len(pairs), pairs)
	}
	p1, p2 := pairs[0], pairs[1]
	if p1.Setting != "threads=1" || p1.ModelCase != "t1-model" || p1.KafkaStreamsCase != "t1-ks" || p2.Setting != "threads=2" {
		t.Fatalf("pairs %+v / %+v", p1, p2)
	}
	if p1.Ratio.N != 3 || !near(p1.Ratio.Median, 0.85) || !near(p1.Ratio.Min, 0.8) || !near(p1.Ratio.Max, 0.9) {
		t.Fatalf("t1 ratio %+v from %v", p1.Ratio, p1.Ratios)
	}
	if p1.KafkaStreams.N != 3 || !near(p1.ModelOverKafkaStreams(), 0.85) {
		t.Fatalf("t1 kafka-streams %+v", p1.KafkaStreams)
	}
	if p2.Ratio.N != 2 || !near(p2.Ratio.Min, 0.8) || !near(p2.Ratio.Max, 1) {
		t.Fatalf("t2 ratio %+v", p2.Ratio)
	}
	var buf bytes.Buffer
	if err := NewCalibrationReporter(pairs, false)(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"threads=1", "0.850", "0.800..0.900", "model/KS"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := NewCalibrationReporter(pairs, true)(&buf); err != nil || !strings.Contains(buf.String(), "| threads=1 |") {
		t.Fatalf("markdown (%v):\n%s", err, buf.String())
	}
}

func TestEnginePairsWithoutPairs(t *testing.T) {
	if p := EnginePairs([]runs.Restore{restore("a", 1, 1, 1, 1)}); len(p) != 0 {
		t.Fatalf("pairs from a model-only run: %+v", p)
	}
	var buf bytes.Buffer
	NewCalibrationReporter(nil, false)(&buf)
	if !strings.Contains(buf.String(), "no setting ran on both engines") {
		t.Fatalf("empty table: %s", buf.String())
	}
}

// TestSettingHoldOutsPredictEachSettingFromTheOthers: each setting's Kafka
// Streams time is its model time over the median factor of the others.
func TestSettingHoldOutsPredictEachSettingFromTheOthers(t *testing.T) {
	pair := func(setting string, model, ks float64) EnginePair {
		return EnginePair{Setting: setting, Model: Stat{N: 3, Median: model}, KafkaStreams: Stat{N: 3, Median: ks},
			Ratio: Stat{N: 3, Median: model / ks}}
	}
	pairs := []EnginePair{pair("a", 9, 10), pair("b", 8, 10), pair("c", 7, 10)}
	hs := SettingHoldOuts(pairs)
	if len(hs) != 3 {
		t.Fatalf("%d hold-outs, want 3", len(hs))
	}
	// a: the others' ratios 0.8 and 0.7, median 0.75; 9 / 0.75 = 12 s
	// against 10 s measured: +20%.
	if h := hs[0]; math.Abs(h.ModelOverKafkaStreams-0.75) > 1e-9 || math.Abs(h.Predicted-12) > 1e-9 || math.Abs(h.ErrorPct-20) > 1e-9 {
		t.Fatalf("hold-out a: %+v", h)
	}
	if SettingHoldOuts(pairs[:1]) != nil {
		t.Fatal("a hold-out from a single pair")
	}
}

// sweepRestore is engineRestore at one size of a sweep: its own changelog,
// its step at the size, the bytes it read.
func sweepRestore(c string, e config.Engine, size string, bytes int64, repeat int, secs float64) runs.Restore {
	r := engineRestore(c, e, 1, repeat, secs)
	r.Step = &runs.Step{Case: c, Kind: runs.StepRestore}
	r.SetSize(size)
	r.Topic, r.Bytes, r.Partitions = "rb-"+size+"-balances-changelog", bytes, 4
	return r
}

// TestEnginePairsOfASizeSweepPairWithinEachSize: in a size sweep the same
// setting runs on both engines at every size; each size pairs with itself
// only (its own changelog), carrying its size and the bytes one thread read.
func TestEnginePairsOfASizeSweepPairWithinEachSize(t *testing.T) {
	m, k := config.EngineModel, config.EngineKafkaStreams
	var rs []runs.Restore
	for rep := 1; rep <= 2; rep++ {
		rs = append(rs,
			sweepRestore("t1-model", m, "256MiB", 256<<20, rep, 3), sweepRestore("t1-ks", k, "256MiB", 256<<20, rep, 4),
			sweepRestore("t1-model", m, "1GiB", 1<<30, rep, 10), sweepRestore("t1-ks", k, "1GiB", 1<<30, rep, 11))
	}
	pairs := EnginePairs(rs)
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want one per size: %+v", len(pairs), pairs)
	}
	small, big := pairs[0], pairs[1]
	if small.Size != "256MiB" || big.Size != "1GiB" || small.Ratio.N != 2 || big.Ratio.N != 2 {
		t.Fatalf("pairs %+v / %+v", small, big)
	}
	if !near(small.Ratio.Median, 0.75) || !near(big.Ratio.Median, 10.0/11) {
		t.Fatalf("ratios %v / %v: a pair spans two sizes", small.Ratios, big.Ratios)
	}
	if small.BytesPerThread() != 256<<20 || small.Threads != 1 || big.Params.Threads != 1 {
		t.Fatalf("work %v bytes over %d threads", small.Bytes, small.Threads)
	}
	var buf bytes.Buffer
	if err := NewCalibrationReporter(pairs, false)(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"size", "256MiB", "1GiB", "default @1GiB"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestEnginePairsLeaveOutRepeatsOfDifferentWork: a repeat pair whose
// engines read different records (Kafka Streams reading a window
// changelog from the start where the model sought past its expired head)
// measures different work: it is left out and counted, and a setting with
// no pair left has no ratio, not one of its medians.
func TestEnginePairsLeaveOutRepeatsOfDifferentWork(t *testing.T) {
	m, k := config.EngineModel, config.EngineKafkaStreams
	rs := []runs.Restore{
		engineRestore("w-model", m, 1, 1, 4), engineRestore("w-ks", k, 1, 1, 10),
		engineRestore("w-model", m, 1, 2, 4), engineRestore("w-ks", k, 1, 2, 5),
	}
	for i := range rs {
		rs[i].Records = 1000
	}
	rs[1].Records = 2000 // repeat 1: Kafka Streams read twice the records
	p := EnginePairs(rs)[0]
	if p.Unmatched != 1 || p.Ratio.N != 1 || !near(p.Ratio.Median, 0.8) {
		t.Fatalf("pair %+v: want repeat 2's ratio 0.8 only, 1 left out", p)
	}
	rs[3].Records = 1011 // 1.1% more
	p = EnginePairs(rs)[0]
	if p.Unmatched != 2 || p.Ratio.N != 0 || p.ModelOverKafkaStreams() != 0 {
		t.Fatalf("pair %+v: want no ratio", p)
	}
	var buf bytes.Buffer
	if err := NewCalibrationReporter([]EnginePair{p}, false)(&buf); err != nil || !strings.Contains(buf.String(), "0 (2 left out: the engines read different records)") {
		t.Fatalf("table (%v):\n%s", err, buf.String())
	}
}

// TestEnginePairsMediansFallbackNeedsSameWork: without a repeat pair (no
// repeat verified on both engines) the ratio falls back to the two
// medians, but only when the engines read the same records: a Kafka
// Streams restore that read a window changelog from the log start is not
// the model's work, and its time divided into the model's is no factor.
func TestEnginePairsMediansFallbackNeedsSameWork(t *testing.T) {
	m, k := config.EngineModel, config.EngineKafkaStreams
	rs := []runs.Restore{
		engineRestore("w-model", m, 1, 1, 4), engineRestore("w-ks", k, 1, 2, 10),
	}
	rs[0].Records, rs[1].Records = 1000, 2000
	p := EnginePairs(rs)[0]
	if p.ModelOverKafkaStreams() != 0 {
		t.Fatalf("pair %+v: a ratio of medians of different work", p)
	}
	rs[1].Records = 1005
	p = EnginePairs(rs)[0]
	if !near(p.ModelOverKafkaStreams(), 0.4) {
		t.Fatalf("pair %+v: want the medians' ratio 0.4 for the same work", p)
	}
}

// TestEnginePairsOfOneModelCaseNameTheKafkaStreamsSide: one model case
// paired with two kafka-streams cases that differ only in a Kafka
// Streams-only property. Before, both rows read "default" with different
// factors; now each names the property's value, and two kafka-streams
// cases of the same settings are told apart by name.
func TestEnginePairsOfOneModelCaseNameTheKafkaStreamsSide(t *testing.T) {
	m, k := config.EngineModel, config.EngineKafkaStreams
	wait := engineRestore("ks-wait10", k, 1, 1, 1.26)
	wait.Params.Streams = map[string]string{"group.protocol": "classic", "restore.consumer.fetch.max.wait.ms": "10"}
	rs := []runs.Restore{engineRestore("model", m, 1, 1, 1.34), engineRestore("ks-default", k, 1, 1, 1.95), wait}
	pairs := EnginePairs(rs)
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want 2", len(pairs))
	}
	want := []string{"default, streams.restore.consumer.fetch.max.wait.ms=(unset)", "default, streams.restore.consumer.fetch.max.wait.ms=10"}
	for i, p := range pairs {
		if p.Setting != "default" || p.Label() != want[i] {
			t.Errorf("pair %d (%s): setting %q, label %q, want %q", i, p.KafkaStreamsCase, p.Setting, p.Label(), want[i])
		}
	}
	var buf bytes.Buffer
	if err := NewCalibrationReporter(pairs, false)(&buf); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if strings.Count(buf.String(), w+" ") != 2 { // the pairs table and the held-out table
			t.Errorf("tables name %q %d times, want 2:\n%s", w, strings.Count(buf.String(), w+" "), buf.String())
		}
	}

	same := []runs.Restore{engineRestore("model", m, 1, 1, 1.34), engineRestore("ks-a", k, 1, 1, 1.95), engineRestore("ks-b", k, 1, 1, 1.9)}
	pairs = EnginePairs(same)
	if len(pairs) != 2 || pairs[0].Label() != "default, vs ks-a" || pairs[1].Label() != "default, vs ks-b" {
		t.Errorf("same settings: labels %q, %q, want them told apart by case", pairs[0].Label(), pairs[1].Label())
	}
	one := EnginePairs([]runs.Restore{engineRestore("model", m, 1, 1, 1.34), engineRestore("ks-a", k, 1, 1, 1.95)})
	if len(one) != 1 || one[0].Label() != "default" {
		t.Errorf("one pair: label %q, want default", one[0].Label())
	}
}
