package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/verify"

	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// testInstance is an instance with Kafka Streams' defaults restoring topic
// into stateDir.
func testInstance(cc cluster.Config, topic, stateDir string) *Instance {
	return &Instance{Cluster: cc, StateDir: stateDir, AppID: config.DefaultAppID, StoreName: config.DefaultStore, Case: config.DefaultCase()}
}

// check verifies restored stores against the expected state.
func check(t *testing.T, stores map[int32]Store, expected []loadgen.PartitionState) (bool, verify.Result) {
	t.Helper()
	actual, err := ScanAll(stores)
	if err != nil {
		t.Fatal(err)
	}
	return verify.Check(expected, actual)
}

func spec100k() loadgen.Spec {
	s := loadgen.DefaultSpec()
	s.Records = 100_000
	s.Keys = 20_000
	s.ValueMin, s.ValueMax = 20, 200
	s.TombstoneRatio = 0.05
	s.Partitions = 3
	return s
}

func TestColdRestoreVerifies(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	testkafka.Fill(t, cfg, "c", spec, nil)
	expected, totals, err := loadgen.Expect(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{"rocksdb", "memory"} {
		for _, threads := range []int{1, 2} {
			rc := testInstance(cfg, "c", t.TempDir())
			rc.Case.Store, rc.Case.Threads = config.StoreType(store), threads
			if err := rc.Case.Finalize(); err != nil {
				t.Fatal(err)
			}
			res, err := rc.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "c"))
			if err != nil {
				t.Fatalf("%s/%d threads: %v", store, threads, err)
			}
			if res.Records != totals.Records {
				t.Errorf("%s/%d threads: restored %d records, fill wrote %d", store, threads, res.Records, totals.Records)
			}
			ok, v := check(t, res.Stores, expected)
			if !ok {
				t.Errorf("%s/%d threads: did not verify: %s", store, threads, v.Problem)
			}
			if res.BatchWrite.Summary().Count == 0 || len(res.Series) == 0 {
				t.Errorf("%s/%d threads: no batch latencies or series recorded", store, threads)
			}
			res.Close()
		}
	}
}

func TestTombstonesRemoveKeys(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.KeyOrder, spec.TombstoneRatio = 40_000, 2_000, loadgen.KeysSequential, 0.3
	testkafka.Fill(t, cfg, "tomb", spec, nil)
	rc := testInstance(cfg, "tomb", t.TempDir())
	res, err := rc.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "tomb"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	// Find keys whose last record was a tombstone and check they are gone.
	g, _ := loadgen.NewGenerator(spec)
	last := map[int64]bool{} // key id -> last write was a tombstone
	for {
		r, ok := g.Next()
		if !ok {
			break
		}
		last[r.KeyID] = r.Value == nil
	}
	deleted := 0
	for id, tomb := range last {
		v, live, err := res.Stores[0].Get(loadgen.AppendKey(nil, id))
		if err != nil {
			t.Fatal(err)
		}
		if tomb && live {
			t.Fatalf("key %d was deleted last but the store holds %q", id, v)
		}
		if !tomb && !live {
			t.Fatalf("key %d is live but missing from the store", id)
		}
		if tomb {
			deleted++
		}
	}
	if deleted == 0 {
		t.Fatal("test fill deleted no key")
	}
	expected, _, _ := loadgen.Expect(spec)
	if ok, v := check(t, res.Stores, expected); !ok {
		t.Fatal(v.Problem)
	}
}

func TestTamperedStoreFailsVerification(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	testkafka.Fill(t, cfg, "c", spec, nil)
	expected, _, _ := loadgen.Expect(spec)
	tampers := map[string]func(Store) error{
		"changed value": func(s Store) error {
			var key []byte
			s.ForEach(func(k, _ []byte) error { key = append([]byte(nil), k...); return errStop })
			return s.Write([]Entry{{Key: key, Value: []byte("tampered")}})
		},
		"extra key": func(s Store) error { return s.Write([]Entry{{Key: []byte("k999999999999999"), Value: []byte("x")}}) },
		"missing key": func(s Store) error {
			var key []byte
			s.ForEach(func(k, _ []byte) error { key = append([]byte(nil), k...); return errStop })
			return s.Write([]Entry{{Key: key}})
		},
	}
	for name, tamper := range tampers {
		rc := testInstance(cfg, "c", t.TempDir())
		res, err := rc.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "c"))
		if err != nil {
			t.Fatal(err)
		}
		if ok, v := check(t, res.Stores, expected); !ok {
			t.Fatalf("%s: untampered restore did not verify: %s", name, v.Problem)
		}
		before, err := Entries(res.Stores[1])
		if err != nil {
			t.Fatal(err)
		}
		var sum loadgen.Digest
		for _, h := range before {
			sum += loadgen.Digest(h)
		}
		if st, _ := Scan(res.Stores[1]); sum != st.Digest || int64(len(before)) != st.Keys {
			t.Fatalf("%s: entries key by key sum to %s over %d keys, the scan to %s over %d", name, sum, len(before), st.Digest, st.Keys)
		}
		if err := tamper(res.Stores[1]); err != nil {
			t.Fatal(err)
		}
		after, err := Entries(res.Stores[1])
		if err != nil {
			t.Fatal(err)
		}
		if d := verify.FirstDifference(1, before, after); !strings.Contains(d, "1 key(s) differ; the first, key \"k") || !strings.Contains(d, tamperedSays[name]) {
			t.Errorf("%s: key by key: %q, want the key named and %q", name, d, tamperedSays[name])
		}
		ok, v := check(t, res.Stores, expected)
		if ok {
			t.Errorf("%s: tampered store verified", name)
		}
		if v.Problem == "" || v.Partitions[1].OK || !v.Partitions[0].OK {
			t.Errorf("%s: verification did not single out partition 1: %+v", name, v)
		}
		res.Close()
	}
}

var errStop = errors.New("stop")

// tamperedSays is what verify.FirstDifference says of each tampering.
var tamperedSays = map[string]string{
	"changed value": "the store holds another value",
	"extra key":     "in the store, not live in the topic",
	"missing key":   "in the topic, missing from the store",
}

func TestColdRestoreRefusesExistingState(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	spec.Records = 100
	testkafka.Fill(t, cfg, "c", spec, nil)
	rc := testInstance(cfg, "c", t.TempDir())
	if err := os.MkdirAll(filepath.Join(taskDir(rc.AppDir(), TaskID{}), "rocksdb"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := rc.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "c"))
	if !errors.Is(err, ErrStateDirNotEmpty) {
		t.Fatalf("got %v, want ErrStateDirNotEmpty", err)
	}
}

func TestRocksStoreLayoutFollowsKafkaStreams(t *testing.T) {
	in := testInstance(cluster.Config{}, "t", "/var/lib/kafka-streams")
	if got := storePath(in.AppDir(), TaskID{Partition: 3}, in.StoreName); got != "/var/lib/kafka-streams/restorebench/0_3/rocksdb/balances" {
		t.Fatalf("store path %s", got)
	}
	o := config.KStreamsRocksDB()
	if o.BlockCacheSize != 50<<20 || o.BlockSize != 4096 || o.WriteBufferSize != 16<<20 || o.MaxWriteBufferNumber != 3 ||
		o.CompactionStyle != "universal" || o.Compression != "none" || !o.DisableWAL || o.BloomBitsPerKey <= 0 {
		t.Fatalf("kstreams preset differs from RocksDBStore defaults: %+v", o)
	}
}

// TestEmptyValuesAreLiveKeys: an empty value is a live key with an empty
// value, not a tombstone, from the producer to every store and strategy.
func TestEmptyValuesAreLiveKeys(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	for _, vs := range [][2]int{{0, 0}, {0, 8}} {
		spec := loadgen.DefaultSpec()
		spec.Records, spec.Keys, spec.Partitions, spec.TombstoneRatio = 20_000, 3_000, 2, 0.1
		spec.ValueMin, spec.ValueMax = vs[0], vs[1]
		topic := fmt.Sprintf("empty-%d-%d", vs[0], vs[1])
		testkafka.Fill(t, cfg, topic, spec, nil)
		expected, _, err := loadgen.Expect(spec)
		if err != nil {
			t.Fatal(err)
		}
		var live int64
		for _, e := range expected {
			live += e.Keys
		}
		if live == 0 {
			t.Fatal("the fill left no live key")
		}
		for _, strategy := range config.Strategies {
			rc := testInstance(cfg, topic, t.TempDir())
			rc.Case.Strategy = strategy
			if err := rc.Case.Finalize(); err != nil {
				t.Fatal(err)
			}
			res, err := rc.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, topic))
			if err != nil {
				t.Fatalf("values %v, %s: %v", vs, strategy, err)
			}
			if ok, v := check(t, res.Stores, expected); !ok {
				t.Errorf("values %v, %s: empty values lost: %s", vs, strategy, v.Problem)
			}
			res.Close()
		}
	}
}

// TestWarmRestoreReadsOnlyWhatChanged: an instance restarted with its state
// directory kept restores only the records written since its stores
// committed their offsets, and ends with exactly the state of the longer
// log; a committed offset below the log start falls back to a full restore.
func TestWarmRestoreReadsOnlyWhatChanged(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	testkafka.Fill(t, cfg, "w", spec, nil)
	state := t.TempDir()
	in := testInstance(cfg, "w", state)
	cold, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "w"))
	if err != nil {
		t.Fatal(err)
	}
	cold.Close()
	// Nothing changed: nothing to read.
	warm, err := in.WarmRestore(context.Background(), testkafka.Offsets(t, cfg, "w"))
	if err != nil {
		t.Fatal(err)
	}
	if warm.Records != 0 {
		t.Fatalf("warm restore with nothing changed read %d records", warm.Records)
	}
	for _, task := range warm.Tasks {
		if !task.Warm || task.Fallback != "" {
			t.Fatalf("task %s: warm=%v fallback=%q", task.ID, task.Warm, task.Fallback)
		}
	}
	warm.Close()
	// Append 5,000 more records of the same generator: the warm restore
	// reads exactly those and ends in the longer log's state.
	longer := spec
	longer.Records += 5000
	testkafka.Append(t, cfg, "w", longer, spec.Records)
	warm, err = in.WarmRestore(context.Background(), testkafka.Offsets(t, cfg, "w"))
	if err != nil {
		t.Fatal(err)
	}
	if warm.Records != 5000 {
		t.Fatalf("warm restore read %d records, 5000 were appended", warm.Records)
	}
	expected, _, _ := loadgen.Expect(longer)
	if ok, v := check(t, warm.Stores, expected); !ok {
		t.Fatalf("warm restore did not verify: %s", v.Problem)
	}
	warm.Close()
	// A committed offset below the log start: full restore, said so. The
	// log start is moved past partition 0's committed offset, as retention
	// or DeleteRecords would after more writes.
	evenLonger := longer
	evenLonger.Records += 2000
	testkafka.Append(t, cfg, "w", evenLonger, longer.Records)
	offsets := testkafka.Offsets(t, cfg, "w")
	offsets.Start[0] = offsets.End[0] - 10
	warm, err = in.WarmRestore(context.Background(), offsets)
	if err != nil {
		t.Fatal(err)
	}
	defer warm.Close()
	if !strings.Contains(warm.Tasks[0].Fallback, "below the log start") || warm.Tasks[0].Warm {
		t.Fatalf("task 0: warm=%v fallback=%q", warm.Tasks[0].Warm, warm.Tasks[0].Fallback)
	}
	if warm.Tasks[1].Fallback != "" || !warm.Tasks[1].Warm {
		t.Fatalf("task 1 fell back: %q", warm.Tasks[1].Fallback)
	}
	if warm.Tasks[0].Restored != 10 {
		t.Fatalf("task 0 restored %d records from the new log start, want 10", warm.Tasks[0].Restored)
	}
}
