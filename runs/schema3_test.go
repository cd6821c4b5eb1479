package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// flatOf reads a saved run's records as schemas 1 to 3 wrote them.
func flatOf(t *testing.T, path string) []schema3Figures {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var flat struct {
		Restores []schema3Figures `json:"restores"`
	}
	if err := json.Unmarshal(b, &flat); err != nil {
		t.Fatal(err)
	}
	return flat.Restores
}

// TestSchema3Upgrade: a schema-3 file (testdata/results/compose, both
// engines) loads as schema 4 with every old figure in the sub-record of
// its meaning: a model restore's time, rates, CPU, RSS and disk in its
// restore phase and its load/finish split, latencies and RocksDB figures in
// its Model; a kafka-streams restore's in its restore phase and no Model
// (its load_seconds was its duration again); and a standby's following
// steps (testdata/results/standby, through schemas 1 and 2) hold their
// applying in the standby record, with no restore phase.
func TestSchema3Upgrade(t *testing.T) {
	path := filepath.Join("..", "testdata", "results", "compose", "results.json")
	flat := flatOf(t, path)
	r, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != SchemaVersion {
		t.Fatalf("loaded as schema %d, want %d", r.SchemaVersion, SchemaVersion)
	}
	var model, ks int
	for i, rec := range r.Restores {
		f := flat[i]
		p := rec.Phase
		if p == nil {
			t.Fatalf("restores[%d] (%s): no restore phase", i, rec.Case)
		}
		want := RestorePhase{Seconds: f.DurationSeconds, TotalSeconds: f.TotalSeconds, RecordsPerSec: f.RecordsPerSec, MBPerSec: f.MBPerSec,
			CPUSeconds: f.CPUSeconds, PeakRSSBytes: f.PeakRSSBytes, DiskBytes: f.DiskBytes, Limits: f.Limits}
		if !reflect.DeepEqual(*p, want) || p.Seconds <= 0 {
			t.Errorf("restores[%d] (%s): restore phase %+v, the file's figures %+v", i, rec.Case, *p, want)
		}
		if secs, ok := rec.RestoreSeconds(); !ok || secs != f.DurationSeconds {
			t.Errorf("restores[%d] (%s): RestoreSeconds %v %v, the file's duration %v", i, rec.Case, secs, ok, f.DurationSeconds)
		}
		if _, ok := rec.Gap(); ok {
			t.Errorf("restores[%d] (%s): a restore with a gap", i, rec.Case)
		}
		switch rec.Params.Engine {
		case config.EngineKafkaStreams:
			ks++
			if rec.Model != nil {
				t.Errorf("restores[%d] (%s): a kafka-streams record with model figures %+v", i, rec.Case, rec.Model)
			}
			if f.LoadSeconds != f.DurationSeconds || f.TotalSeconds != f.DurationSeconds {
				t.Errorf("restores[%d] (%s): the file's kafka-streams load %v and total %v are not its duration %v", i, rec.Case,
					f.LoadSeconds, f.TotalSeconds, f.DurationSeconds)
			}
		default:
			model++
			m := rec.Model
			if m == nil {
				t.Fatalf("restores[%d] (%s): a model record without model figures", i, rec.Case)
			}
			want := ModelRun{LoadSeconds: f.LoadSeconds, FinishSeconds: f.FinishSeconds, PollWait: f.PollWait, BatchWrite: f.BatchWrite,
				RocksDB: f.RocksDB, Ready: f.Ready}
			if !reflect.DeepEqual(*m, want) || m.LoadSeconds <= 0 || m.PollWait.Count == 0 {
				t.Errorf("restores[%d] (%s): model figures %+v, the file's %+v", i, rec.Case, *m, want)
			}
		}
	}
	if model == 0 || ks == 0 {
		t.Fatalf("%d model and %d kafka-streams records: the fixture should hold both", model, ks)
	}

	path = filepath.Join("..", "testdata", "results", "standby", "results.json")
	flat = flatOf(t, path)
	if r, err = Load(path); err != nil {
		t.Fatal(err)
	}
	following := 0
	for i, rec := range r.Restores {
		f, sb := flat[i], rec.Standby
		if sb == nil {
			t.Fatalf("restores[%d] (%s): no standby record", i, rec.Case)
		}
		if rec.StepKind() == StepInitial {
			if rec.Phase == nil || rec.Phase.Seconds != f.DurationSeconds || sb.Following != nil {
				t.Errorf("restores[%d] (%s): initial restore phase %+v, following %+v; the file's duration %v", i, rec.Case, rec.Phase, sb.Following, f.DurationSeconds)
			}
			continue
		}
		following++
		want := FollowingPhase{Seconds: f.DurationSeconds, RecordsPerSec: f.RecordsPerSec, MBPerSec: f.MBPerSec}
		if rec.Phase != nil || sb.Following == nil || *sb.Following != want {
			t.Errorf("restores[%d] (%s): restore phase %+v, following %+v; want none and %+v", i, rec.Case, rec.Phase, sb.Following, want)
		}
		if secs, what, ok := rec.Measured(); !ok || what != MeasureFollowing || secs != f.DurationSeconds {
			t.Errorf("restores[%d] (%s): measured %v %q %v, want the following step's %v", i, rec.Case, secs, what, ok, f.DurationSeconds)
		}
		if ks := rec.Params.Engine == config.EngineKafkaStreams; ks != (rec.Model == nil) {
			t.Errorf("restores[%d] (%s) on %s: model figures %+v", i, rec.Case, rec.Params.Engine, rec.Model)
		}
	}
	if following == 0 {
		t.Fatal("no following step in the standby fixture")
	}
}

// TestSchema3UpgradeRefusesFiguresOfAnotherKind: a schema-3 record holding
// a figure its kind cannot carry (model figures on a kafka-streams record
// beyond its copied load, a restore's CPU on a standby's following step)
// is refused as it loads, naming it, not dropped unseen.
func TestSchema3UpgradeRefusesFiguresOfAnotherKind(t *testing.T) {
	for _, c := range []struct {
		fixture, field string
		value          any
		want           string
	}{
		{"compose", "finish_seconds", 3, "a kafka-streams record carries figures only the model measures"},
		{"standby", "cpu_seconds", 2, "step carries a restore's cpu_seconds"},
	} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "results", c.fixture, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		damaged := -1
		for i, x := range doc["restores"].([]any) {
			rec := x.(map[string]any)
			params := rec["params"].(map[string]any)
			sb, _ := rec["standby"].(map[string]any)
			if c.fixture == "compose" && params["engine"] == "kafka-streams" || c.fixture == "standby" && sb != nil && sb["step"] == "rate" {
				rec[c.field], damaged = c.value, i
				break
			}
		}
		if damaged < 0 {
			t.Fatalf("%s: no record to damage", c.fixture)
		}
		out, _ := json.Marshal(doc)
		path := filepath.Join(t.TempDir(), "results.json")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %s on restores[%d]: %v, want %q", c.fixture, c.field, damaged, err, c.want)
		}
	}
}

// TestSchema4RoundTrips: a file loaded from every saved run (each
// upgraded) saves as schema 4 and loads again to the same records, and
// the file written holds none of the flat fields schema 4 moved.
func TestSchema4RoundTrips(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "results", "*", "results.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no saved runs (%v)", err)
	}
	for _, path := range paths {
		r, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "results.json")
		if err := r.Save(out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			SchemaVersion int              `json:"schema_version"`
			Restores      []map[string]any `json:"restores"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		if raw.SchemaVersion != SchemaVersion {
			t.Errorf("%s: written as schema %d", path, raw.SchemaVersion)
		}
		for i, rec := range raw.Restores {
			for _, moved := range []string{"duration_seconds", "load_seconds", "finish_seconds", "total_seconds", "ready", "records_per_sec",
				"mb_per_sec", "poll_wait", "batch_write", "rocksdb", "disk_bytes", "limits", "peak_rss_bytes", "cpu_seconds"} {
				if _, ok := rec[moved]; ok {
					t.Errorf("%s: restores[%d] written with the flat %s", path, i, moved)
				}
			}
		}
		again, err := Load(out)
		if err != nil {
			t.Fatalf("%s: written, then: %v", path, err)
		}
		if !reflect.DeepEqual(again.Restores, r.Restores) {
			for i := range r.Restores {
				if !reflect.DeepEqual(again.Restores[i], r.Restores[i]) {
					t.Fatalf("%s: restores[%d] changed on the round trip:\n was %+v\n now %+v", path, i, r.Restores[i], again.Restores[i])
				}
			}
		}
	}
}
