package scenario

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
)

// TestAForeignRestoreThatDoesNotVerifyNamesTheKey: a restore of a topic
// restorebench did not fill that does not verify names the partition and
// the key it got wrong in its record and its error; a fill's record, and
// one whose key-by-key reads fail or agree, say so instead.
func TestAForeignRestoreThatDoesNotVerifyNamesTheKey(t *testing.T) {
	topic := map[int32]map[string]uint64{0: {"a": 1}, 1: {"user-1": 1, "user-2": 2}}
	store := map[int32]map[string]uint64{0: {"a": 1}, 1: {"user-1": 1, "user-2": 3}}
	state := func(m map[string]uint64, p int32) loadgen.PartitionState {
		ps := loadgen.PartitionState{Partition: p}
		for _, h := range m {
			ps.Keys++
			ps.Digest += loadgen.Digest(h)
		}
		return ps
	}
	expected := []loadgen.PartitionState{state(topic[0], 0), state(topic[1], 1)}
	actual := []loadgen.PartitionState{state(store[0], 0), state(store[1], 1)}
	ctx := context.Background()
	topicEntries := func(_ context.Context, p int32) (map[string]uint64, error) { return topic[p], nil }
	storeEntries := func(_ context.Context, p int32) (map[string]uint64, error) { return store[p], nil }
	for _, tc := range []struct {
		name     string
		t        fleet.Target
		restored fleet.EntriesOf
		want     string
	}{
		{"named", fleet.Target{Expected: expected, TopicEntries: topicEntries}, storeEntries,
			`partition 1: 1 key(s) differ; the first, key "user-2": the store holds another value than the topic's last`},
		{"a fill's", fleet.Target{Expected: expected}, storeEntries, ""}, // nothing read key by key
		{"store unread", fleet.Target{Expected: expected, TopicEntries: topicEntries},
			func(context.Context, int32) (map[string]uint64, error) { return nil, errors.New("on an agent") },
			"partition 1's differing key not named: reading the store key by key: on an agent"},
		{"agree", fleet.Target{Expected: expected, TopicEntries: topicEntries}, topicEntries, "partition 1: key by key the store and the topic agree"},
	} {
		rec := runs.Restore{Case: "cold"}
		out, err := fleet.VerifyInto(&rec, tc.t, actual)
		if !errors.Is(err, fleet.ErrUnverified) {
			t.Fatalf("%s: %v, want unverified", tc.name, err)
		}
		err = fleet.NameDifference(ctx, &out, tc.t, tc.restored, err)
		if !errors.Is(err, fleet.ErrUnverified) || out.Verified {
			t.Fatalf("%s: %v (verified %v): still unverified, wrapped", tc.name, err, out.Verified)
		}
		for _, text := range []string{err.Error(), out.Error, out.Verification.Problem} {
			if tc.want == "" && strings.Contains(text, "; ") || !strings.Contains(text, tc.want) {
				t.Errorf("%s: %q, want %q", tc.name, text, tc.want)
			}
		}
	}
}

// TestParseEntriesReadsTheDriversLines: the `entries` file's lines are
// keys in hex and hashes; anything else names its line.
func TestParseEntriesReadsTheDriversLines(t *testing.T) {
	got, err := fleet.ParseEntries(strings.NewReader("757365722d31\t00000000000000ff\n00ff\tffffffffffffffff\n"), "e.tsv")
	if err != nil || len(got) != 2 || got["user-1"] != 255 || got["\x00\xff"] != 1<<64-1 {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"zz\t01\n", "00\n", "00\tnothex\n"} {
		if _, err := fleet.ParseEntries(strings.NewReader("00\t01\n"+bad), "e.tsv"); err == nil || !strings.Contains(err.Error(), "e.tsv:2:") {
			t.Errorf("%q: %v, want an error naming e.tsv:2", bad, err)
		}
	}
}
