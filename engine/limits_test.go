package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
)

// TestLimitsMoveEveryRecord checks that fetch-only and write-only each move
// exactly the changelog's records and bytes, for every strategy, and leave
// no store behind.
func TestLimitsMoveEveryRecord(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	spec := spec100k()
	testkafka.Fill(t, cfg, "l", spec, nil)
	_, totals, err := loadgen.Expect(spec)
	if err != nil {
		t.Fatal(err)
	}
	offsets := testkafka.Offsets(t, cfg, "l")
	ctx := context.Background()

	fetch, err := FetchOnly(ctx, cfg, offsets, DefaultRestoreConfig("l", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if fetch.Records != totals.Records || fetch.Bytes != totals.Bytes || fetch.Duration <= 0 {
		t.Fatalf("fetch-only moved %d records, %d bytes; the fill has %d, %d", fetch.Records, fetch.Bytes, totals.Records, totals.Bytes)
	}
	dump := t.TempDir()
	if err := Dump(ctx, cfg, offsets, DefaultRestoreConfig("l", t.TempDir()), dump); err != nil {
		t.Fatal(err)
	}
	for _, strategy := range Strategies {
		c := DefaultRestoreConfig("l", t.TempDir())
		c.Strategy = strategy
		c.BatchRecords = 700
		if strategy == StrategyMemory {
			c.Store = "memory"
		}
		w, err := WriteOnly(ctx, dump, offsets.Partitions(), c)
		if err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
		if w.Records != totals.Records || w.Bytes != totals.Bytes {
			t.Fatalf("%s: write-only moved %d records, %d bytes; the fill has %d, %d", strategy, w.Records, w.Bytes, totals.Records, totals.Bytes)
		}
		if ents, _ := os.ReadDir(filepath.Join(c.StateDir, c.AppID)); len(ents) != 0 {
			t.Fatalf("%s: write-only left stores behind", strategy)
		}
	}
}
