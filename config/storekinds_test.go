package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/loadgen"
)

// failoverCaseOf is a kafka-streams failover case of store kind k.
func failoverCaseOf(k StoreKind) Case {
	c := DefaultCase()
	c.Engine, c.Scenario, c.StoreKind, c.Failover = EngineKafkaStreams, ScenarioFailover, k, DefaultFailover()
	if k.Segmented() || k == StoreVersionedKeyValue {
		c.Retention = Duration(time.Hour)
	}
	return c
}

// TestFailoverAndRollingTakeTimestampedAndWindowStores: a failover case
// of a timestamped key-value or a window store is valid, with or without
// a standby, and so is a rolling restart (a window store's under a write
// load only); a session or versioned one is refused naming store_kind and
// why (a reopened store's stream time, a reopened versioned store's
// missing history), and the refusal of a scenario not run lists those the
// kind runs.
func TestFailoverAndRollingTakeTimestampedAndWindowStores(t *testing.T) {
	for _, k := range []StoreKind{StoreTimestampedKeyValue, StoreWindow} {
		for _, standby := range []bool{true, false} {
			c := failoverCaseOf(k)
			c.Failover.Standby = standby
			if err := c.Validate(); err != nil {
				t.Errorf("a %s failover (standby %v): %v", k, standby, err)
			}
		}
	}
	for _, tc := range []struct {
		kind StoreKind
		s    Scenario
		want string
	}{
		{StoreSession, ScenarioFailover, "session stores run scenarios " + KindScenarios(StoreSession) + " only so far, not failover: a reopened session store's stream time"},
		{StoreVersionedKeyValue, ScenarioFailover, "reopens a versioned store without its history segments"},
		{StoreSession, ScenarioRolling, "session stores run scenarios " + KindScenarios(StoreSession) + " only so far, not rolling: a reopened session store's stream time"},
		{StoreWindow, ScenarioScaleOut, "window stores run scenarios " + KindScenarios(StoreWindow) + " only so far, not scaleout"},
		{StoreTimestampedKeyValue, ScenarioScaleOut, "timestamped-key-value stores run scenarios " + KindScenarios(StoreTimestampedKeyValue) + " only so far, not scaleout"},
	} {
		err := kindScenarioErr(tc.kind, tc.s)
		if tc.s == ScenarioFailover {
			err = failoverCaseOf(tc.kind).Validate()
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != "store_kind" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want a store_kind error containing %q", tc.kind, tc.s, err, tc.want)
		}
	}
	for _, k := range []StoreKind{StoreTimestampedKeyValue, StoreWindow} {
		c := failoverCaseOf(k)
		c.Scenario, c.Failover, c.Rolling = ScenarioRolling, nil, DefaultRolling()
		if err := c.Validate(); err != nil {
			t.Errorf("a %s rolling restart: %v", k, err)
		}
		c.Rolling.Rate = 0
		var fe *FieldError
		if err := c.Validate(); (k == StoreWindow) != (errors.As(err, &fe) && fe.Path == "rolling.rate") {
			t.Errorf("a %s rolling restart without a write load: %v (a window store's needs one)", k, err)
		}
	}
	if got := KindScenarios(StoreVersionedKeyValue); got != "cold" {
		t.Errorf("versioned stores' scenarios %q, want cold", got)
	}
}

// TestStoreKindRegistry: every kind a fill writes has one descriptor, in
// the fill's order, and a second registration of a kind panics.
func TestStoreKindRegistry(t *testing.T) {
	if !slices.Equal(StoreKinds, loadgen.StoreKinds) {
		t.Fatalf("config.StoreKinds %v, loadgen.StoreKinds %v: every fill kind needs its descriptor", StoreKinds, loadgen.StoreKinds)
	}
	for _, tc := range []struct {
		d    StoreKindDef
		want string
	}{
		{StoreKindDef{Kind: StoreWindow, Layout: LayoutWindow, Can: []KindCap{CapRestore}}, "twice"},
		{StoreKindDef{Kind: StoreWindow, Can: []KindCap{CapRestore}}, "without a layout"},
		{StoreKindDef{Kind: StoreWindow, Layout: LayoutWindow}, string(CapRestore)},
		{StoreKindDef{Kind: "unfilled"}, "loadgen.FillKindDef"},
	} {
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, string(tc.d.Kind)) || !strings.Contains(msg, tc.want) {
					t.Errorf("registering %+v: panic %q, want one naming it and %q", tc.d, msg, tc.want)
				}
			}()
			registerStoreKind(tc.d)
		}()
	}
	if !slices.Equal(StoreKinds, loadgen.StoreKinds) {
		t.Fatalf("a refused registration changed StoreKinds: %v", StoreKinds)
	}
}

// TestTimestampedWindowStoreRestoresColdOnRocksDB: a timestamped window
// store's cold restore is valid on either engine and restores a topic
// restorebench did not fill; in memory, or in another scenario, it is
// refused naming the field; it is a window layout, as a window store is.
func TestTimestampedWindowStoreRestoresColdOnRocksDB(t *testing.T) {
	for _, e := range []Engine{EngineModel, EngineKafkaStreams} {
		c := DefaultCase()
		c.Engine, c.StoreKind, c.Retention = e, StoreTimestampedWindow, Duration(time.Hour)
		if err := c.Validate(); err != nil {
			t.Errorf("a %s cold restore of a timestamped window store: %v", e, err)
		}
		c.Strategy, c.Store = StrategyMemory, StoreMemory
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Path != "store" || !strings.Contains(err.Error(), "RocksDB") {
			t.Errorf("%s, in memory: %v, want a store error naming RocksDB", e, err)
		}
	}
	if err := failoverCaseOf(StoreTimestampedWindow).Validate(); err == nil || !strings.Contains(err.Error(), "timestamped-window stores run scenarios cold only") {
		t.Errorf("a timestamped window failover: %v, want it refused listing cold", err)
	}
	windowLayout := func(k StoreKind) bool { return kindDef(k).Layout == LayoutWindow }
	if !RestoresForeign(StoreTimestampedWindow) || !windowLayout(StoreTimestampedWindow) || !windowLayout(StoreWindow) || windowLayout(StoreSession) {
		t.Error("a timestamped window store restores a foreign topic, as a window layout; a session store is no window layout")
	}
	if got := ForeignKinds(); got != "key-value, timestamped-key-value, window, timestamped-window or session" {
		t.Errorf("ForeignKinds() %q", got)
	}
}

// TestKindCapsDecideTheScenariosAKindRuns: a kind runs the scenarios whose
// needs it can (the kinds there were when kinds listed their scenarios
// run the same scenarios); a
// refusal without a reason of the kind's own names the scenarios it runs
// and what it lacks; no kind gives a reason for refusing a scenario it
// runs; and every capability decides something: some kind has each need
// of each scenario, and some scenario needs each capability a kind has.
func TestKindCapsDecideTheScenariosAKindRuns(t *testing.T) {
	want := map[StoreKind]string{
		StoreKeyValue:            "cold, warm, standby, failover, scaleout, rolling and compaction",
		StoreTimestampedKeyValue: "cold, warm, standby, failover and rolling",
		StoreWindow:              "cold, warm, standby, failover and rolling",
		StoreTimestampedWindow:   "cold",
		StoreSession:             "cold and warm",
		StoreVersionedKeyValue:   "cold",
	}
	// The pin holds the kinds there were when capabilities replaced the
	// lists, and of the scenarios there were then (builtinOrder); a kind
	// or a scenario added since runs what the capabilities and the needs
	// say, which TestEveryKindsScenariosRunInABuiltinProfile (package
	// scenario) ties to the profiles.
	for k, w := range want {
		if _, ok := StoreKindDefOf(k); !ok {
			t.Errorf("%s stores are not registered", k)
		} else if got := kindScenariosAmong(k, builtinOrder); got != w {
			t.Errorf("%s stores run %q of the scenarios the pin was written for, want %q", k, got, w)
		}
	}
	err := kindScenarioErr(StoreWindow, ScenarioScaleOut)
	if msg := err.Error(); !strings.Contains(msg, "not scaleout: it needs "+string(CapWarmups)+", which window stores do not have yet") {
		t.Errorf("window scaleout refused: %q, want it to name what a window store lacks", msg)
	}
	needed, had := map[KindCap]bool{}, map[KindCap]bool{}
	for _, d := range ScenarioDefs() {
		for _, n := range d.KindNeeds {
			needed[n] = true
		}
	}
	for _, k := range StoreKinds {
		d := kindDef(k)
		for s := range d.Refused {
			if d.Runs(s) {
				t.Errorf("%s stores run %s, yet give a reason for refusing it: %q", k, s, d.Refused[s])
			}
			if err := kindScenarioErr(k, s).Error(); !strings.Contains(err, " "+KindScenarios(k)+" only so far, not "+string(s)+": "+d.Refused[s]) {
				t.Errorf("%s stores' refusal of %s does not list the scenarios they run (%s) before its reason: %q", k, s, KindScenarios(k), err)
			}
		}
		for _, c := range d.Can {
			had[c] = true
			if !needed[c] {
				t.Errorf("%s stores can %q, which no scenario needs: it decides nothing", k, c)
			}
		}
	}
	for n := range needed {
		if !had[n] {
			t.Errorf("a scenario needs %q, which no store kind has", n)
		}
	}
}

// TestForeignReadNeedsAForeignKindWithARetention: a kind declares how a
// topic restorebench did not fill is read (ForeignRead) only when it
// restores one (Foreign), and a windowed or session read only with a
// retention, which the read expires windows or sessions by.
func TestForeignReadNeedsAForeignKindWithARetention(t *testing.T) {
	for _, k := range StoreKinds {
		d := kindDef(k)
		if d.ForeignRead != (ForeignRead{}) && !d.Foreign {
			t.Errorf("%s stores declare a foreign read %+v, yet restore no foreign topic", k, d.ForeignRead)
		}
		if d.ForeignRead.Keys != KeysPlain && !d.Retention {
			t.Errorf("%s stores read a foreign topic by %v keys without a retention", k, d.ForeignRead.Keys)
		}
	}
}

// TestUntimedFillNamesTheTimedKinds: a key-value fill given a retention is
// refused naming every timed kind the registry holds, and no untimed one.
func TestUntimedFillNamesTheTimedKinds(t *testing.T) {
	f, n := DefaultFill(), int64(10)
	f.Records, f.Retention = &n, Duration(time.Hour)
	_, err := f.Spec()
	if err == nil {
		t.Fatal("a key-value fill with a retention was accepted")
	}
	for _, k := range StoreKinds {
		if named := strings.Contains(err.Error(), " "+string(k)+",") || strings.Contains(err.Error(), " "+string(k)+" ") ||
			strings.HasSuffix(err.Error(), " "+string(k)); named != k.Timed() {
			t.Errorf("%s (timed %v) named %v in %q", k, k.Timed(), named, err)
		}
	}
}

// kindScenariosAmong lists, as KindScenarios does, the scenarios of
// among that store kind k runs.
func kindScenariosAmong(k StoreKind, among []Scenario) string {
	var names []string
	for _, s := range among {
		if kindDef(k).Runs(s) {
			names = append(names, string(s))
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
