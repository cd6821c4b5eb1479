package failover

import (
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
)

// TestKindFailoverRunsOverTheFill: a failover of a store kind beyond
// key-value runs the kv topology over its fill (as one with a query load
// does), a key-value one without queries the ledger; the record's kind is
// the case's over the fill and key-value for the ledger, and the progress
// line names the kind and lookups only when there are some.
func TestKindFailoverRunsOverTheFill(t *testing.T) {
	for _, tc := range []struct {
		kind    config.StoreKind
		queries bool
		kv      bool
	}{
		{config.StoreKeyValue, false, false},
		{config.StoreKeyValue, true, true},
		{config.StoreTimestampedKeyValue, false, true},
		{config.StoreWindow, false, true},
	} {
		c := config.DefaultCase()
		c.StoreKind = tc.kind
		if tc.queries {
			c.Queries = config.DefaultQueryLoad()
		}
		if got := fleet.RunsKVFailover(c); got != tc.kv {
			t.Errorf("%s (queries %v): over the fill %v, want %v", tc.kind, tc.queries, got, tc.kv)
		}
		r := &failoverRun{req: fleet.Request{Case: c}, changelog: "app-store-changelog"}
		if tc.kv {
			r.kv = &foKV{}
		}
		want := tc.kind
		if !tc.kv {
			want = config.StoreKeyValue
		}
		if k := r.storeKind(); k != want {
			t.Errorf("%s (queries %v): record kind %s, want %s", tc.kind, tc.queries, k, want)
		}
		if !tc.kv {
			continue
		}
		text := r.kvLoadText()
		if !strings.Contains(text, "("+string(tc.kind)+" stores)") || strings.Contains(text, "lookups") != tc.queries {
			t.Errorf("%s (queries %v): progress %q", tc.kind, tc.queries, text)
		}
	}
}
