package profiles

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestStoresProfileWritesEachKindFromOneFill: the built-in stores profile
// fills one changelog per kind from its one fill section: the same keys,
// values, tombstones and size, each spec carrying only the time settings
// its kind reads, and every case restores each kind with that kind's
// retention, on both engines.
func TestStoresProfileWritesEachKindFromOneFill(t *testing.T) {
	p, err := Load("stores")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.KindSpecs) < 5 || p.Fills() != len(p.KindSpecs) || !p.Interleave {
		t.Fatalf("kinds %d, fills %d, interleave %v", len(p.KindSpecs), p.Fills(), p.Interleave)
	}
	// The specs by kind: these five at least (a kind added later joins
	// them, and is held to the shared fill below).
	byKind := map[loadgen.StoreKind]loadgen.Spec{}
	for _, s := range p.KindSpecs {
		byKind[s.StoreKind.Of()] = s
	}
	kv, ts, win, ses, ver := byKind[loadgen.KindKeyValue], byKind[loadgen.KindTimestampedKeyValue], byKind[loadgen.KindWindow],
		byKind[loadgen.KindSession], byKind[loadgen.KindVersionedKeyValue]
	if p.KindSpecs[0].StoreKind.Of() != loadgen.KindKeyValue || len(byKind) != len(p.KindSpecs) {
		t.Errorf("kinds %v: key-value first, each once", p.KindSpecs)
	}
	if ver.StoreKind != loadgen.KindVersionedKeyValue || ver.RetentionMs != win.RetentionMs || ver.WindowSizeMs != 0 {
		t.Errorf("versioned spec %+v: the retention as its history, no windows", ver)
	}
	if ses.StoreKind != loadgen.KindSession || ses.RetentionMs != win.RetentionMs || ses.WindowSizeMs != win.WindowSizeMs {
		t.Errorf("session spec %+v: the window store's window size and retention", ses)
	}
	if kv.StoreKind.Of() != loadgen.KindKeyValue || kv.EventStepMicros != 0 || kv.RetentionMs != 0 {
		t.Errorf("key-value spec %+v: no event times or retention", kv)
	}
	if ts.StoreKind != loadgen.KindTimestampedKeyValue || ts.EventStepMicros <= 0 || ts.WindowSizeMs != 0 {
		t.Errorf("timestamped spec %+v: event times, no windows", ts)
	}
	if win.StoreKind != loadgen.KindWindow || win.RetentionMs != time.Hour.Milliseconds() || win.WindowSizeMs != 5*time.Minute.Milliseconds() {
		t.Errorf("window spec %+v: 5 min windows, 1 h retention", win)
	}
	for _, s := range p.KindSpecs {
		if s.Keys != kv.Keys || s.ValueMin != kv.ValueMin || s.ValueMax != kv.ValueMax || s.TombstoneRatio != kv.TombstoneRatio || s.TargetBytes != kv.TargetBytes || s.Seed != kv.Seed {
			t.Errorf("%s spec %+v differs from key-value's %+v beyond its kind", s.StoreKind, s, kv)
		}
	}
	engines := map[config.Engine]bool{}
	for _, c := range p.Cases {
		engines[c.Engine] = true
	}
	if !engines[config.EngineModel] || !engines[config.EngineKafkaStreams] {
		t.Errorf("engines %v: want both", engines)
	}
	cases, err := p.CasesFor(win)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.StoreKind != config.StoreWindow || c.Retention.D() != time.Hour {
			t.Errorf("case %s on the window fill: kind %s, retention %s", c.Name, c.StoreKind, c.Retention)
		}
	}
	if p.Cases[0].StoreKind != config.StoreKeyValue || p.Cases[0].Retention != 0 {
		t.Errorf("CasesFor changed the plan's own cases: %+v", p.Cases[0])
	}
}

// TestStoreKindSweepErrors: a sweep refuses what would make its kinds'
// changelogs differ or collide, and a case that one kind cannot restore,
// before anything runs, naming the field.
func TestStoreKindSweepErrors(t *testing.T) {
	fill := "fill:\n  records: 100\n  time_range: 1h\n  window_size: 5m\n  retention: 30m\n"
	for _, tc := range []struct{ yaml, want string }{
		{"store_kinds: [key-value, key-value]\n" + fill, "store_kinds: key-value is listed twice"},
		{"store_kinds: [key-value, sorted]\n" + fill, `store_kinds[1]: "sorted" is not one of`},
		{"store_kinds: [window]\nfill:\n  records: 10\n  store_kind: window\n", "remove fill.store_kind"},
		{"store_kinds: [window]\nfill:\n  records: 10\n  topic: t\n", "remove fill.topic"},
		{"store_kinds: [key-value, window]\n" + fill + "cases:\n  - name: w\n    engine: kafka-streams\n    scenario: scaleout\n", "store_kinds[1]: case w on a window store: store_kind: window stores run scenarios " + config.KindScenarios(config.StoreWindow) + " only so far, not scaleout"},
		{"store_kinds: [key-value, window]\n" + fill + "cases:\n  - name: w\n    store_kind: window\n", "a store-kind sweep gives every case each kind in turn"},
	} {
		_, err := Parse([]byte(tc.yaml), "k.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestStoreKindsAllSweepsEveryRegisteredKind: store_kinds: all sweeps
// every kind config registers, in its order (the built-in stores profile
// is written so, and a kind added later joins it without an edit), and a
// word other than "all" is refused naming the field, its line and the
// kinds there are.
func TestStoreKindsAllSweepsEveryRegisteredKind(t *testing.T) {
	for _, body := range []string{
		"fill: {size: 1MB, time_range: 2h, window_size: 5m, retention: 1h}\nstore_kinds: all\n",
		"" /* the built-in stores profile */} {
		var p *Plan
		var err error
		if body == "" {
			p, err = Load("stores")
		} else {
			p, err = Parse([]byte(body), "p.yaml")
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []config.StoreKind
		for _, s := range p.KindSpecs {
			got = append(got, s.StoreKind.Of())
		}
		if !slices.Equal(got, config.StoreKinds) {
			t.Errorf("store_kinds: all swept %v, want every registered kind %v", got, config.StoreKinds)
		}
	}
	_, err := Parse([]byte("fill: {size: 1MB}\nstore_kinds: every\n"), "p.yaml")
	if err == nil || !strings.Contains(err.Error(), "line 2: store_kinds:") || !strings.Contains(err.Error(), `"every"`) ||
		!strings.Contains(err.Error(), string(config.StoreKinds[len(config.StoreKinds)-1])) {
		t.Errorf("store_kinds: every: %v, want a refusal naming line 2, the word and the kinds", err)
	}
}
