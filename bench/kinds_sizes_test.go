package bench

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestSizeByKindSweepRestoresEachKindAtEachSize: a profile sweeping sizes
// and store kinds fills each kind at each size on its own topic and
// restores every case there, verified; the records' steps carry the size
// and the kind apart, named case@size@kind.
func TestSizeByKindSweepRestoresEachKindAtEachSize(t *testing.T) {
	res := runYAML(t, "store_kinds: [key-value, window]\nsizes: [100KB, 300KB]\nfill: {keys: 200, partitions: 2, time_range: 4h, window_size: 30m, retention: 1h}\ncases: [{name: a}]\n", "kinds.yaml")
	topics := map[string]bool{}
	for _, f := range res.Fills {
		topics[f.Topic] = true
	}
	if len(res.Fills) != 4 || len(topics) != 4 || res.Fills[0].Bytes >= res.Fills[1].Bytes {
		t.Fatalf("fills %+v", res.Fills)
	}
	var names []string
	for _, r := range res.Restores {
		if !r.Verified {
			t.Fatalf("%s not verified: %s", r.Case, r.Error)
		}
		if r.Step.StoreKind != r.Params.StoreKind || r.Step.Size == "" {
			t.Errorf("%s: step %+v, store kind %s", r.Case, *r.Step, r.Params.StoreKind)
		}
		names = append(names, r.Case)
	}
	if got, want := strings.Join(names, " "), "a@100KB@key-value a@300KB@key-value a@100KB@window a@300KB@window"; got != want {
		t.Fatalf("records %q, want %q", got, want)
	}
	if res.Restores[2].Params.StoreKind != config.StoreWindow {
		t.Errorf("third record restored a %s store", res.Restores[2].Params.StoreKind)
	}
}

// TestIndependentReadFollowsTheKindsChangelogKeys: a topic restorebench
// did not fill is read as the changelog its store kind declares
// (config.StoreKindDef.ForeignRead): a window or timestamped window
// store's by window start, a session store's by session end, each of the
// case's retention, a key-value one's by key, a timestamped one's values
// behind their timestamps.
func TestIndependentReadFollowsTheKindsChangelogKeys(t *testing.T) {
	for _, tc := range []struct {
		kind            config.StoreKind
		window, session int64
		timestamped     bool
	}{
		{config.StoreKeyValue, 0, 0, false},
		{config.StoreTimestampedKeyValue, 0, 0, true},
		{config.StoreWindow, 3_600_000, 0, false},
		{config.StoreTimestampedWindow, 3_600_000, 0, true},
		{config.StoreSession, 0, 3_600_000, false},
	} {
		c := config.DefaultCase()
		c.StoreKind, c.Retention = tc.kind, config.Duration(3_600_000_000_000)
		o := IndependentRead(c)
		if o.WindowRetentionMs != tc.window || o.SessionRetentionMs != tc.session || o.TimestampedValue != tc.timestamped {
			t.Errorf("%s: read as %+v, want window retention %d, session retention %d, timestamped %v", tc.kind, o, tc.window, tc.session, tc.timestamped)
		}
	}
}
