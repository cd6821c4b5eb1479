package engine

import (
	"context"

	"github.com/restorebench/restorebench/config"

	"os"
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

	fetch, err := testInstance(cfg, "l", t.TempDir()).FetchOnly(ctx, offsets)
	if err != nil {
		t.Fatal(err)
	}
	if fetch.Records != totals.Records || fetch.Bytes != totals.Bytes || fetch.Duration <= 0 {
		t.Fatalf("fetch-only moved %d records, %d bytes; the fill has %d, %d", fetch.Records, fetch.Bytes, totals.Records, totals.Bytes)
	}
	dump := t.TempDir()
	if err := testInstance(cfg, "l", t.TempDir()).Dump(ctx, offsets, dump); err != nil {
		t.Fatal(err)
	}
	for _, strategy := range config.Strategies {
		c := testInstance(cfg, "l", t.TempDir())
		c.Case.Strategy = strategy
		c.Case.BatchRecords = 700
		if err := c.Case.Finalize(); err != nil {
			t.Fatal(err)
		}
		w, err := c.WriteOnly(ctx, dump, offsets.Partitions())
		if err != nil {
			t.Fatalf("%s: %v", strategy, err)
		}
		if w.Records != totals.Records || w.Bytes != totals.Bytes {
			t.Fatalf("%s: write-only moved %d records, %d bytes; the fill has %d, %d", strategy, w.Records, w.Bytes, totals.Records, totals.Bytes)
		}
		if ents, _ := os.ReadDir(c.AppDir()); len(ents) != 0 {
			t.Fatalf("%s: write-only left stores behind", strategy)
		}
	}
}
