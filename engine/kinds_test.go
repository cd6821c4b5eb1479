package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// windowFill is a window store's changelog over two hours of event time
// with an hour's retention and five-minute windows: by the end of a
// restore, the first hour's windows have expired.
func windowFill() loadgen.Spec {
	s := loadgen.DefaultSpec()
	s.Records, s.Keys, s.Partitions, s.TombstoneRatio = 20_000, 200, 2, 0.05
	s.ValueMin, s.ValueMax = 20, 60
	s.StoreKind, s.EventStepMicros = loadgen.KindWindow, 7200*1_000_000/s.Records
	s.WindowSizeMs, s.RetentionMs = 5*60_000, 60*60_000
	return s
}

// windowCase is a cold restore of a window store of fill's retention.
func windowCase(t *testing.T, fill loadgen.Spec, strategy config.Strategy) config.Case {
	t.Helper()
	c := config.DefaultCase()
	c.StoreKind, c.Strategy = config.StoreWindow, strategy
	if strategy == config.StrategyMemory {
		c.Store = config.StoreMemory
	}
	c.Retention = config.Duration(time.Duration(fill.RetentionMs) * time.Millisecond)
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWindowStoreRestoreKeepsTheLiveWindowsOnly is issue 19's window
// check: a cold restore of a window store whose retention expires about
// half its windows starts, as Kafka Streams 4.4 does, at the first record
// within the retention of each partition's last one, so it reads about
// half the records; it serves exactly the live windows (it verifies),
// with every segment it opened on disk, with Kafka Streams' default
// 30-minute segments, with segments as long as a window, and in memory.
func TestWindowStoreRestoreKeepsTheLiveWindowsOnly(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	fill := windowFill()
	testkafka.Fill(t, cfg, "w", fill, nil)
	expected, totals, err := loadgen.Expect(fill)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		strategy config.Strategy
		interval time.Duration
	}{
		{config.StrategyPut, 0},
		{config.StrategyPut, 5 * time.Minute},
		{config.StrategyMemory, 0},
	} {
		name := fmt.Sprintf("%s/segment %s", tc.strategy, tc.interval)
		in := testInstance(cfg, "w", t.TempDir())
		in.Case = windowCase(t, fill, tc.strategy)
		in.Case.SegmentInterval = config.Duration(tc.interval)
		res, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "w"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ok, v := check(t, res.Stores, expected); !ok {
			t.Errorf("%s: did not verify: %s", name, v.Problem)
		}
		w, segments, ok := res.Windows()
		if share := float64(res.Records) / float64(totals.Records); !ok || share < 0.4 || share > 0.6 {
			t.Errorf("%s: read %d of %d records (%.0f%%), want about half: the expired head is skipped", name, res.Records, totals.Records, share*100)
		}
		if w.Kept+w.Skipped+w.Dropped != res.Records || w.Skipped != 0 {
			t.Errorf("%s: read %d, kept %d + skipped %d + dropped %d", name, res.Records, w.Kept, w.Skipped, w.Dropped)
		}
		if segments == 0 || w.SegmentsOpened != w.SegmentsDropped+int64(segments) {
			t.Errorf("%s: segments opened %d, dropped %d, open %d", name, w.SegmentsOpened, w.SegmentsDropped, segments)
		}
		if tc.strategy == config.StrategyPut {
			dirs, _ := filepath.Glob(filepath.Join(in.AppDir(), "*", config.DefaultStore, config.DefaultStore+".*"))
			if len(dirs) != segments {
				t.Errorf("%s: %d segment directories on disk, %d segments open", name, len(dirs), segments)
			}
		}
		res.Close()
	}
}

// TestWindowStoreReadExpiredReadsAllKeepsHalf: a cold restore with
// read_expired reads the whole changelog, as Kafka Streams 3.9-4.1 and
// 4.3 do, drops the expired records on arrival or with their segments, and
// serves the same live windows, half of the fill's, as the seeking restore.
func TestWindowStoreReadExpiredReadsAllKeepsHalf(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	fill := windowFill()
	testkafka.Fill(t, cfg, "w", fill, nil)
	expected, totals, err := loadgen.Expect(fill)
	if err != nil {
		t.Fatal(err)
	}
	in := testInstance(cfg, "w", t.TempDir())
	in.Case = windowCase(t, fill, config.StrategyPut)
	in.Case.ReadExpired = true
	res, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if ok, v := check(t, res.Stores, expected); !ok {
		t.Fatalf("did not verify: %s", v.Problem)
	}
	w, _, _ := res.Windows()
	expired := w.Skipped + w.Dropped
	if res.Records != totals.Records || w.Kept+expired != res.Records {
		t.Errorf("read %d of %d records; kept %d + expired %d", res.Records, totals.Records, w.Kept, expired)
	}
	// Two hours of events, one hour's retention, 30-minute segments: the
	// first hour's records are expired, but those in the segment that still
	// holds a live window stay on disk (unserved) until it expires whole,
	// so a quarter to a half of the records are dropped.
	if share := float64(expired) / float64(res.Records); share < 0.2 || share > 0.55 {
		t.Errorf("%d of %d records expired (%.0f%%), want a quarter to a half", expired, res.Records, share*100)
	}
}

// TestWindowStoreVerificationCatchesAnExpiredWindow: a window store that
// kept a window past its retention, or lost a live one, does not verify.
func TestWindowStoreVerificationCatchesAnExpiredWindow(t *testing.T) {
	fill := windowFill()
	c := windowCase(t, fill, config.StrategyMemory)
	w, err := memoryWindowStore(c)
	if err != nil {
		t.Fatal(err)
	}
	g, err := loadgen.NewGenerator(fill)
	if err != nil {
		t.Fatal(err)
	}
	expected, _, _ := loadgen.Expect(fill)
	var want loadgen.PartitionState
	for _, e := range expected {
		want.Keys += e.Keys
	}
	var entries []Entry
	for i := range fill.Records {
		r := g.At(i)
		entries = append(entries, Entry{Key: append([]byte(nil), r.Key...), Value: append([]byte(nil), r.Value...)})
		if len(entries) == 1000 {
			if err := w.Write(entries); err != nil {
				t.Fatal(err)
			}
			entries = nil
		}
	}
	got, err := Scan(w)
	if err != nil || got.Keys != want.Keys {
		t.Fatalf("all partitions in one store: %d entries, want %d (%v)", got.Keys, want.Keys, err)
	}
	// A window one retention older than stream time, written straight
	// into its segment (as a store that ignored expiry would keep it),
	// is served by no correct store: the scan must not count it.
	old := loadgen.AppendWindowKey(nil, loadgen.AppendKey(nil, 1), w.stream-fill.RetentionMs, 0)
	seg, err := w.segment(w.segmentOf(w.stream - fill.RetentionMs))
	if err != nil {
		t.Fatal(err)
	}
	if err := seg.Write([]Entry{{Key: old, Value: []byte("stale")}}); err != nil {
		t.Fatal(err)
	}
	if again, _ := Scan(w); again != got {
		t.Errorf("a window at stream time − retention was served: %+v, then %+v", got, again)
	}
}

// TestTimestampedWindowStoreKeepsTheRecordTimestamp: a timestamped window
// store's restore serves the live windows with each value behind its
// record's timestamp, and verifies against the kind's expected state; the
// same changelog restored as a plain window store does not (its values
// lack the timestamps).
func TestTimestampedWindowStoreKeepsTheRecordTimestamp(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	fill := windowFill()
	fill.StoreKind = loadgen.KindTimestampedWindow
	testkafka.Fill(t, cfg, "tw", fill, nil)
	expected, _, err := loadgen.Expect(fill)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []config.StoreKind{config.StoreTimestampedWindow, config.StoreWindow} {
		in := testInstance(cfg, "tw", t.TempDir())
		in.Case = windowCase(t, fill, config.StrategyPut)
		in.Case.StoreKind = kind
		res, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "tw"))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		ok, v := check(t, res.Stores, expected)
		if want := kind == config.StoreTimestampedWindow; ok != want {
			t.Errorf("%s: verified %v, want %v (%s)", kind, ok, want, v.Problem)
		}
		if w, segments, counted := res.Windows(); !counted || w.Kept == 0 || segments == 0 {
			t.Errorf("%s: window counts %+v, %d segments open, counted %v", kind, w, segments, counted)
		}
		res.Close()
	}
}

// TestTimestampedStoreKeepsTheRecordTimestamp: a timestamped key-value
// restore keeps each value behind its record's timestamp and verifies
// against the timestamped expected state, with every strategy.
func TestTimestampedStoreKeepsTheRecordTimestamp(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	fill := spec100k()
	fill.Records, fill.StoreKind, fill.EventStepMicros = 20_000, loadgen.KindTimestampedKeyValue, 1000
	testkafka.Fill(t, cfg, "ts", fill, nil)
	expected, _, err := loadgen.Expect(fill)
	if err != nil {
		t.Fatal(err)
	}
	for _, strategy := range []config.Strategy{config.StrategyPut, config.StrategyBulk, config.StrategyIngest, config.StrategyMemory} {
		in := testInstance(cfg, "ts", t.TempDir())
		in.Case.StoreKind, in.Case.Strategy = config.StoreTimestampedKeyValue, strategy
		if strategy == config.StrategyMemory {
			in.Case.Store = config.StoreMemory
		}
		if err := in.Case.Finalize(); err != nil {
			t.Fatal(err)
		}
		res, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "ts"))
		if err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
		if ok, v := check(t, res.Stores, expected); !ok {
			t.Errorf("%s: did not verify: %s", strategy, v.Problem)
		}
		res.Close()
	}
}

// TestWindowStoreRestoreWaitsOutTheProbesFetch: after its seek by
// retention, Kafka Streams 4.4's restore consumer has a fetch at each
// probed partition's end outstanding, which the broker holds for
// fetch.max.wait.ms before the restore's first fetch can go; the model's
// restore sends that fetch (at exactly the end offsets, 500 ms) before it
// fetches a record, and a restore that reads from the log start
// (read_expired, as the releases without the seek) sends none.
func TestWindowStoreRestoreWaitsOutTheProbesFetch(t *testing.T) {
	for _, readExpired := range []bool{false, true} {
		// Three brokers: the fetch goes to each partition's leader (kfake
		// places leaders at random, so they often differ).
		c, err := kfake.NewCluster(kfake.NumBrokers(3))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cfg := cluster.Config{Brokers: c.ListenAddrs(), ConnectTimeout: 10 * time.Second}
		fill := windowFill()
		testkafka.Fill(t, cfg, "w", fill, nil)
		offsets := testkafka.Offsets(t, cfg, "w")
		leaders := partitionLeaders(t, cfg, "w")
		var mu sync.Mutex
		var fetches [][2]int64       // per fetched partition: its offset, the request's max wait
		endNodes := map[int32]bool{} // the brokers the fetches at the end went to
		c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			mu.Lock()
			defer mu.Unlock()
			fr := req.(*kmsg.FetchRequest)
			for _, rt := range fr.Topics {
				for _, rp := range rt.Partitions {
					f := [2]int64{rp.FetchOffset - offsets.End[rp.Partition], int64(fr.MaxWaitMillis)}
					fetches = append(fetches, f)
					if f[0] == 0 && f[1] == probeFetchWait.Milliseconds() {
						endNodes[c.CurrentNode()] = true
					}
				}
			}
			return nil, nil, false
		})
		in := testInstance(cfg, "w", t.TempDir())
		in.Case = windowCase(t, fill, config.StrategyPut)
		in.Case.ReadExpired = readExpired
		res, err := in.ColdRestore(context.Background(), offsets)
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
		mu.Lock()
		var atEnd, before int
		for _, f := range fetches {
			switch {
			case f[0] == 0 && f[1] == probeFetchWait.Milliseconds():
				atEnd++
			case f[0] < -1 && atEnd < len(offsets.End):
				before++ // a fetch of the restore's records before both ends were waited on (-1: the probe's read of the last record)
			}
		}
		mu.Unlock()
		if want := len(offsets.End); !readExpired && (atEnd != want || before != 0 || !maps.Equal(endNodes, leaders)) {
			t.Errorf("seeking restore: %d fetches at a partition's end with %s's wait, to brokers %v, %d fetches of records before them; "+
				"want %d, to the partitions' leaders %v, and 0: %v", atEnd, probeFetchWait, endNodes, before, want, leaders, fetches)
		}
		if readExpired && atEnd != 0 {
			t.Errorf("read_expired restore: %d fetches at a partition's end, want none (no probe): %v", atEnd, fetches)
		}
	}
}

// partitionLeaders is the set of brokers leading topic's partitions.
func partitionLeaders(t *testing.T, cfg cluster.Config, topic string) map[int32]bool {
	t.Helper()
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	meta, err := kadm.NewClient(cl).Metadata(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]bool{}
	for _, p := range meta.Topics[topic].Partitions {
		out[p.Leader] = true
	}
	return out
}

// TestEveryKindsLayoutHasTheModelsStore: the layout of every store kind
// config registers has the model engine's store registered
// (registerLayout), which reopens a kept store when the kind declares a
// warm restart (config.CapReopen); no layout is registered that no kind
// restores into; a layout without its registration is an error naming
// it, not a key-value store; a second registration panics.
func TestEveryKindsLayoutHasTheModelsStore(t *testing.T) {
	for _, k := range config.StoreKinds {
		d, _ := config.StoreKindDefOf(k)
		ops, err := layoutOf(k)
		if err != nil {
			t.Errorf("%s stores: %v (register its layout's store: registerLayout)", k, err)
			continue
		}
		if d.Has(config.CapReopen) && ops.reopen == nil {
			t.Errorf("%s stores declare %q, yet the model's %s layout reopens no kept store", k, config.CapReopen, d.Layout)
		}
	}
	if len(layouts) != len(config.StoreLayouts()) {
		t.Errorf("%d layouts registered, store kinds restore into %v: each needs one registration, and none is left unused", len(layouts), config.StoreLayouts())
	}
	saved := layouts[config.LayoutVersioned]
	delete(layouts, config.LayoutVersioned)
	c := config.DefaultCase()
	c.StoreKind = config.StoreVersionedKeyValue
	_, err := newLayoutLoader(loaderSpec{Case: c, AppDir: t.TempDir(), Store: "s"}, TaskID{})
	layouts[config.LayoutVersioned] = saved
	if err == nil || !strings.Contains(err.Error(), `layout "versioned"`) {
		t.Errorf("a kind of an unregistered layout: %v, want an error naming the layout", err)
	}
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "window") {
			t.Errorf("a second window layout: panic %q, want one naming it", msg)
		}
	}()
	registerLayout(config.LayoutWindow, saved)
}
