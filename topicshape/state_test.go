package topicshape

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/verify"
)

// TestStateIsWhatARestoreEndsWith writes a changelog of overwritten keys,
// tombstones (of live keys and of keys never written), records without a
// key, and a committed and an aborted transaction, and computes by hand
// what Kafka Streams' restore leaves per partition: the independent read
// must give the same keys, bytes and digest, read_committed (exactly-once)
// without the aborted records and read_uncommitted (at-least-once) with
// them; a single changed value is caught by the verification, naming its
// partition.
func TestStateIsWhatARestoreEndsWith(t *testing.T) {
	const topic = "user-app-counts-changelog"
	ctx := context.Background()
	cfg, plain := emptyChangelog(t, topic, 2)
	// want[p][key] is the value a restore leaves (absent: no entry).
	committed := []map[string]string{{}, {}}
	withAborted := []map[string]string{{}, {}}
	put := func(p int32, key string, value []byte, aborted bool) *kgo.Record {
		for i, m := range []map[string]string{committed[p], withAborted[p]} {
			if aborted && i == 0 {
				continue
			}
			if value == nil {
				delete(m, key)
			} else {
				m[key] = string(value)
			}
		}
		return &kgo.Record{Topic: topic, Partition: p, Key: []byte(key), Value: value}
	}
	var recs []*kgo.Record
	for round := range 3 {
		for i := range 200 {
			recs = append(recs, put(int32(i%2), fmt.Sprintf("word-%03d", i), []byte(fmt.Sprintf("%d", round*1000+i)), false))
		}
	}
	for i := 0; i < 200; i += 7 {
		recs = append(recs, put(int32(i%2), fmt.Sprintf("word-%03d", i), nil, false)) // deleted
	}
	recs = append(recs, put(0, "never-written", nil, false))
	recs = append(recs, &kgo.Record{Topic: topic, Partition: 1, Value: []byte("no key")}, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("no key")})
	if err := plain.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	txn, err := cluster.NewClient(cfg, kgo.TransactionalID("state-test"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	for _, commit := range []bool{true, false} {
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		var recs []*kgo.Record
		for i := range 50 {
			recs = append(recs, put(int32(i%2), fmt.Sprintf("txn-%v-%02d", commit, i), []byte("x"), !commit))
		}
		recs = append(recs, put(1, "word-001", []byte(fmt.Sprintf("changed in a transaction that commits: %v", commit)), !commit))
		if err := txn.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := txn.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	// A shape read that folds as the independent read does keeps no state
	// of a topic with transactions: it reads read_committed, which a
	// restore at another isolation level does not.
	if _, folded, err := ReadWithStates(ctx, cfg, topic, Options{Idle: time.Second}, StateOptions{}); err != nil || folded.States != nil {
		t.Fatalf("a transactional topic's shape read kept %d partitions' states (%v)", len(folded.States), err)
	}
	for _, tc := range []struct {
		readCommitted bool
		want          []map[string]string
	}{{true, committed}, {false, withAborted}} {
		st, err := State(ctx, cfg, topic, StateOptions{ReadCommitted: tc.readCommitted, Idle: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		want := expectedOf(tc.want)
		if ok, v := verify.Check(want, st.Partitions); !ok {
			t.Fatalf("read_committed=%v: the independent read differs from the restore's state: %s", tc.readCommitted, v.Problem)
		}
		if st.NullKeys != 2 {
			t.Errorf("read_committed=%v: %d records without a key, want 2", tc.readCommitted, st.NullKeys)
		}
		// Read key by key, partition 1 is the same state.
		entries, err := Entries(ctx, cfg, topic, 1, st.Ends[1], StateOptions{ReadCommitted: tc.readCommitted, Idle: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if d := verify.FirstDifference(1, entries, hashesOf(tc.want[1])); d != "" {
			t.Fatalf("read_committed=%v: key by key, the read differs from the restore's state: %s", tc.readCommitted, d)
		}
		// A store holding one other value is caught, by its partition, and
		// key by key the key is named.
		tc.want[1]["word-003"] = "corrupted"
		if ok, v := verify.Check(expectedOf(tc.want), st.Partitions); ok || !strings.Contains(v.Problem, "partition 1") {
			t.Fatalf("read_committed=%v: a corrupted value passed, or the problem does not name partition 1: %v %q", tc.readCommitted, ok, v.Problem)
		}
		if d := verify.FirstDifference(1, entries, hashesOf(tc.want[1])); !strings.Contains(d, `key "word-003": the store holds another value`) {
			t.Fatalf("read_committed=%v: the corrupted key is not named: %q", tc.readCommitted, d)
		}
	}
}

// hashesOf is each key's entry hash, as a store read key by key gives it.
func hashesOf(m map[string]string) map[string]uint64 {
	out := map[string]uint64{}
	for k, v := range m {
		out[k] = loadgen.EntryHash([]byte(k), []byte(v))
	}
	return out
}

// expectedOf folds maps of key → value into partition states.
func expectedOf(parts []map[string]string) []loadgen.PartitionState {
	var out []loadgen.PartitionState
	for p, m := range parts {
		ps := loadgen.PartitionState{Partition: int32(p)}
		for k, v := range m {
			ps.Keys++
			ps.LiveBytes += int64(len(k) + len(v))
			ps.Digest.Add([]byte(k), []byte(v))
		}
		out = append(out, ps)
	}
	return out
}

// TestStateOfTooManyKeysStops: a topic with more live keys than the read
// keeps is not verified (ErrTooManyKeys), rather than read into memory.
func TestStateOfTooManyKeysStops(t *testing.T) {
	cfg, topic := changelog(t, 3000, 1)
	_, err := State(context.Background(), cfg, topic, StateOptions{MaxKeys: 1000, Idle: time.Second})
	if !errors.Is(err, ErrTooManyKeys) || !strings.Contains(err.Error(), topic) {
		t.Fatalf("3000 keys read with room for 1000: %v", err)
	}
}
