package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// versionedFill is a versioned store's changelog over two hours of event
// time with 20 minutes of history retention: by the end of a restore most
// of each key's versions are past it.
func versionedFill() loadgen.Spec {
	s := loadgen.DefaultSpec()
	s.Records, s.Keys, s.Partitions, s.TombstoneRatio = 20_000, 300, 2, 0.1
	s.ValueMin, s.ValueMax = 20, 60
	s.StoreKind, s.EventStepMicros = loadgen.KindVersionedKeyValue, 7200*1_000_000/s.Records
	s.RetentionMs = 20 * 60_000
	return s
}

// versionedCase is a cold restore of a versioned store of fill's history
// retention.
func versionedCase(t *testing.T, fill loadgen.Spec) config.Case {
	t.Helper()
	c := config.DefaultCase()
	c.StoreKind = config.StoreVersionedKeyValue
	c.Retention = config.Duration(time.Duration(fill.RetentionMs) * time.Millisecond)
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestVersionedStoreRestoreServesLatestAndHistory: a cold restore of a
// versioned store reads its whole changelog (Kafka Streams does not seek
// past a versioned changelog's head) and serves exactly the Go expected
// state, each key's latest version and its history within the retention,
// with Kafka Streams' default segments (100 s for 20 min), one-minute
// ones, and polls of 100 records; segments behind the retention were
// dropped on the way.
func TestVersionedStoreRestoreServesLatestAndHistory(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	fill := versionedFill()
	testkafka.Fill(t, cfg, "v", fill, nil)
	expected, totals, err := loadgen.Expect(fill)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		interval time.Duration
		batch    int
	}{{0, 1000}, {time.Minute, 1000}, {0, 100}} {
		name := fmt.Sprintf("segment %s, batch %d", tc.interval, tc.batch)
		in := testInstance(cfg, "v", t.TempDir())
		in.Case = versionedCase(t, fill)
		in.Case.SegmentInterval, in.Case.BatchRecords = config.Duration(tc.interval), tc.batch
		res, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "v"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ok, v := check(t, res.Stores, expected); !ok {
			t.Errorf("%s: did not verify: %s", name, v.Problem)
		}
		c, segments, ok := res.Versioned()
		if !ok || res.Records != totals.Records || c.Put != totals.Records || c.Skipped != 0 {
			t.Errorf("%s: read %d of %d records, put %d, skipped %d", name, res.Records, totals.Records, c.Put, c.Skipped)
		}
		if segments == 0 || c.SegmentsDropped == 0 || c.SegmentsOpened != c.SegmentsDropped+int64(segments) {
			t.Errorf("%s: segments opened %d, dropped %d, live %d: want some dropped behind the retention", name, c.SegmentsOpened, c.SegmentsDropped, segments)
		}
		res.Close()
	}
}

// TestVersionedStoreWithMoreHistoryDoesNotVerify: a store restored with
// twice the fill's history retention serves versions the fill's store
// would not, and one with half of it loses versions it would serve:
// neither verifies against the fill's expected state.
func TestVersionedStoreWithMoreHistoryDoesNotVerify(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	fill := versionedFill()
	testkafka.Fill(t, cfg, "v", fill, nil)
	expected, _, err := loadgen.Expect(fill)
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, e := range expected {
		want += e.Keys
	}
	base := time.Duration(fill.RetentionMs) * time.Millisecond
	for _, tc := range []struct {
		history time.Duration
		more    bool // serves more versions than the fill's store
	}{{2 * base, true}, {base / 2, false}} {
		in := testInstance(cfg, "v", t.TempDir())
		in.Case = versionedCase(t, fill)
		in.Case.Retention = config.Duration(tc.history)
		res, err := in.ColdRestore(context.Background(), testkafka.Offsets(t, cfg, "v"))
		if err != nil {
			t.Fatal(err)
		}
		ok, v := check(t, res.Stores, expected)
		if got, _ := v.Totals(); ok || tc.more != (got > want) || got == want {
			t.Errorf("history %s: verified %v, %d versions served, the fill's store serves %d", tc.history, ok, got, want)
		}
		res.Close()
	}
}

// TestVersionedStoreServesWhatKafkaStreamsServes writes versions by hand:
// a key's latest version is served however old; an older version while
// its validTo is after stream time minus the history retention, with its
// validFrom and validTo; a tombstone ends a version and serves nothing;
// a second write at the same timestamp replaces the version there.
func TestVersionedStoreServesWhatKafkaStreamsServes(t *testing.T) {
	c := config.DefaultCase()
	c.StoreKind, c.Retention = config.StoreVersionedKeyValue, config.Duration(10*time.Second)
	v, err := openVersionedStore(c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	val := func(s string) []byte { return []byte(s) }
	batches := [][]Entry{
		{{Key: val("old"), Value: val("o1"), Timestamp: 1_000}, {Key: val("a"), Value: val("a1"), Timestamp: 2_000}},
		{{Key: val("a"), Value: val("a2"), Timestamp: 30_000}, {Key: val("a"), Value: val("a3"), Timestamp: 45_000}},
		{{Key: val("a"), Value: nil, Timestamp: 50_000}, {Key: val("a"), Value: val("a4"), Timestamp: 52_000}},
		{{Key: val("a"), Value: val("a5"), Timestamp: 52_000}, {Key: val("gone"), Value: val("g1"), Timestamp: 53_000}},
		{{Key: val("gone"), Value: nil, Timestamp: 54_000}, {Key: val("b"), Value: val("b1"), Timestamp: 55_000}},
	}
	for _, b := range batches {
		if err := v.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	// Stream time 55 s, history from 45 s: a2 [30 s, 45 s) is past it.
	want := map[string]string{
		"old@1000":   "o1 until -",
		"a@45000":    "a3 until 50000",
		"a@52000":    "a5 until -",
		"gone@53000": "g1 until 54000",
		"b@55000":    "b1 until -",
	}
	got := map[string]string{}
	err = v.ForEach(func(k, val []byte) error {
		n := len(k) - 8
		to := fmt.Sprint(int64(binary.BigEndian.Uint64(val)))
		if int64(binary.BigEndian.Uint64(val)) == loadgen.NoValidTo {
			to = "-"
		}
		got[fmt.Sprintf("%s@%d", k[:n], int64(binary.BigEndian.Uint64(k[n:])))] = fmt.Sprintf("%s until %s", val[8:], to)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("served %v\nwant   %v", got, want)
	}
	if latest, ok, _ := v.Get(val("gone")); ok {
		t.Errorf("a deleted key's latest value is %q", latest)
	}
}
