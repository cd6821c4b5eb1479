package plots

import (
	"strings"
	"testing"
)

// TestLegendNamesKeepWhatTellsThemApart: names too wide for the legend
// lose the start and end they all share before their middles are cut, so
// the stores run's six fill topics stay told apart; names that share
// nothing, or a single entry, are left as they are.
func TestLegendNamesKeepWhatTellsThemApart(t *testing.T) {
	var entries []legendEntry
	for _, kind := range []string{"key-value", "timestamped-key-value", "window", "timestamped-window", "session", "versioned-key-value"} {
		entries = append(entries, legendEntry{name: "fill rb-stores-" + kind + "-balances-changelog", suffix: " (mean 20.1 MB/s)"})
	}
	got := withoutSharedEnds(entries)
	want := []string{"…key-value…", "…timestamped-key-value…", "…window…", "…timestamped-window…", "…session…", "…versioned-key-value…"}
	for i := range want {
		if got[i].name != want[i] || got[i].suffix != entries[i].suffix {
			t.Errorf("entry %d: %q%q, want %q%q", i, got[i].name, got[i].suffix, want[i], entries[i].suffix)
		}
	}
	if !strings.HasPrefix(entries[0].name, "fill rb-stores-") {
		t.Errorf("the entries given were changed: %q", entries[0].name)
	}
	for _, same := range [][]legendEntry{
		{{name: "model #1"}, {name: "kafka-streams #1"}},
		{{name: "fill rb-quick-balances-changelog"}},
		{{name: "a-b"}, {name: "a-b"}},
	} {
		got := withoutSharedEnds(same)
		for i := range same {
			if got[i].name != same[i].name {
				t.Errorf("%q became %q", same[i].name, got[i].name)
			}
		}
	}
}
