package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

const transactionalProfile = `
name: eos
fill:
  records: 40000
  keys: 5000
  value_size: 50-200
  tombstone_ratio: 0.05
  partitions: 2
  transactional: true
  transaction_records: 500
  abort_ratio: 0.2
cases:
  - name: exactly-once
    streams: {processing.guarantee: exactly_once_v2}
  - name: at-least-once
`

// TestTransactionalFillVerifiesReadCommittedOnly runs a transactional fill
// with aborts: the exactly_once_v2 restore reads committed and verifies;
// the at_least_once one reads uncommitted, restores the aborted records and
// fails verification with an error that says why. results.json records the
// fill's transactions and each restore's isolation level.
func TestTransactionalFillVerifiesReadCommittedOnly(t *testing.T) {
	plan, err := profiles.Parse([]byte(transactionalProfile), "eos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := connect(t, t.TempDir())
	defer env.Close()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := env.Run(context.Background(), plan, RunOptions{OutDir: out}); err == nil || !strings.Contains(err.Error(), "at-least-once") {
		t.Fatalf("run: got %v, want the at-least-once restore to fail", err)
	}
	res, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	ft := res.Fill.Transactions
	if ft == nil || ft.AbortedRecords == 0 || ft.TransactionRecords != 500 || ft.AbortRatio != 0.2 || !res.Fill.Spec.Transactional {
		t.Fatalf("fill transactions %+v, spec %+v", ft, res.Fill.Spec)
	}
	if ft.Offsets != res.Fill.Records+ft.AbortedRecords+ft.Markers {
		t.Fatalf("fill takes %d offsets, want %d records + %d aborted + %d markers", ft.Offsets, res.Fill.Records, ft.AbortedRecords, ft.Markers)
	}
	eos, alos := res.Restores[0], res.Restores[1]
	if !eos.Verified || eos.Read == nil || eos.Read.IsolationLevel != config.ReadCommitted || eos.Records != res.Fill.Records ||
		eos.Read.Offsets != ft.Offsets || eos.Read.Markers != ft.Markers || eos.Read.Note != "" {
		t.Fatalf("exactly-once restore: verified=%v records=%d read=%+v; fill %d records, %+v", eos.Verified, eos.Records, eos.Read, res.Fill.Records, ft)
	}
	if alos.Verified || alos.Read == nil || alos.Read.IsolationLevel != config.ReadUncommitted || alos.Records != res.Fill.Records+ft.AbortedRecords {
		t.Fatalf("at-least-once restore: verified=%v records=%d read=%+v", alos.Verified, alos.Records, alos.Read)
	}
	for _, want := range []string{"verification failed", "read_uncommitted over transactional batches", "aborted transactions, whose records were restored", "exactly_once_v2"} {
		if !strings.Contains(alos.Error, want) || !strings.Contains(alos.Read.Note, strings.TrimPrefix(want, "verification failed")) {
			t.Fatalf("at-least-once error %q (note %q) does not say %q", alos.Error, alos.Read.Note, want)
		}
	}
}

// TestTransactionalFillIsNotThePlainFill checks that a fill manifest tells
// a transactional fill from a plain one of the same parameters: neither is
// reused for the other, a topic whose manifest was edited to claim the
// other is not reused either (the broker shows its layout), and an equal
// transactional fill is reused.
func TestTransactionalFillIsNotThePlainFill(t *testing.T) {
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	plain := loadgen.DefaultSpec()
	plain.Records, plain.Keys, plain.Partitions = 20000, 3000, 2
	txn := plain
	txn.Transactional, txn.TransactionRecords, txn.AbortRatio = true, 500, 0.3
	if _, err := env.EnsureFill(ctx, FillRequest{Topic: "t", Spec: plain, Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	_, err := env.EnsureFill(ctx, FillRequest{Topic: "t", Spec: txn, Compression: "none"})
	if err == nil || !strings.Contains(err.Error(), "transactional settings differ (a plain fill, not transactions of 500 records, 0.3 aborted)") || !strings.Contains(err.Error(), "--refill") {
		t.Fatalf("transactional over plain: got %v, want a refusal naming the transactional settings", err)
	}
	// A manifest edited to claim the transactional fill: the broker's
	// offsets give it away.
	path := loadgen.ManifestPath(env.Opts.DataDir, env.ClusterID, "t")
	m, err := loadgen.LoadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	m.Spec = txn
	b, _ := json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = env.EnsureFill(ctx, FillRequest{Topic: "t", Spec: txn, Compression: "none"})
	if err == nil || !strings.Contains(err.Error(), "transactional fill's") {
		t.Fatalf("edited manifest: got %v, want the topic's end offsets to refuse it", err)
	}
	out, err := env.EnsureFill(ctx, FillRequest{Topic: "t", Spec: txn, Compression: "none", Refill: true})
	if err != nil || out.Reused || out.Derived.Log.AbortedRecords == 0 {
		t.Fatalf("refill: %v, reused=%v", err, out.Reused)
	}
	again, err := env.EnsureFill(ctx, FillRequest{Topic: "t", Spec: txn, Compression: "none"})
	if err != nil || !again.Reused {
		t.Fatalf("the same transactional fill: %v, reused=%v", err, again.Reused)
	}
	if _, err := env.EnsureFill(ctx, FillRequest{Topic: "t", Spec: plain, Compression: "none"}); err == nil || !strings.Contains(err.Error(), "transactional settings differ") {
		t.Fatalf("plain over transactional: got %v", err)
	}
}

// TestLimitsReadAtTheCaseIsolationLevel checks that a case's fetch-only and
// write-only limits read a transactional changelog as its restore does:
// read committed without the aborted records, read uncommitted with them,
// each from its own dump.
func TestLimitsReadAtTheCaseIsolationLevel(t *testing.T) {
	env := connect(t, t.TempDir())
	defer env.Close()
	ctx := context.Background()
	spec := loadgen.DefaultSpec()
	spec.Records, spec.Keys, spec.Partitions = 20000, 3000, 2
	spec.Transactional, spec.TransactionRecords, spec.AbortRatio = true, 500, 0.3
	fill, err := env.EnsureFill(ctx, FillRequest{Topic: "lim", Spec: spec, Compression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	aborted := fill.Derived.Log.AbortedRecords
	m := newLimitMeter(env, "lim", "app", "s", t.TempDir())
	defer m.close()
	for _, c := range []struct {
		guarantee string
		records   int64
	}{{config.ExactlyOnceV2, spec.Records}, {config.AtLeastOnce, spec.Records + aborted}} {
		cs := config.DefaultCase()
		cs.Streams = map[string]string{config.PropProcessingGuarantee: c.guarantee}
		if err := cs.Finalize(); err != nil {
			t.Fatal(err)
		}
		if _, err := m.forCase(ctx, cs); err != nil {
			t.Fatal(err)
		}
		for kind, lims := range map[string]map[string]measure.Limit{"fetch-only": m.fetch, "write-only": m.write} {
			found := false
			for key, l := range lims {
				if strings.HasSuffix(key, cs.IsolationLevel()) {
					found = true
					if l.Records != c.records {
						t.Errorf("%s %s: %d records, want %d", c.guarantee, kind, l.Records, c.records)
					}
				}
			}
			if !found {
				t.Errorf("%s: no %s limit at %s", c.guarantee, kind, cs.IsolationLevel())
			}
		}
	}
}
