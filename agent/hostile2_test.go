package agent

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/javaprops"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/loadgen"
)

// A second round of hostile tests: an attacker who can produce to and
// consume from both topics but holds no key, and a key holder sending
// hostile payloads.

// signedHeaders are the four signature headers of a record on topic keyed
// key with value, as a holder of k would write them with kid, ts and
// nonce of its choosing.
func signedHeaders(k *Key, kid, ts, nonce, topic, key string, value []byte) []kgo.RecordHeader {
	mac := k.mac(kid, ts, nonce, topic, []byte(key), value)
	return []kgo.RecordHeader{{Key: headerKeyID, Value: []byte(kid)}, {Key: headerTime, Value: []byte(ts)},
		{Key: headerNonce, Value: []byte(nonce)}, {Key: headerMAC, Value: []byte(hex.EncodeToString(mac))}}
}

// fixedVerifier is a verifier under the test key whose clock is *now, and
// the lines it logged.
func fixedVerifier(t *testing.T, now *time.Time) (*verifier, *[]string) {
	var mu sync.Mutex
	var lines []string
	v := newVerifier(testKey(t), 0, "test", func(format string, args ...any) {
		mu.Lock()
		lines = append(lines, fmt.Sprintf(format, args...))
		mu.Unlock()
	})
	v.now = func() time.Time { return *now }
	return v, &lines
}

func msString(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// TestHostileHeaderTricks: duplicated, reordered, empty, huge and
// transplanted signature headers. The last of duplicated headers counts
// and the MAC binds it, so garbage put before a genuine signature changes
// nothing and garbage after it is refused; a MAC made for another topic,
// another agent or under another key with this key's id is refused; no
// refused record leaves replay state behind, and each reason is logged
// once, in a bounded line.
func TestHostileHeaderTricks(t *testing.T) {
	now := time.Now()
	v, lines := fixedVerifier(t, &now)
	k := testKey(t)
	ts := msString(now)
	value := (&Message{Type: TypeCommand, Agent: "a1", Run: "r", ID: "c1", Op: OpHello}).Encode()
	rec := func(topic, key string, h []kgo.RecordHeader) *kgo.Record {
		return &kgo.Record{Topic: topic, Key: []byte(key), Value: value, Headers: h}
	}
	genuine := func(nonce string) []kgo.RecordHeader {
		return signedHeaders(k, k.id, ts, nonce, ControlTopic, "a1", value)
	}
	garbage := []kgo.RecordHeader{{Key: headerKeyID, Value: []byte("0000000000000000")}, {Key: headerTime, Value: []byte("1")},
		{Key: headerNonce, Value: []byte("evil-1")}, {Key: headerMAC, Value: []byte("00")}}
	other, err := NewKey([]byte("an attacker's own key, 32 bytes or more......"))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("9", 1<<20)
	reversed := genuine("s-2")
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	truncated := genuine("s-9")
	truncated[3].Value = truncated[3].Value[:32]
	for _, tc := range []struct {
		name   string
		r      *kgo.Record
		reason string // "" accepted
	}{
		{"genuine", rec(ControlTopic, "a1", genuine("s-1")), ""},
		{"the same again", rec(ControlTopic, "a1", genuine("s-1")), RefusedReplayed},
		{"garbage headers before a genuine signature", rec(ControlTopic, "a1", append(append([]kgo.RecordHeader{}, garbage...), genuine("s-2")...)), ""},
		{"that record with its headers reversed", rec(ControlTopic, "a1", reversed), RefusedReplayed},
		{"a second timestamp after a genuine signature", rec(ControlTopic, "a1", append(genuine("s-3"), kgo.RecordHeader{Key: headerTime, Value: []byte(msString(now.Add(time.Second)))})), RefusedBadMAC},
		{"a second nonce after a genuine signature", rec(ControlTopic, "a1", append(genuine("s-4"), kgo.RecordHeader{Key: headerNonce, Value: []byte("s-5")})), RefusedBadMAC},
		{"an empty MAC after a genuine signature", rec(ControlTopic, "a1", append(genuine("s-6"), kgo.RecordHeader{Key: headerMAC})), RefusedUnsigned},
		{"the MAC truncated", rec(ControlTopic, "a1", truncated), RefusedBadMAC},
		{"headers of a megabyte each", rec(ControlTopic, "a1", []kgo.RecordHeader{{Key: headerKeyID, Value: []byte(k.id)}, {Key: headerTime, Value: []byte(big)},
			{Key: headerNonce, Value: []byte(big)}, {Key: headerMAC, Value: []byte(big)}}), RefusedBadMAC},
		{"a megabyte key id", rec(ControlTopic, "a1", []kgo.RecordHeader{{Key: headerKeyID, Value: []byte(big)}, {Key: headerTime, Value: []byte(ts)},
			{Key: headerNonce, Value: []byte("s-7")}, {Key: headerMAC, Value: []byte("00")}}), RefusedUnknownKey},
		{"a control record's signature on the events topic", rec(EventsTopic, "a1", signedHeaders(k, k.id, ts, "s-8", ControlTopic, "a1", value)), RefusedBadMAC},
		{"a1's signature on a record keyed a2", rec(ControlTopic, "a2", signedHeaders(k, k.id, ts, "s-10", ControlTopic, "a1", value)), RefusedBadMAC},
		{"another key under this key's id", rec(ControlTopic, "a1", signedHeaders(other, k.id, ts, "s-11", ControlTopic, "a1", value)), RefusedBadMAC},
		{"header names in capitals", rec(ControlTopic, "a1", []kgo.RecordHeader{{Key: "RB-KID", Value: []byte(k.id)}, {Key: "RB-TS", Value: []byte(ts)},
			{Key: "RB-NONCE", Value: []byte("s-12")}, {Key: "RB-MAC", Value: genuine("s-12")[3].Value}}), RefusedUnsigned},
	} {
		err := v.check(tc.r)
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.reason != "" && err == nil:
			t.Errorf("%s: accepted", tc.name)
		case tc.reason != "":
			if rf, ok := err.(*refusal); !ok || rf.reason != tc.reason {
				t.Errorf("%s: %v, want it refused as %s", tc.name, err, tc.reason)
			}
			v.accept(tc.r) // counted and logged as the agent would
		}
	}
	if len(v.streams) != 1 {
		t.Errorf("%d replay streams kept, want the genuine sender's alone: refused records must leave none", len(v.streams))
	}
	if len(*lines) > 5 {
		t.Errorf("%d lines logged for 5 reasons", len(*lines))
	}
	for _, l := range *lines {
		if len(l) > 600 {
			t.Errorf("a refusal logged in %d bytes: %.200s...", len(l), l)
		}
	}
}

// TestHostileNoncesAndTimestamps: a key holder's malformed nonces and
// timestamps are refused without replay state; the clock's edges are
// exact (±MaxSkew accepted, a millisecond beyond refused); the largest
// counter is taken once and then closes its stream to older ones.
func TestHostileNoncesAndTimestamps(t *testing.T) {
	now := time.UnixMilli(time.Now().UnixMilli()) // timestamps are in ms
	v, _ := fixedVerifier(t, &now)
	k := testKey(t)
	value := []byte(`{"type":"lease","agent":"a1","run":"r"}`)
	try := func(ts, nonce string) error {
		return v.check(&kgo.Record{Topic: ControlTopic, Key: []byte("a1"), Value: value, Headers: signedHeaders(k, k.id, ts, nonce, ControlTopic, "a1", value)})
	}
	ts := msString(now)
	for _, nonce := range []string{"s-0", "s--1", "s-+1", "s-abc", "s-", "s", "s-1-2", "s-18446744073709551616", "s-0x10", "s- 1", "s-1 ", "s-١"} {
		if err := try(ts, nonce); err == nil {
			t.Errorf("nonce %q accepted", nonce)
		}
	}
	for _, bad := range []string{"9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e12", " " + ts, ts + " ", "+" + msString(now.Add(-time.Hour)), "0x1", "NaN"} {
		if err := try(bad, "t-1"); err == nil {
			t.Errorf("timestamp %q accepted", bad)
		}
	}
	if len(v.streams) != 0 {
		t.Fatalf("%d replay streams after refused records only", len(v.streams))
	}
	skew := DefaultMaxSkew
	for i, tc := range []struct {
		at   time.Time
		want bool
	}{{now.Add(skew), true}, {now.Add(-skew), true}, {now.Add(skew + time.Millisecond), false}, {now.Add(-skew - time.Millisecond), false}} {
		if got := try(msString(tc.at), "edge-"+strconv.Itoa(i+1)) == nil; got != tc.want {
			t.Errorf("signed %s from now: accepted %v, want %v", tc.at.Sub(now), got, tc.want)
		}
	}
	if err := try(ts, "m-18446744073709551615"); err != nil {
		t.Fatalf("the largest counter: %v", err)
	}
	for _, nonce := range []string{"m-18446744073709551615", "m-1"} {
		if err := try(ts, nonce); err == nil {
			t.Errorf("%s accepted after the largest counter", nonce)
		}
	}
}

// TestReplayRefusedAcrossPruning: a record signed at either edge of the
// clock window, replayed every quarter second while the verifier prunes
// the streams it no longer needs, is never accepted a second time: its
// stream is forgotten only once the record itself is stale.
func TestReplayRefusedAcrossPruning(t *testing.T) {
	now0 := time.UnixMilli(time.Now().UnixMilli()) // timestamps are in ms
	now := now0
	v, _ := fixedVerifier(t, &now)
	k := testKey(t)
	value := []byte(`{"type":"command","agent":"a1"}`)
	mk := func(at time.Time, nonce string) *kgo.Record {
		return &kgo.Record{Topic: ControlTopic, Key: []byte("a1"), Value: value, Headers: signedHeaders(k, k.id, msString(at), nonce, ControlTopic, "a1", value)}
	}
	skew := DefaultMaxSkew
	future, past := mk(now0.Add(skew), "f-1"), mk(now0.Add(-skew), "p-1")
	for _, r := range []*kgo.Record{future, past} {
		if err := v.check(r); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for now = now0; now.Before(now0.Add(5 * skew)); now = now.Add(250 * time.Millisecond) {
		n++
		if err := v.check(mk(now, "live-"+strconv.Itoa(n))); err != nil { // another sender, so that pruning runs
			t.Fatal(err)
		}
		for _, r := range []*kgo.Record{future, past} {
			if v.check(r) == nil {
				t.Fatalf("replayed %s after the first: accepted again", now.Sub(now0))
			}
		}
	}
	if _, kept := v.streams[streamID{"f", ControlTopic, "a1"}]; kept {
		t.Fatal("the stream was never pruned: this test did not test pruning")
	}
}

// TestRefusedFloodKeepsNoState: tens of thousands of records from senders
// without the key (unsigned, other key ids, this key's id with a wrong
// MAC, each under a new session) leave no replay state and log one line
// per reason.
func TestRefusedFloodKeepsNoState(t *testing.T) {
	now := time.Now()
	v, lines := fixedVerifier(t, &now)
	k := testKey(t)
	value := []byte(`{"type":"command","agent":"a1","op":"hello"}`)
	for i := range 30000 {
		nonce := "flood" + strconv.Itoa(i) + "-1"
		var h []kgo.RecordHeader
		switch i % 3 {
		case 0:
		case 1:
			h = signedHeaders(k, strconv.Itoa(i), msString(now), nonce, ControlTopic, "a1", value)
		case 2:
			h = signedHeaders(k, k.id, msString(now), nonce, ControlTopic, "a1", value)
			h[3].Value = []byte(hex.EncodeToString(make([]byte, 32)))
		}
		if v.accept(&kgo.Record{Topic: ControlTopic, Key: []byte("a1"), Value: value, Headers: h}) {
			t.Fatalf("record %d accepted", i)
		}
	}
	if len(v.streams) != 0 || len(v.refused) != 3 || len(*lines) != 3 {
		t.Fatalf("after the flood: %d streams, %d reasons, %d lines logged: want 0, 3, 3", len(v.streams), len(v.refused), len(*lines))
	}
	if c := v.counts(); c[RefusedUnsigned] != 10000 || c[RefusedUnknownKey] != 10000 || c[RefusedBadMAC] != 10000 {
		t.Fatalf("counts %v", c)
	}
}

// TestHostileStartPayloads: a signed start's JVM flags, properties and
// names at and past their bounds. Flags with a trailing space or newline,
// a second flag on one line, look-alike letters or dashes are refused; the
// bounds are exact; a property value with newlines is written so that it
// adds no property; an instance's directory stays under the state
// directory whatever its name; the API layer is never opened to other
// hosts.
func TestHostileStartPayloads(t *testing.T) {
	startArgs := func(flags []string, props map[string]string) StartArgs {
		p := map[string]string{"application.id": "app"}
		for k, v := range props {
			p[k] = v
		}
		return StartArgs{Properties: p, JVMFlags: flags}
	}
	startOf := func(args StartArgs) *Message {
		return withArgs(&Message{Type: TypeCommand, Protocol: ProtocolVersion, Run: "r", ID: "c1", Op: OpStart, Fleet: "app", Instance: "i0"}, args)
	}
	start := func(flags []string, props map[string]string) *Message { return startOf(startArgs(flags, props)) }
	for _, f := range []string{"-Xmx1g ", " -Xmx1g", "-Xmx1g\n", "-Xmx1g\r", "-XX:+UseG1GC\n-XX:OnError=x", "-Xmx1g -XX:OnError=x",
		"-XX:+UseG1GC\x00", "-XX:+UseG1GC\t", "-Хmx1g" /* Cyrillic Ха */, "\u2010Xmx1g", "\uff0dXmx1g", "-XX:+\uff35seG1GC",
		"-XX:UseG1GC", "-Xmx", "-Xmx1gg", "@/tmp/args", "-XX:Flags=/tmp/x", "-XX:VMOptionsFile=/tmp/x", "-Xlog:gc:file=/tmp/x",
		"-XX:MaxRAM=1g=2", "-XX:MaxRAM=-1", "-XX:MaxRAMPercentage=1e3", "-XX:+UnlockDiagnosticVMOptions", "-XX:OnOutOfMemoryError=x",
		"-Djava.security.manager=allow", "-javaagent:/tmp/a.jar", "--add-opens=java.base/java.lang=ALL-UNNAMED", ""} {
		if err := validate(start([]string{f}, nil)); err == nil {
			t.Errorf("JVM flag %q accepted", f)
		}
	}
	ok := []string{"-Xmx1g", "-XX:+UseG1GC", "-XX:MaxRAMPercentage=75.0", "-Xss512k"}
	if err := validate(start(ok, nil)); err != nil {
		t.Fatalf("allowed flags %q: %v", ok, err)
	}
	flags := make([]string, maxJVMFlags+1)
	for i := range flags {
		flags[i] = "-XX:+UseG1GC"
	}
	if err := validate(start(flags[:maxJVMFlags], nil)); err != nil {
		t.Errorf("%d flags: %v", maxJVMFlags, err)
	}
	if err := validate(start(flags, nil)); err == nil {
		t.Errorf("%d flags accepted", len(flags))
	}

	many := map[string]string{}
	for i := range maxProperties - 1 {
		many["p"+strconv.Itoa(i)] = "v"
	}
	if err := validate(start(nil, many)); err != nil {
		t.Errorf("%d properties: %v", maxProperties, err)
	}
	many["one.more"] = "v"
	if err := validate(start(nil, many)); err == nil {
		t.Errorf("%d properties accepted", maxProperties+1)
	}
	key := "client.id"
	if err := validate(start(nil, map[string]string{key: strings.Repeat("x", maxPropertyBytes-len(key))})); err != nil {
		t.Errorf("a property of %d bytes: %v", maxPropertyBytes, err)
	}
	if err := validate(start(nil, map[string]string{key: strings.Repeat("x", maxPropertyBytes-len(key)+1)})); err == nil {
		t.Errorf("a property of %d bytes accepted", maxPropertyBytes+1)
	}
	for _, p := range []map[string]string{
		{"client.id\nstate.dir": "/"}, {"client.id=x": "y"}, {"client.id:x": "y"}, {"": "x"}, {"client.id": "x\x00"},
		{"restorebench.secrets.file.x": "/etc/shadow"}, {"main.consumer.restorebench.connect.x": "1"},
		{ksdriver.PropInputTopic: "user-orders"}, {ksdriver.PropInputTopic: "appx-in"}, {ksdriver.PropOutputTopic: "other-app-out"},
		{"application.id": "app", "client.id": "${env:HOME}"},
	} {
		if err := validate(start(nil, p)); err == nil {
			t.Errorf("properties %q accepted", p)
		}
	}
	// The API layer listens where the agent's own load reaches it, never
	// on an address other hosts reach.
	for _, h := range []string{"0.0.0.0", "::", "10.1.2.3", "example.com", "127.0.0.1 ", ""} {
		if err := validate(start(nil, map[string]string{ksdriver.PropAPIPort: "0", ksdriver.PropAPIHost: h})); err == nil {
			t.Errorf("%s %q accepted: a hostile coordinator opens the agent's API layer to other hosts", ksdriver.PropAPIHost, h)
		}
	}
	for _, h := range []string{"127.0.0.1", "::1"} {
		if err := validate(start(nil, map[string]string{ksdriver.PropAPIPort: "0", ksdriver.PropAPIHost: h})); err != nil {
			t.Errorf("%s %q: %v", ksdriver.PropAPIHost, h, err)
		}
	}
	// A value with line breaks and separators is a value: written out,
	// it adds no property (a second state.dir, a secrets file).
	inject := "x\nstate.dir=/\r\nrestorebench.secrets.file=/etc/shadow\\\n  more=1"
	m := start(nil, map[string]string{"client.id": inject})
	if err := validate(m); err != nil {
		t.Fatal(err)
	}
	props := (&Agent{client: cluster.JavaClient{Plain: map[string]string{"bootstrap.servers": "k:9092"}}}).processProperties(m.args.(*StartArgs).Properties)
	props["state.dir"] = "/agent/state"
	parsed, err := javaprops.Parse(javaprops.Encode(props))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range parsed {
		got[p.Key] = p.Value
	}
	if len(got) != len(props) || got["client.id"] != inject || got["state.dir"] != "/agent/state" {
		t.Fatalf("CONFIG.properties reads back as %q", got)
	}

	// Names: look-alike dots and slashes are plain names, kept under the
	// state directory; the byte bound is exact; a NUL or separator is
	// refused.
	a := &Agent{cfg: Config{StateDir: "/agent/state"}}
	for _, name := range []string{"\uff0e\uff0e", "\u2024\u2024", "a\u2215b", "a\uff0fb", "...", "-rf", "~", strings.Repeat("\U0001F600", 50), strings.Repeat("x", 200)} {
		m := &Message{Type: TypeCommand, Protocol: ProtocolVersion, Run: name, ID: "c1", Op: OpWipe, Fleet: name, Instance: name}
		if err := validate(m); err != nil {
			t.Errorf("name %q: %v", name, err)
			continue
		}
		if rel, err := filepath.Rel(a.cfg.StateDir, a.stateDir(name, name, name)); err != nil || rel == ".." || strings.HasPrefix(rel, "../") || strings.Count(rel, string(filepath.Separator)) != 3 {
			t.Errorf("name %q: state dir %s is not three levels under the agent's", name, a.stateDir(name, name, name))
		}
	}
	for _, name := range []string{strings.Repeat("x", 201), strings.Repeat("\U0001F600", 51), "a/b", "a\\b", "a\x00b", ".", "..", ""} {
		if err := validate(&Message{Type: TypeCommand, Protocol: ProtocolVersion, Run: "r", ID: "c1", Op: OpWipe, Fleet: "app", Instance: name}); err == nil {
			t.Errorf("instance %q accepted", name)
		}
	}
	for _, n := range []int{-1, maxProcessN + 1, math.MaxInt} {
		if err := validate(&Message{Type: TypeCommand, Protocol: ProtocolVersion, Run: "r", ID: "c1", Op: OpWipe, Fleet: "app", Instance: "i0", N: n}); err == nil {
			t.Errorf("process number %d accepted", n)
		}
	}
	for _, v := range []string{"3.7.0\n", "../3.7.0", "3.7", "3.7.0.1", "1234.0.0"} {
		args := startArgs(nil, nil)
		args.KafkaStreamsVersion = v
		if err := validate(startOf(args)); err == nil {
			t.Errorf("Kafka Streams version %q accepted", v)
		}
	}
}

// TestDurationsOutOfRangeDoNotWrap: a lease's TTL and a queries_stop's
// wait are bounded in milliseconds before they become durations, so a
// count of milliseconds that overflows a time.Duration into the allowed
// range is refused rather than taken as another value.
func TestDurationsOutOfRangeDoNotWrap(t *testing.T) {
	// 2^58 ms + 1000 ms is 1 s once multiplied by 10^6 in 64 bits.
	wraps := int64(1)<<58 + 1000
	if d := time.Duration(wraps) * time.Millisecond; d != time.Second {
		t.Fatalf("the test's premise: %d ms wraps to %s", wraps, d)
	}
	for _, ms := range []int64{wraps, math.MaxInt64, math.MinInt64, -1, 99, 3_600_001} {
		if d, err := validLeaseTTL(ms); err == nil {
			t.Errorf("a lease of %d ms taken, as %s", ms, d)
		}
		if ms == 99 {
			continue
		}
		if err := checkQueriesStop(&Message{}, &QueryStop{AfterMs: ms}); err == nil {
			t.Errorf("queries_stop after %d ms accepted", ms)
		}
	}
	for _, ms := range []int64{0, 100, 3_600_000} {
		if _, err := validLeaseTTL(ms); err != nil {
			t.Errorf("a lease of %d ms: %v", ms, err)
		}
	}
	if err := checkQueriesStop(&Message{}, &QueryStop{AfterMs: 3_600_000}); err != nil {
		t.Error(err)
	}
}

// TestReplayToRestartedAgent: a command an attacker read off the control
// topic, written again to an agent that has since restarted (its replay
// state is new), within the two minutes its timestamp is fresh, is not
// executed a second time: the new agent acts on no record signed before
// it started.
func TestReplayToRestartedAgent(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	m1, m2 := &fakeModel{}, &fakeModel{}
	ta1 := startAgentWith(t, cfg, "a1", time.Second, m1.restore)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runr"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	job := modelJob()
	captured := captureSigned(t, co, withArgs(&Message{Type: TypeCommand, Agent: "a1", Run: "runr", ID: "replayme", Op: OpModelRestore, Fleet: "app", Instance: "i0"}, job))
	f := newForger(t, cfg)
	f.produce("a1", captured.Value, captured.Headers) // as the coordinator sent it
	for m1.calls.Load() == 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	if m1.calls.Load() != 1 {
		t.Fatal("the genuine command did not run")
	}
	ta1.stop()
	time.Sleep(5 * time.Millisecond)
	ta2 := startAgentWith(t, cfg, "a1", time.Second, m2.restore)
	f.produce("a1", captured.Value, captured.Headers) // replayed to the new process
	// The replay is read once a forged record written after it is: wait
	// for that one's refusal.
	f.produce("a1", []byte(`{}`), nil)
	for ta2.a.verify.counts()[RefusedUnsigned] == 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // a restore would have started by now
	if n := m2.calls.Load(); n != 0 {
		t.Fatalf("a command captured before the agent restarted ran again in the new agent (%d restores)", n)
	}
	if n := ta2.a.verify.counts()[RefusedStale]; n != 1 {
		t.Fatalf("the replay was not refused as stale: %v", ta2.a.verify.counts())
	}
}

// fillAgent is an agent whose fills are counted and, for topics named in
// gate, wait until the gate closes.
func fillAgent(t *testing.T, cfg cluster.Config, name string, fills *atomic.Int32, gate chan struct{}) *testAgent {
	return startAgentConfig(t, cfg, name, time.Second, func(c *Config) {
		c.Fill = func(ctx context.Context, _ cluster.Config, job FillJob, _ func(string, ...any)) (*Filled, error) {
			fills.Add(1)
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return &Filled{Seconds: 1.5}, nil
		}
	})
}

// TestFillIntoBusTopicsRefused: a signed fill naming the control or the
// events topic is refused, though the events topic is empty (no process
// ran yet) and has the fill's one partition: an agent never writes fill
// records into the topics agents and coordinators talk through.
func TestFillIntoBusTopicsRefused(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	var fills atomic.Int32
	fillAgent(t, cfg, "a1", &fills, nil)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runf"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Partitions = 500, 1
	for _, topic := range []string{EventsTopic, ControlTopic} {
		_, err := co.Fill(ctx, "a1", FillJob{Topic: topic, Spec: spec})
		if err == nil || !strings.Contains(err.Error(), "agent a1 refused it") {
			t.Errorf("a fill into %s: %v", topic, err)
		}
	}
	if n := fills.Load(); n != 0 {
		t.Fatalf("%d fills written into the agents' own topics", n)
	}
}

// TestForgedRepliesToPendingCommand: while a command waits for its
// reply, replies and reply parts for every likely command id, unsigned,
// under another key, or a signed reply of the agent's replayed, do not
// answer it: the coordinator returns the agent's own reply.
func TestForgedRepliesToPendingCommand(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	var fills atomic.Int32
	gate := make(chan struct{})
	fillAgent(t, cfg, "a1", &fills, gate)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runp"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "runp-fill"); err != nil {
		t.Fatal(err)
	}
	// Read the control topic as an attacker does, to replay the agent's
	// signed replies.
	spy, err := cluster.NewClient(cfg, kgo.ConsumeTopics(ControlTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Partitions = 500, 1
	type result struct {
		f   *Filled
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := co.Fill(ctx, "a1", FillJob{Topic: "runp-fill", Spec: spec})
		done <- result{f, err}
	}()
	for fills.Load() == 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	f := newForger(t, cfg)
	other, _ := NewKey([]byte("an attacker's own key, 32 bytes or more......"))
	forgedFill := &Filled{Seconds: 999}
	for i := 1; i <= 40; i++ {
		id := "c" + strconv.Itoa(i)
		whole := (&Message{Type: TypeReply, Agent: "a1", Run: "runp", ID: id, Op: OpFill, OK: true, Result: encodePayload(forgedFill), Protocol: ProtocolVersion}).Encode()
		part := (&Message{Type: TypeReplyPart, Agent: "a1", Run: "runp", ID: id, Op: OpFill, Part: 0, Parts: 1, Data: whole}).Encode()
		bad := (&Message{Type: TypeReplyPart, Agent: "a1", Run: "runp", ID: id, Op: OpFill, Part: 0, Parts: 2, Data: []byte("x")}).Encode()
		for _, v := range [][]byte{whole, part, bad} {
			f.produce("a1", v, nil)
			f.produce("a1", v, f.signed(other, time.Now(), "a1", v))
		}
	}
	// Every signed reply of the agent so far (hello, clocks), written again.
	key := testKey(t)
	signed := map[string]*kgo.Record{} // by nonce
	pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
	for pctx.Err() == nil {
		spy.PollFetches(pctx).EachRecord(func(r *kgo.Record) {
			var kid, nonce string
			for _, h := range r.Headers {
				switch h.Key {
				case headerKeyID:
					kid = string(h.Value)
				case headerNonce:
					nonce = string(h.Value)
				}
			}
			if m, err := DecodeMessage(r.Value); err == nil && m.Type == TypeReply && kid == key.id {
				signed[nonce] = r
			}
		})
	}
	pcancel()
	for _, r := range signed {
		f.produce("a1", r.Value, r.Headers)
	}
	replayed := len(signed)
	if replayed == 0 {
		t.Fatal("no signed reply read to replay")
	}
	close(gate)
	r := <-done
	if r.err != nil || r.f == nil || r.f.Seconds != 1.5 {
		t.Fatalf("the fill's reply: %+v, %v: want the agent's own (1.5 s)", r.f, r.err)
	}
	if c := co.Refused(); c[RefusedUnsigned] < 120 || c[RefusedUnknownKey] < 120 || c[RefusedReplayed] < int64(replayed) {
		t.Fatalf("the coordinator's refusals %v: want 120 unsigned, 120 under another key, %d replayed", c, replayed)
	}
	if co.Lost("a1") != nil {
		t.Fatal(co.Lost("a1"))
	}
}

// TestHostileRecordsAtTheAgent: a flood of records without the key, a
// captured command moved to another agent's key, and a key holder's
// command whose JSON repeats keys (the last of each counts, in any case
// of letters) leave the agent as it was: no process, no deleted
// directory, no replay state, no kept reply or run but the legitimate
// ones, and it still answers.
func TestHostileRecordsAtTheAgent(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runh"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := co.Start(ctx, "a1", ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app"}})
	if err != nil {
		t.Fatal(err)
	}
	state := ta.a.stateDir("runh", "app", "i1")
	ta.a.mu.Lock()
	replies0, leases0 := len(ta.a.replies), len(ta.a.leases)
	ta.a.mu.Unlock()

	f := newForger(t, cfg)
	key := testKey(t)
	wipe := (&Message{Type: TypeCommand, Protocol: ProtocolVersion, Agent: "a1", Run: "runh", ID: "w", Op: OpWipe, Fleet: "app", Instance: "i1"}).Encode()
	big := []byte(strings.Repeat("7", 20<<10))
	const flood = 1500
	recs := make([]*kgo.Record, 0, flood)
	for i := range flood {
		v := (&Message{Type: TypeCommand, Protocol: ProtocolVersion, Agent: "a1", Run: "flood" + strconv.Itoa(i), ID: "c" + strconv.Itoa(i), Op: OpRemove, Fleet: "app"}).Encode()
		var h []kgo.RecordHeader
		switch i % 4 {
		case 1:
			h = signedHeaders(key, "k"+strconv.Itoa(i), msString(time.Now()), "x"+strconv.Itoa(i)+"-1", ControlTopic, "a1", v)
		case 2:
			h = f.signed(key, time.Now(), "a1", wipe) // the MAC of another value
		case 3:
			h = []kgo.RecordHeader{{Key: headerKeyID, Value: []byte(key.id)}, {Key: headerTime, Value: big}, {Key: headerNonce, Value: big}, {Key: headerMAC, Value: big}}
		}
		recs = append(recs, &kgo.Record{Topic: ControlTopic, Key: []byte("a1"), Value: v, Headers: h})
	}
	if err := f.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// A wipe the coordinator signed for agent a2, written keyed a1.
	moved := captureSigned(t, co, &Message{Type: TypeCommand, Agent: "a2", Run: "runh", ID: "m1", Op: OpWipe, Fleet: "app", Instance: "i1"})
	f.produce("a1", moved.Value, moved.Headers)
	// A key holder's command with repeated keys: decoded, it is a wipe of
	// fleet "..", which is refused; the hello and the plain fleet before
	// it are not what runs.
	dup := []byte(fmt.Sprintf(`{"type":"command","agent":"a1","protocol":%d,"run":"runh","id":"dup1","op":"hello","OP":"wipe","fleet":"app","Fleet":"..","instance":"i1"}`, ProtocolVersion))
	f.produce("a1", dup, f.signed(key, time.Now(), "a1", dup))
	// Unknown fields are ignored; the command is what its known ones say.
	unknown := []byte(fmt.Sprintf(`{"type":"command","agent":"a1","protocol":%d,"run":"runh","id":"unk1","op":"disk_usage","fleet":"app","instance":"i1","exec":"rm -rf /","state_dir":"/"}`, ProtocolVersion))
	f.produce("a1", unknown, f.signed(key, time.Now(), "a1", unknown))

	// The control topic has one partition: once this is answered, every
	// record above was read.
	if _, err := co.DiskUsage(ctx, "a1", "app", "i1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("the instance's state directory: %v", err)
	}
	if n := ta.a.Processes(); n != 1 {
		t.Fatalf("%d processes, want the legitimate one", n)
	}
	c := ta.a.refused()
	if c[RefusedUnsigned] < flood/4 || c[RefusedUnknownKey] < flood/4 || c[RefusedBadMAC] < flood/2+1 || c["invalid"] != 1 {
		t.Fatalf("refusals %v: want %d unsigned, %d unknown key, %d bad signatures, the repeated-key wipe invalid", c, flood/4, flood/4, flood/2+1)
	}
	ta.a.mu.Lock()
	replies, leases := len(ta.a.replies), len(ta.a.leases)
	_, dupKept := ta.a.replies["runh/dup1"]
	_, unkKept := ta.a.replies["runh/unk1"]
	ta.a.mu.Unlock()
	// The legitimate disk usage, the refused wipe and the unknown-field
	// disk usage are kept; no flood run is followed.
	if replies != replies0+3 || !dupKept || !unkKept || leases != leases0 {
		t.Fatalf("%d replies kept (was %d), %d runs followed (was %d)", replies, replies0, leases, leases0)
	}
	ta.a.verify.mu.Lock()
	streams := len(ta.a.verify.streams)
	ta.a.verify.mu.Unlock()
	// The coordinator's, the agent's own and the forger's signed session.
	if streams > 3 {
		t.Fatalf("%d replay streams after the flood", streams)
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAgentStopsWhileCommandsRun: an agent told to stop while a model
// restore and a fill are under way and a process runs stops within its
// bounds, cancelling both and stopping the process; the coordinator's
// waits end with the agent's loss, and a command arriving as it stops
// starts nothing.
func TestAgentStopsWhileCommandsRun(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	model := &fakeModel{block: make(chan struct{})}
	var fills atomic.Int32
	gate := make(chan struct{})
	ta := startAgentConfig(t, cfg, "a1", time.Second, func(c *Config) {
		c.ModelRestore = model.restore
		c.Fill = func(ctx context.Context, _ cluster.Config, _ FillJob, _ func(string, ...any)) (*Filled, error) {
			fills.Add(1)
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &Filled{}, nil
		}
	})
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runs"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	defer close(gate)
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "runs-fill"); err != nil {
		t.Fatal(err)
	}
	p, err := co.Start(ctx, "a1", ProcessSpec{Fleet: "app", Instance: "i1", Properties: map[string]string{"application.id": "app"}})
	if err != nil {
		t.Fatal(err)
	}
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Partitions = 500, 1
	errs := make(chan error, 2)
	go func() {
		_, err := co.ModelRestore(ctx, "a1", "app", "i0", modelJob())
		errs <- err
	}()
	go func() {
		_, err := co.Fill(ctx, "a1", FillJob{Topic: "runs-fill", Spec: spec})
		errs <- err
	}()
	for (model.calls.Load() == 0 || fills.Load() == 0) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	began := time.Now()
	ta.stop()
	if d := time.Since(began); d > ta.a.cfg.StopTimeout+2*byeWait {
		t.Fatalf("the agent took %s to stop", d)
	}
	if n := ta.a.Processes(); n != 0 {
		t.Fatalf("%d processes after the agent stopped", n)
	}
	for range 2 {
		select {
		case err := <-errs:
			if err == nil || !strings.Contains(err.Error(), "a1") {
				t.Errorf("a command under way when the agent stopped: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("a command under way when the agent stopped was never answered")
		}
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatal("the process's end never reached the coordinator")
	}
	if model.calls.Load() != 1 || fills.Load() != 1 {
		t.Fatalf("%d restores, %d fills: want each once", model.calls.Load(), fills.Load())
	}
}

// TestConcurrentStartsOfOneProcess: two start commands for the same
// process (a coordinator's bug, or a key holder's), with different ids and
// read in one batch, start one JVM: the other is refused. Two would share
// one state directory, and the agent would lose track of one of them (no
// lease expiry would stop it).
func TestConcurrentStartsOfOneProcess(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runc"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const n = 4
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = captureSigned(t, co, withArgs(&Message{Type: TypeCommand, Agent: "a1", Run: "runc", ID: "s" + strconv.Itoa(i), Op: OpStart,
			Fleet: "app", Instance: "i1"}, StartArgs{Properties: map[string]string{"application.id": "app"}}))
	}
	f := newForger(t, cfg)
	if err := f.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// Wait until every start has its reply.
	for ctx.Err() == nil {
		ta.a.mu.Lock()
		answered := 0
		for i := range n {
			if r := ta.a.replies["runc/s"+strconv.Itoa(i)]; r != nil {
				answered++
			}
		}
		ta.a.mu.Unlock()
		if answered == n {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	ok := 0
	ta.a.mu.Lock()
	for i := range n {
		if r := ta.a.replies["runc/s"+strconv.Itoa(i)]; r != nil && r.OK {
			ok++
		}
	}
	ta.a.mu.Unlock()
	b, _ := os.ReadFile(filepath.Join(ta.dir, "runc", "app", "i1", "starts"))
	if ok != 1 || strings.Count(string(b), "start") != 1 || ta.a.Processes() != 1 {
		t.Fatalf("%d of %d starts of one process succeeded, %d JVMs launched, %d tracked: want one of each", ok, n, strings.Count(string(b), "start"), ta.a.Processes())
	}
	ta.stop() // stops the one process; a second, untracked, would be left to the kill at shutdown
}

// TestKeptRepliesAreBoundedInBytes: the replies kept for repeated
// commands are bounded in bytes as well as in number: 4096 fetch
// replies of 900 KiB each (a key holder asking for them, or a long run)
// would otherwise hold 3.6 GiB; the newest reply is always kept.
func TestKeptRepliesAreBoundedInBytes(t *testing.T) {
	tsv := strings.Repeat("acct\t1\t1\n", 1000)
	if n := replySize(&Message{Result: encodePayload(&Fetched{Data: []byte(tsv)})}); n < len(tsv) {
		t.Fatalf("a reply holding %d bytes of balances is counted as %d", len(tsv), n)
	}
	a := &Agent{replies: map[string]*Message{}}
	const size = maxControlRecord // each reply counted as a full control record
	for i := range 4096 {
		key := "r/c" + strconv.Itoa(i)
		a.mu.Lock()
		a.replies[key] = nil
		a.inFlight++
		a.keep(key, &Message{Type: TypeReply, Run: "r", ID: "c" + strconv.Itoa(i), Op: OpFetch, OK: true}, size)
		a.mu.Unlock()
	}
	if a.doneBytes > maxReplyBytes || len(a.replies) > maxReplyBytes/size || len(a.done) != len(a.replies) {
		t.Fatalf("%d replies of %d bytes kept (%d listed): %d MiB", len(a.replies), size, len(a.done), a.doneBytes>>20)
	}
	if a.replies["r/c4095"] == nil {
		t.Fatal("the newest reply was forgotten")
	}
	if a.inFlight != 0 {
		t.Fatalf("%d in flight", a.inFlight)
	}
	// One reply larger than the bound is still kept, alone.
	a.mu.Lock()
	a.replies["r/big"] = nil
	a.inFlight++
	a.keep("r/big", &Message{Type: TypeReply, Run: "r", ID: "big", OK: true}, 2*maxReplyBytes)
	a.mu.Unlock()
	if len(a.replies) != 1 || a.replies["r/big"] == nil {
		t.Fatalf("after a reply larger than the bound: %d kept", len(a.replies))
	}
}

// TestProcessStartedAfterItsLeaseExpiredIsStopped: a start under way
// when its run's lease runs out (the coordinator died while the JVM
// started) ends with the process stopped, not left running untracked by
// any lease until the agent itself stops.
func TestProcessStartedAfterItsLeaseExpiredIsStopped(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgentConfig(t, cfg, "a1", time.Second, func(c *Config) {
		slow := filepath.Join(filepath.Dir(c.Java), "slow-java")
		script := "#!/bin/bash\nif [ \"$1\" != -version ]; then sleep 1.5; fi\nexec " + c.Java + " \"$@\"\n"
		if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		c.Java = slow
	})
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runl"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Another run's lease of 200 ms, never renewed, and its start.
	lease := captureSigned(t, co, &Message{Type: TypeLease, Agent: "a1", Run: "gone", TTLMs: 200})
	start := captureSigned(t, co, withArgs(&Message{Type: TypeCommand, Agent: "a1", Run: "gone", ID: "s1", Op: OpStart,
		Fleet: "app", Instance: "i1"}, StartArgs{Properties: map[string]string{"application.id": "app"}}))
	f := newForger(t, cfg)
	if err := f.cl.ProduceSync(ctx, lease, start).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for ctx.Err() == nil {
		ta.a.mu.Lock()
		r := ta.a.replies["gone/s1"]
		ta.a.mu.Unlock()
		if r != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for ta.a.Processes() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := ta.a.Processes(); n != 0 {
		t.Fatalf("%d process(es) of a run whose lease expired still run 5 s after their start", n)
	}
}

// TestOldAgentRecordsReplayedToNewCoordinator: an agent's announce and
// bye, read off the control topic as its process stopped and written
// again, within the two minutes they are fresh, to a coordinator that
// opened since, with the agent's next process up: neither loses the live
// agent (a bye signed before the coordinator opened is no news of the
// agent it talks to; an announce of a process that started before the
// one that answered its hello is no restart).
func TestOldAgentRecordsReplayedToNewCoordinator(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spy, err := cluster.NewClient(cfg, kgo.ConsumeTopics(ControlTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	old := startAgent(t, cfg, "a1", time.Second)
	time.Sleep(1500 * time.Millisecond) // a heartbeat or two
	old.stop()
	time.Sleep(5 * time.Millisecond) // a new start time, in ms
	startAgent(t, cfg, "a1", time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var announce, bye *kgo.Record
	for (announce == nil || bye == nil) && ctx.Err() == nil {
		spy.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			m, err := DecodeMessage(r.Value)
			switch {
			case err != nil:
			case m.Type == TypeAnnounce && announce == nil:
				announce = r // the old process's: the first
			case m.Type == TypeBye:
				bye = r
			}
		})
	}
	if announce == nil || bye == nil {
		t.Fatal("the old process's announce and bye were not read")
	}
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runo"})
	f := newForger(t, cfg)
	for _, r := range []*kgo.Record{announce, bye} {
		f.produce("a1", r.Value, r.Headers)
		// Read in order: once a later command is answered, the replay was.
		if _, err := co.Do(ctx, "a1", &Message{Op: OpHello}); err != nil {
			t.Fatalf("after the old process's %s was replayed: %v", mustDecode(t, r.Value).Type, err)
		}
		if err := co.Lost("a1"); err != nil {
			t.Fatalf("the old process's %s, replayed, lost the live agent: %v", mustDecode(t, r.Value).Type, err)
		}
	}
}

func mustDecode(t *testing.T, b []byte) *Message {
	t.Helper()
	m, err := DecodeMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWipeDuringStartRefused: a wipe (or a cold model restore, which
// wipes first) of an instance whose process is starting is refused, as
// it is while the process runs: the JVM is about to use that directory.
func TestWipeDuringStartRefused(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	ta := startAgentConfig(t, cfg, "a1", time.Second, func(c *Config) {
		slow := filepath.Join(filepath.Dir(c.Java), "slow-java")
		script := "#!/bin/bash\nif [ \"$1\" != -version ]; then sleep 1.5; fi\nexec " + c.Java + " \"$@\"\n"
		if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		c.Java = slow
	})
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runw"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	started := make(chan error, 1)
	go func() {
		_, err := opStart.call(ctx, co, "a1", &Message{Fleet: "app", Instance: "i1"}, StartArgs{Properties: map[string]string{"application.id": "app"}})
		started <- err
	}()
	for ctx.Err() == nil {
		ta.a.mu.Lock()
		n := len(ta.a.starting)
		ta.a.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	err := co.Wipe(ctx, "a1", "app", "i1")
	if err == nil || !strings.Contains(err.Error(), "instance i1 is starting") {
		t.Errorf("a wipe while the instance starts: %v", err)
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
}
