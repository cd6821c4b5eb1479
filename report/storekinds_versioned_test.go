package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// versionedRestores are a versioned store's verified cold restores, one on
// each engine, as results.json records them.
func versionedRestores() []runs.Restore {
	served := verify.Result{Partitions: []verify.PartitionCheck{{ActualKeys: 977, LiveBytes: 69_641}}}
	model := runs.Restore{Case: "default-segments", Repeat: 1, Records: 4000, Phase: &runs.RestorePhase{Seconds: 0.02, TotalSeconds: 0.02}, Verified: true, Verification: served,
		Store: &runs.StoreFigures{Kind: config.StoreVersionedKeyValue, RecordsKept: 4000, SegmentsOpened: 21, SegmentsDropped: 14, Segments: 7, RetentionSeconds: 300, SegmentIntervalSeconds: 60}}
	ks := model
	ks.Case, ks.Phase = "default-segments-ks", &runs.RestorePhase{Seconds: 0.42, TotalSeconds: 0.42}
	ks.Store = &runs.StoreFigures{Kind: config.StoreVersionedKeyValue, Uncounted: true, RetentionSeconds: 300, SegmentIntervalSeconds: 60}
	return []runs.Restore{model, ks}
}

// TestStoreKindsPrintVersionedStores: the summary's store-kind table has a
// row per versioned restore with its kind, records read, versions served,
// history retention and segment interval, the kafka-streams one's counts
// marked uncounted; the report's Store kinds section explains the
// versioned store's columns.
func TestStoreKindsPrintVersionedStores(t *testing.T) {
	var b bytes.Buffer
	printStoreKinds(&b, versionedRestores())
	out := b.String()
	for _, want := range []string{"versioned-key-value: retention is the history retention", "default-segments-ks"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	var rows int
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && f[2] == "versioned-key-value" {
			rows++
			if f[3] != "4000" || f[7] != "977" || !strings.Contains(line, "5m 0s    1m 0s") {
				t.Errorf("row %q: want 4000 read, 977 served, 5m history, 1m segments", line)
			}
		}
	}
	if rows != 2 {
		t.Errorf("%d versioned rows, want 2:\n%s", rows, out)
	}
	a := &capacity.Analysis{Runs: []*capacity.Run{{Label: "R1", Results: &runs.Results{Restores: versionedRestores()}}}}
	s, err := storeKindsSection(a)
	if err != nil {
		t.Fatal(err)
	}
	var note, table bool
	for _, blk := range s.Blocks {
		switch x := blk.(type) {
		case *Para:
			note = note || strings.Contains(x.Text, "versioned store's restore (KIP-889)")
		case *Table:
			table = len(x.Rows) == 2 && x.Rows[0][1] == "versioned-key-value" && x.Rows[1][6] == "–"
		}
	}
	if !note || !table {
		t.Errorf("Store kinds section: versioned note %v, table of 2 versioned rows (the kafka-streams one uncounted) %v: %+v", note, table, s.Blocks)
	}
}
