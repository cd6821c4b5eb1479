package engine

import (
	"context"

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
		if err := tamper(res.Stores[1]); err != nil {
			t.Fatal(err)
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
