package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// sessionFill is a session store's changelog over two hours of event
// time, five-minute windows (sessions of 75 s to 5 min) and a retention of
// 62.5 minutes: by the end of a restore about the first half of the
// sessions have expired, one window only in part.
func sessionFill() loadgen.Spec {
	s := windowFill()
	s.StoreKind, s.RetentionMs = loadgen.KindSession, 62*60_000+30_000
	return s
}

// sessionCase is a cold restore of a session store of fill's retention.
func sessionCase(t *testing.T, fill loadgen.Spec, strategy config.Strategy) config.Case {
	t.Helper()
	c := windowCase(t, fill, strategy)
	c.StoreKind = config.StoreSession
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSessionStoreRestoreKeepsTheLiveSessionsOnly: a cold restore of a
// session store starts, as Kafka Streams 4.4 does, at the first record
// within the retention of each partition's last one (about half the
// records) and serves exactly the sessions that end within the retention
// (it verifies), with Kafka Streams' default segments (31 min 15 s), with
// five-minute segments and in memory; its RocksDB segments on disk are
// named by the start of their interval of session ends, and are those of
// the ends it kept.
func TestSessionStoreRestoreKeepsTheLiveSessionsOnly(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	fill := sessionFill()
	testkafka.Fill(t, cfg, "s", fill, nil)
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
		in := testInstance(cfg, "s", t.TempDir())
		in.Case = sessionCase(t, fill, tc.strategy)
		in.Case.SegmentInterval = config.Duration(tc.interval)
		res, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "s"))
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
		if w.Kept+w.Skipped+w.Dropped != res.Records || segments == 0 || w.SegmentsOpened != w.SegmentsDropped+int64(segments) {
			t.Errorf("%s: read %d, counts %+v, %d segments open", name, res.Records, w, segments)
		}
		if tc.strategy == config.StrategyPut {
			checkSessionSegments(t, name, in, segments)
		}
		res.Close()
	}
}

// checkSessionSegments requires in's session segments on disk to be the
// open ones, each named <store>.<a multiple of the segment interval>.
func checkSessionSegments(t *testing.T, name string, in *Instance, segments int) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(in.AppDir(), "*", config.DefaultStore, config.DefaultStore+".*"))
	if len(dirs) != segments {
		t.Errorf("%s: %d segment directories on disk, %d segments open", name, len(dirs), segments)
	}
	iv := in.Case.SegmentIntervalOf().Milliseconds()
	for _, d := range dirs {
		start, err := strconv.ParseInt(strings.TrimPrefix(filepath.Ext(d), "."), 10, 64)
		if err != nil || start%iv != 0 {
			t.Errorf("%s: segment %s is not named by a multiple of %d ms", name, d, iv)
		}
	}
}

// TestSessionStoreExpiresBySessionEnd: the session store restored from
// every record of a session fill serves the expected sessions; the same
// records in a store that segmented and expired them by session start
// serve another state, and a session ending at stream time − retention,
// written into its segment, is not served.
func TestSessionStoreExpiresBySessionEnd(t *testing.T) {
	fill := sessionFill()
	c := sessionCase(t, fill, config.StrategyMemory)
	byEnd, err := memorySegmentedStore(c, sessionSchema)
	if err != nil {
		t.Fatal(err)
	}
	byStart, err := memorySegmentedStore(c, keySchema{
		time: func(k []byte) (int64, error) {
			_, start, _, err := loadgen.SplitSessionKey(k)
			return start, err
		},
		digestKey: sessionSchema.digestKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, fill, byEnd, byStart)
	expected, _, _ := loadgen.Expect(fill)
	var want loadgen.PartitionState
	for _, e := range expected {
		want.Keys += e.Keys
	}
	got, err := Scan(byEnd)
	if err != nil || got.Keys != want.Keys {
		t.Fatalf("all partitions in one store: %d sessions, want %d (%v)", got.Keys, want.Keys, err)
	}
	if other, _ := Scan(byStart); other.Keys == got.Keys {
		t.Errorf("expiring by session start serves %d sessions, as many as by end", other.Keys)
	}
	end := byEnd.stream - fill.RetentionMs
	old := loadgen.AppendSessionKey(nil, loadgen.AppendKey(nil, 1), end-10, end)
	seg, err := byEnd.segment(byEnd.segmentOf(end))
	if err != nil {
		t.Fatal(err)
	}
	if err := seg.Write([]Entry{{Key: old, Value: []byte("stale")}}); err != nil {
		t.Fatal(err)
	}
	if again, _ := Scan(byEnd); again != got {
		t.Errorf("a session ending at stream time − retention was served: %+v, then %+v", got, again)
	}
}

// writeAll restores every record of fill into each store, a poll of 1000
// at a time.
func writeAll(t *testing.T, fill loadgen.Spec, stores ...*WindowStore) {
	t.Helper()
	g, err := loadgen.NewGenerator(fill)
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	flush := func() {
		for _, s := range stores {
			if err := s.Write(entries); err != nil {
				t.Fatal(err)
			}
		}
		entries = nil
	}
	for i := range fill.Records {
		r := g.At(i)
		entries = append(entries, Entry{Key: append([]byte(nil), r.Key...), Value: append([]byte(nil), r.Value...), Timestamp: r.Timestamp})
		if len(entries) == 1000 {
			flush()
		}
	}
	flush()
}
