package ksdriver

import (
	"errors"
	"testing"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// Lines as the driver writes them (kstreams/PROTOCOL.md).
const (
	helloLine   = `{"ev":"hello","instance":"i0","mono_ns":100,"wall_ms":1700000000000,"pid":4242,"kafka_streams_version":"4.4.0","java_version":"17.0.15","jvm_args":["-Xmx1024m"],"max_heap_bytes":1073741824,"gc":["G1 Young Generation","G1 Old Generation"],"topology":"kv","store":"balances","bare":false}`
	stateLine   = `{"ev":"state","instance":"i0","mono_ns":200,"wall_ms":1,"from":"REBALANCING","to":"RUNNING"}`
	startLine   = `{"ev":"restore_start","instance":"i0","mono_ns":300,"wall_ms":1,"store":"balances","topic":"app-balances-changelog","partition":3,"start_offset":0,"end_offset":5000}`
	batchLine   = `{"ev":"restore_batch","instance":"i0","mono_ns":400,"wall_ms":1,"store":"balances","topic":"app-balances-changelog","partition":3,"batch_end_offset":999,"records":1000}`
	endLine     = `{"ev":"restore_end","instance":"i0","mono_ns":500,"wall_ms":1,"store":"balances","topic":"app-balances-changelog","partition":3,"restored":5000}`
	standbyLine = `{"ev":"standby_batch","instance":"i1","mono_ns":600,"wall_ms":1,"store":"balances","topic":"app-balances-changelog","partition":1,"task":"0_1","batch_end_offset":10,"records":11,"end_offset":20}`
	suspLine    = `{"ev":"standby_suspended","instance":"i1","mono_ns":650,"wall_ms":1,"store":"balances","topic":"app-balances-changelog","partition":1,"store_offset":10,"end_offset":20,"reason":"PROMOTED"}`
	tasksLine   = `{"ev":"tasks","instance":"i0","mono_ns":700,"wall_ms":1,"threads":[{"name":"app-1-StreamThread-1","state":"RUNNING","active":["0_0","0_1"],"standby":["0_2"]}]}`
	lagsLine    = `{"ev":"lags","instance":"i0","mono_ns":750,"wall_ms":1,"lags":[{"store":"balances","partition":0,"current_offset":5,"end_offset":9,"lag":4}]}`
	procLine    = `{"ev":"process","instance":"i0","mono_ns":800,"wall_ms":1,"cpu_ns":3000000000,"rss_bytes":400000000,"heap_used_bytes":100,"cpu_split_ns":{"stream":1000000000,"jit":900000000,"gc":100000000,"other":1000000000}}`
	digestLine  = `{"ev":"digest","instance":"i0","mono_ns":900,"wall_ms":1,"store":"balances","scope":"active","seconds":0.5,"partitions":[{"partition":1,"keys":3,"live_bytes":30,"digest":"00000000000000ff"},{"partition":0,"keys":2,"live_bytes":20,"digest":"b391fd094105b955"}]}`
	errorLine   = `{"ev":"error","instance":"i0","mono_ns":950,"wall_ms":1,"message":"boom","where":"uncaught","stack":"x"}`
	stopLine    = `{"ev":"stopped","instance":"i0","mono_ns":1000,"wall_ms":1,"clean":true,"seconds":0.25}`
)

func mustParse(t *testing.T, line string) Event {
	t.Helper()
	e, err := Parse([]byte(line))
	if err != nil {
		t.Fatalf("Parse(%s): %v", line, err)
	}
	return e
}

func TestParseTypesEveryEvent(t *testing.T) {
	h := mustParse(t, helloLine).(*Hello)
	if h.Instance != "i0" || h.MonoNs != 100 || h.PID != 4242 || h.KafkaStreamsVersion != "4.4.0" || h.MaxHeapBytes != 1<<30 || len(h.GC) != 2 || h.JVMArgs[0] != "-Xmx1024m" {
		t.Fatalf("hello: %+v", h)
	}
	if s := mustParse(t, stateLine).(*StateChange); s.From != StateRebalancing || s.To != StateRunning {
		t.Fatalf("state: %+v", s)
	}
	rs := mustParse(t, startLine).(*RestoreStart)
	if rs.Topic != "app-balances-changelog" || rs.Partition != 3 || rs.EndOffset != 5000 || rs.Store != "balances" {
		t.Fatalf("restore_start: %+v", rs)
	}
	if b := mustParse(t, batchLine).(*RestoreBatch); b.Records != 1000 || b.BatchEndOffset != 999 {
		t.Fatalf("restore_batch: %+v", b)
	}
	if e := mustParse(t, endLine).(*RestoreEnd); e.Restored != 5000 || e.MonoNs != 500 {
		t.Fatalf("restore_end: %+v", e)
	}
	if s := mustParse(t, standbyLine).(*StandbyBatch); s.Task != "0_1" || s.EndOffset != 20 || s.Instance != "i1" {
		t.Fatalf("standby_batch: %+v", s)
	}
	if s := mustParse(t, suspLine).(*StandbySuspended); s.Reason != "PROMOTED" || s.StoreOffset != 10 {
		t.Fatalf("standby_suspended: %+v", s)
	}
	if tk := mustParse(t, tasksLine).(*Tasks); len(tk.Threads) != 1 || len(tk.Threads[0].Active) != 2 || tk.Threads[0].Standby[0] != "0_2" {
		t.Fatalf("tasks: %+v", tk)
	}
	if l := mustParse(t, lagsLine).(*Lags); len(l.Lags) != 1 || l.Lags[0].Lag != 4 {
		t.Fatalf("lags: %+v", l)
	}
	if p := mustParse(t, procLine).(*Process); p.CPUNs != 3e9 || p.CPUSplitNs.JIT != 9e8 || p.RSSBytes != 4e8 {
		t.Fatalf("process: %+v", p)
	}
	if e := mustParse(t, errorLine).(*Error); e.Where != "uncaught" || e.Err() == nil {
		t.Fatalf("error: %+v", e)
	}
	if s := mustParse(t, stopLine).(*Stopped); !s.Clean || s.Seconds != 0.25 {
		t.Fatalf("stopped: %+v", s)
	}
}

func TestDigestBecomesVerifierStates(t *testing.T) {
	d := mustParse(t, digestLine).(*Digest)
	states := d.States()
	want := []loadgen.PartitionState{
		{Partition: 0, Keys: 2, LiveBytes: 20, Digest: 0xb391fd094105b955},
		{Partition: 1, Keys: 3, LiveBytes: 30, Digest: 0xff},
	}
	if len(states) != len(want) {
		t.Fatalf("states %+v", states)
	}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("state %d = %+v, want %+v", i, states[i], want[i])
		}
	}
}

func TestParseUnknownAndMalformed(t *testing.T) {
	u, err := Parse([]byte(`{"ev":"from_the_future","instance":"i9","mono_ns":5,"wall_ms":1,"x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if uk, ok := u.(*Unknown); !ok || uk.Ev != "from_the_future" || uk.Instance != "i9" || uk.Raw == "" {
		t.Fatalf("unknown event: %#v", u)
	}
	for _, line := range []string{`not json`, `{"instance":"i0"}`, `{"ev":"restore_batch","records":"many"}`} {
		if _, err := Parse([]byte(line)); !errors.Is(err, ErrNotEvent) {
			t.Errorf("Parse(%s) = %v, want ErrNotEvent", line, err)
		}
	}
}

func TestRestoresFoldEventsIntoSpanSeriesAndCompletion(t *testing.T) {
	const topic = "app-s-changelog"
	ev := func(e Event) Event { return e }
	sp := func(p int32) StorePartition { return StorePartition{Store: "s", Topic: topic, Partition: p} }
	sec := int64(time.Second)
	var r Restores
	owed := map[int32]int64{0: 3000, 1: 1000, 2: 0}
	for _, e := range []Event{
		ev(&RestoreStart{Meta: Meta{MonoNs: 10 * sec}, StorePartition: sp(0), EndOffset: 3000}),
		ev(&RestoreStart{Meta: Meta{MonoNs: 10*sec + 1}, StorePartition: sp(1), EndOffset: 1000}),
		ev(&RestoreBatch{Meta: Meta{MonoNs: 10*sec + sec/2}, StorePartition: sp(0), Records: 1000}),
		ev(&RestoreBatch{Meta: Meta{MonoNs: 11*sec + sec/2}, StorePartition: sp(0), Records: 2000}),
		ev(&RestoreBatch{Meta: Meta{MonoNs: 11*sec + sec/2}, StorePartition: sp(1), Records: 1000}),
		ev(&RestoreEnd{Meta: Meta{MonoNs: 12 * sec}, StorePartition: sp(1), Restored: 1000}),
	} {
		if !r.Add(e) {
			t.Fatalf("%T not taken as a restore event", e)
		}
	}
	if r.Add(&Process{}) {
		t.Fatal("a process event counted as a restore event")
	}
	if done, pending := r.EndedAll(topic, owed); done || pending != "0 (3000 of 3000 records)" {
		t.Fatalf("EndedAll = %v, %q", done, pending)
	}
	r.Add(&RestoreEnd{Meta: Meta{MonoNs: 12*sec + sec/10}, StorePartition: sp(0), Restored: 3000})
	if done, _ := r.EndedAll(topic, owed); !done {
		t.Fatal("every partition that owed records ended, yet not done (partition 2 owes none)")
	}
	first, last, ok := r.Span()
	if !ok || first != 10*sec || last != 12*sec+sec/10 {
		t.Fatalf("span %d..%d %v", first, last, ok)
	}
	if r.Records() != 4000 || r.Restored() != 4000 || r.Batches() != 3 {
		t.Fatalf("records %d restored %d batches %d", r.Records(), r.Restored(), r.Batches())
	}
	// 2.1 s: buckets [0,1) [1,2) and a 0.1 s sliver merged into the second.
	s := r.Series(first, last, time.Second, 100)
	if len(s) != 2 || s[0].Records != 1000 || s[1].Records != 3000 || s[1].T != 2.1 || s[1].Bytes != 300000 {
		t.Fatalf("series %+v", s)
	}
}

// TestLastFindsTheLatestEventOfItsType: what an instance holds or is in is
// its latest event of that type, whatever came after it; none without one.
func TestLastFindsTheLatestEventOfItsType(t *testing.T) {
	events := []Event{&StateChange{To: "REBALANCING"}, &Tasks{}, &StateChange{To: "RUNNING"}, &Tasks{}, &Process{}}
	if s, ok := Last[*StateChange](events); !ok || s.To != "RUNNING" {
		t.Fatalf("Last state = %v, %v", s, ok)
	}
	if tk, ok := Last[*Tasks](events); !ok || tk != events[3] {
		t.Fatalf("Last tasks = %p, %v; want the second", tk, ok)
	}
	if d, ok := Last[*Digest](events); ok || d != nil {
		t.Fatalf("Last digest = %v, %v; want none", d, ok)
	}
}
