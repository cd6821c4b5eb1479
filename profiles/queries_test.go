package profiles

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
)

// TestQueriesBlock: a case's queries block takes its defaults for what it
// leaves out, belongs to that case alone, and bad or unsupported settings
// are refused naming the field.
func TestQueriesBlock(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 10\ncases:\n  - name: a\n    queries: {stale: true}\n  - name: b\n"), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	q := p.Cases[0].Queries
	if q == nil || q.Rate != 1000 || !q.Stale || q.After.D() != 5*time.Second || q.Retry.D() != 2*time.Second || q.KeyDist() != config.KeysUniform || q.AskWho() != config.AskAny {
		t.Fatalf("case a's queries %+v, want the defaults with stale on", q)
	}
	if p.Cases[1].Queries != nil {
		t.Fatalf("case b has queries %+v it did not ask for", p.Cases[1].Queries)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {rate: 0}\n", "queries.rate: 0 must be in (0, 200000]"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {after: -1s}\n", "queries.after: -1s is negative"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {retry: 5s}\n", "queries.retry: 5s must be from 0 to 4s"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {range_share: 0.1}\n", "queries.range_share: range queries go through the kafka-streams engine's API layer"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    engine: kafka-streams\n    queries: {range_share: 1.5}\n", "queries.range_share: 1.5 must be from 0 to 1"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    engine: kafka-streams\n    queries: {range_keys: 10}\n", "queries.range_keys: is the width of range queries, and queries.range_share is 0"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    engine: kafka-streams\n    queries: {range_share: 0.5, range_keys: 5000}\n", "queries.range_keys: 5000 must be from 1 to 1000"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    scenario: standby\n    queries: {}\n", "queries run beside scenarios cold, warm, failover, scaleout and rolling only so far, not standby"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {keys: hot}\n", "queries.keys: \"hot\" is not a key distribution"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {zipf_s: 1.5}\n", "queries.zipf_s: is the exponent of keys: zipf, and keys is uniform"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {keys: zipf, zipf_s: 1}\n", "queries.zipf_s: 1 must be in (1, 10]"},
		{"fill:\n  records: 10\ncases:\n  - name: a\n    queries: {ask: leader}\n", "queries.ask: \"leader\" is not an instance to ask"},
		{"fill:\n  records: 10\n  store_kind: window\ncases:\n  - name: a\n    queries: {}\n", "window fetches are not built yet"},
	} {
		_, err := Parse([]byte(tc.yaml), "q.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestQueriesKeysAndAsk: keys: zipf takes the default exponent unless set,
// and ask: owner is kept, each for its own case.
func TestQueriesKeysAndAsk(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 10\ncases:\n  - name: a\n    queries: {keys: zipf}\n  - name: b\n    engine: kafka-streams\n    queries: {keys: zipf, zipf_s: 2, ask: owner}\n"), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Cases[0].Queries, p.Cases[1].Queries
	if a.KeyDist() != config.KeysZipf || a.Exponent() != config.DefaultZipfS || a.AskWho() != config.AskAny {
		t.Fatalf("case a's queries %+v: want zipf at s=%v, asking any instance", a, config.DefaultZipfS)
	}
	if b.Exponent() != 2 || b.AskWho() != config.AskOwner {
		t.Fatalf("case b's queries %+v: want zipf at s=2, asking the owner", b)
	}
}

// TestQueriesNeedCheckableValues: values under 8 bytes cannot name their
// record, so a query load on such a fill is refused at fill.value_size.
func TestQueriesNeedCheckableValues(t *testing.T) {
	_, err := Parse([]byte("fill:\n  records: 10\n  value_size: 4\ncases:\n  - name: a\n    queries: {}\n"), "q.yaml")
	if err == nil || !strings.Contains(err.Error(), "line 3: fill.value_size: case a runs queries") {
		t.Fatalf("got %v", err)
	}
}

// TestQueriesOnKafkaStreamsColdRestores: a kafka-streams case's cold
// restore takes a queries block (its lookups go to the driver's API
// layer), with the same defaults as the model's, and so does a warm
// restart's.
func TestQueriesOnKafkaStreamsColdRestores(t *testing.T) {
	p, err := Parse([]byte("fill:\n  records: 10\ncases:\n  - name: a\n    engine: kafka-streams\n    queries: {rate: 300}\n"), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if q := p.Cases[0].Queries; q == nil || q.Rate != 300 || q.Stale || q.After.D() != 5*time.Second {
		t.Fatalf("queries %+v", q)
	}
	if _, err := Parse([]byte("fill:\n  records: 10\ncases:\n  - name: a\n    engine: kafka-streams\n    scenario: warm\n    queries: {}\n"), "q.yaml"); err != nil {
		t.Fatalf("a kafka-streams warm case with queries: %v", err)
	}
}

// TestQueriesFailoverProfile: the built-in queries-failover profile runs
// failovers on the real client under a query load, over the changelog its
// kv topology restores: with a standby and stale reads at two write rates,
// with a standby without them, and without a standby, plus a warm restart
// under lookups with stale reads, each failover keeping
// the profile-wide lookup rate and the session timeout that makes a kill
// noticed in seconds.
func TestQueriesFailoverProfile(t *testing.T) {
	p, err := Load("queries-failover")
	if err != nil {
		t.Fatal(err)
	}
	if want := config.ChangelogTopic(p.AppID, p.StoreName); p.Topic != want {
		t.Fatalf("fill topic %s, want %s: the kv topology restores only the changelog named after its store", p.Topic, want)
	}
	type variant struct {
		standby, stale bool
		rate           float64
	}
	seen := map[variant]bool{}
	warm := 0
	for _, c := range p.Cases {
		q, f := c.Queries, c.Failover
		if c.Scenario == config.ScenarioWarm {
			if warm++; c.Engine != "kafka-streams" || q == nil || !q.Stale || c.Warm == nil {
				t.Fatalf("warm case %s: on %s, queries %+v", c.Name, c.Engine, q)
			}
			continue
		}
		if c.Engine != "kafka-streams" || c.Scenario != "failover" || q == nil || f == nil {
			t.Fatalf("case %s: %s on %s, queries %+v, failover %+v", c.Name, c.Scenario, c.Engine, q, f)
		}
		if q.Rate != 1000 || q.After.D() != 3*time.Second || c.Streams["session.timeout.ms"] != "6000" || f.Kills != 3 {
			t.Errorf("case %s: queries %+v, session %s, kills %d", c.Name, q, c.Streams["session.timeout.ms"], f.Kills)
		}
		seen[variant{f.Standby, q.Stale, f.Rate}] = true
	}
	if warm != 1 {
		t.Errorf("%d warm restarts under lookups, want one", warm)
	}
	for _, v := range []variant{{true, true, 500}, {true, true, 2000}, {true, false, 500}, {false, false, 500}} {
		if !seen[v] {
			t.Errorf("no case with standby %v, stale reads %v at %.0f writes/s", v.standby, v.stale, v.rate)
		}
	}
}

// TestQueriesMovesProfile: the built-in queries-moves profile runs query
// loads beside rolling restarts (dynamic and static membership, asking any
// instance and the key's owner with Zipf keys) and a scale-out, all on the
// real client over the changelog its kv topology restores.
func TestQueriesMovesProfile(t *testing.T) {
	p, err := Load("queries-moves")
	if err != nil {
		t.Fatal(err)
	}
	if want := config.ChangelogTopic(p.AppID, p.StoreName); p.Topic != want {
		t.Fatalf("fill topic %s, want %s", p.Topic, want)
	}
	got := map[string]string{}
	for _, c := range p.Cases {
		q := c.Queries
		if c.Engine != config.EngineKafkaStreams || q == nil || q.Rate != 500 || q.After.D() != 2*time.Second {
			t.Fatalf("case %s: %s on %s, queries %+v", c.Name, c.Scenario, c.Engine, q)
		}
		got[c.Name] = fmt.Sprintf("%s %s %s", c.Scenario, q.AskWho(), q.KeyDist())
		if c.Scenario == config.ScenarioRolling && (c.Rolling == nil || c.Rolling.Instances != 2 || c.Rolling.StaticMembership != (c.Name == "rolling-static-owner")) {
			t.Errorf("case %s: rolling %+v", c.Name, c.Rolling)
		}
	}
	want := map[string]string{"rolling": "rolling any uniform", "rolling-static-owner": "rolling owner zipf", "scaleout": "scaleout any uniform"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("case %s: %q, want %q", name, got[name], w)
		}
	}
}
