package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
)

// savedRun is a run saved under testdata/results, as an absolute path (cli
// runs in a temporary directory).
func savedRun(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "results", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// decodeDoc decodes a JSON document for a script would: into generic maps,
// failing unless it names schema and no key anywhere has an upper-case
// letter (a Go field name left unnamed).
func decodeDoc(t *testing.T, out, schema string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc["schema"] != schema {
		t.Errorf("schema %v, want %q", doc["schema"], schema)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if strings.IndexFunc(k, unicode.IsUpper) >= 0 || strings.ContainsAny(k, " -") {
					t.Errorf("key %s.%s is not snake_case", path, k)
				}
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	walk("", doc)
	return doc
}

// TestPlanJSONForScripts: plan --format json on a saved run gives each
// answer a stable id and its figure as a number with its unit, beside the
// sentence the text shows; the checks in seconds; the rate in numbers;
// and snake_case keys throughout, under a versioned schema.
func TestPlanJSONForScripts(t *testing.T) {
	args := []string{"plan", "--from", savedRun(t, "capacity"), "--state", "50GB", "--partitions", "16", "--instances", "4",
		"--standbys", "1", "--rto", "2m"}
	text, _, _ := cli(t, args...)
	out, _, _ := cli(t, append(args, "--format", "json")...)
	doc := decodeDoc(t, out, "restorebench.plan/v1")
	answers, _ := doc["answers"].([]any)
	if len(answers) == 0 {
		t.Fatalf("no answers:\n%s", out)
	}
	byID := map[string]map[string]any{}
	for _, x := range answers {
		a := x.(map[string]any)
		id, _ := a["id"].(string)
		if id == "" {
			t.Errorf("answer %q has no id", a["question"])
		}
		byID[id] = a
		if !strings.Contains(text, a["question"].(string)+"\n  = "+a["text"].(string)) {
			t.Errorf("%s: %q = %q is not the text's", id, a["question"], a["text"])
		}
		if id == "standby_needed" || id == "standby_keeps_up" { // a verdict per objective, a yes or no: no one figure
			continue
		}
		if _, ok := a["value"].(float64); !ok || a["unit"] == "" {
			t.Errorf("%s: value %v unit %v, want a number and its unit", id, a["value"], a["unit"])
		}
	}
	for id, unit := range map[string]string{"cold_restore_rate": "bytes_per_second", "largest_task_within_rto": "bytes",
		"partitions_needed": "count", "cold_restore_task": "seconds", "cold_restore_instance": "seconds",
		"instances_needed": "count", "disk_per_instance": "bytes", "recovery_without_standby": "seconds", "standby_needed": ""} {
		a := byID[id]
		if a == nil {
			t.Errorf("no answer %s", id)
			continue
		}
		if a["unit"] != unit {
			t.Errorf("%s: unit %v, want %q", id, a["unit"], unit)
		}
	}
	inst := byID["cold_restore_instance"]
	if v, lo, hi := inst["value"].(float64), inst["interval_low"].(float64), inst["interval_high"].(float64); !(lo < v && v < hi) ||
		inst["beyond_factor"].(float64) <= 1 || inst["extrapolated"] != true {
		t.Errorf("cold_restore_instance: %v", inst)
	}
	checks := inst["checks"].([]any)
	c := checks[0].(map[string]any)
	if len(checks) != 1 || c["rto_seconds"] != 120.0 || c["margin_seconds"] == nil || !strings.Contains(text, c["text"].(string)) {
		t.Errorf("cold_restore_instance's checks: %v", checks)
	}
	if p := byID["partitions_needed"]; p["rto_seconds"] != 120.0 || !strings.Contains(p["text"].(string), "at least") {
		t.Errorf("partitions_needed: %v", p)
	}
	rate := doc["rate"].(map[string]any)
	if r, ok := rate["bytes_per_second_per_thread"].(float64); !ok || r != byID["cold_restore_rate"]["value"] {
		t.Errorf("rate %v", rate)
	}
	if _, ok := rate["overhead_seconds"].(float64); !ok {
		t.Errorf("rate %v: no overhead_seconds", rate)
	}
	if u := doc["unanswered"].([]any); len(u) != 1 || u[0].(map[string]any)["reason"] == "" {
		t.Errorf("unanswered %v", u)
	}
}

// TestSummaryJSONForScripts: summary --format json on a saved run gives
// each cold case's figures as numbers with their units in their names,
// under a versioned schema, and snake_case keys throughout.
func TestSummaryJSONForScripts(t *testing.T) {
	out, _, err := cli(t, "summary", savedRun(t, "quick"), "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeDoc(t, out, "restorebench.summary/v1")
	cases, _ := doc["cases"].([]any)
	if len(cases) == 0 || doc["run_id"] == "" {
		t.Fatalf("no cases:\n%s", out)
	}
	for _, x := range cases {
		c := x.(map[string]any)
		if c["verified"].(float64) == 0 {
			continue
		}
		lo, med, hi := c["min_restore_seconds"].(float64), c["median_restore_seconds"].(float64), c["max_restore_seconds"].(float64)
		if !(0 < lo && lo <= med && med <= hi) || c["median_records_per_second"].(float64) <= 0 || c["median_mb_per_second"].(float64) <= 0 {
			t.Errorf("case %v: %v", c["case"], c)
		}
	}
}

// TestCompareJSONForScripts: compare --format json, of one run's cases and
// of two runs, gives each metric's figures on both sides as numbers with
// the metric's unit, the change and the verdict as an id beside its words,
// under a versioned schema, and snake_case keys throughout.
func TestCompareJSONForScripts(t *testing.T) {
	for _, args := range [][]string{{savedRun(t, "quick")}, {savedRun(t, "quick"), savedRun(t, "capacity")}} {
		out, _, err := cli(t, append([]string{"compare", "--format", "json"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		doc := decodeDoc(t, out, "restorebench.compare/v1")
		rows, _ := doc["rows"].([]any)
		if len(rows) == 0 {
			t.Fatalf("%v: no rows:\n%s", args, out)
		}
		numbers := 0
		for _, x := range rows {
			for _, y := range x.(map[string]any)["metrics"].([]any) {
				m := y.(map[string]any)
				if m["unit"] == "" || m["verdict"] == "" || m["text"] == "" {
					t.Errorf("%v: metric %v", args, m)
				}
				for _, side := range []string{"base", "other"} {
					s := m[side].(map[string]any)
					_, ok := s["median"].(float64)
					if ok != (s["n"].(float64) > 0) {
						t.Errorf("%v: %s of %v: median %v over n %v", args, side, m["metric"], s["median"], s["n"])
					}
					if ok {
						numbers++
					}
				}
			}
		}
		if numbers == 0 {
			t.Errorf("%v: no figure on either side:\n%s", args, out)
		}
	}
	_, _, err := cli(t, "compare", "--format", "yaml", savedRun(t, "quick"))
	wantErr(t, "--format yaml", err, "--format", "json")
}

// TestPlanJSONRestoreCost: with runs of several record sizes and the
// deployment's record size, the rate comes from a restore cost, and the
// JSON gives its terms in seconds a restore, a record, a byte and an
// overwrite, close to those the runs were made with, and a row per shape.
func TestPlanJSONRestoreCost(t *testing.T) {
	cost := capacitytest.ShapeCost{Fixed: 0.8, PerRecord: 2e-6, PerByte: 5e-9, PerOverwrite: 1e-6}
	paths := writeRawRuns(t, capacitytest.ShapeRuns(config.EngineKafkaStreams, cost, 1_000_000, capacitytest.ShapeSweep))
	args := append([]string{"plan", "--state", "10GB", "--partitions", "8", "--record-bytes", "40", "--records-per-key", "2",
		"--rto", "2m", "--format", "json"}, paths...)
	out, _, _ := cli(t, args...)
	doc := decodeDoc(t, out, "restorebench.plan/v1")
	rate, _ := doc["rate"].(map[string]any)
	c, _ := rate["cost"].(map[string]any)
	if c == nil {
		t.Fatalf("no restore cost:\n%s", out)
	}
	for k, want := range map[string]float64{"fixed_seconds": cost.Fixed, "seconds_per_record": cost.PerRecord,
		"seconds_per_byte": cost.PerByte, "seconds_per_overwrite": cost.PerOverwrite} {
		if got, ok := c[k].(float64); !ok || math.Abs(got-want) > 0.1*want {
			t.Errorf("%s %v, want about %v", k, c[k], want)
		}
	}
	if shapes, _ := c["shapes"].([]any); len(shapes) != len(capacitytest.ShapeSweep) {
		t.Errorf("%d shape rows, want %d", len(shapes), len(capacitytest.ShapeSweep))
	}
	if rate["record_bytes"] != 40.0 || rate["records_per_key"] != 2.0 || rate["records_per_key_assumed"] != false {
		t.Errorf("rate evaluated at %v B a record, %v records a key (assumed %v)", rate["record_bytes"], rate["records_per_key"], rate["records_per_key_assumed"])
	}
}

// TestPlanHotShare: over a sweep whose skewed shapes restore faster, the
// plan's JSON gives the cost a hot record, evaluates it at --hot-share
// (not assumed) or, without one, at the slower end measured (assumed), and
// refuses a share outside 0 to 1.
func TestPlanHotShare(t *testing.T) {
	cost := capacitytest.ShapeCost{Fixed: 0.8, PerRecord: 2e-6, PerByte: 5e-9, PerOverwrite: 1e-6, PerHot: 1.2e-6}
	shapes := []capacitytest.Shape{{ValueBytes: 8, RecordsPerKey: 20, HotShare: 0.45}, {ValueBytes: 64, RecordsPerKey: 20, HotShare: 0.45}}
	for _, sh := range capacitytest.ShapeSweep {
		sh.HotShare = 0.02
		shapes = append(shapes, sh)
	}
	paths := writeRawRuns(t, capacitytest.ShapeRuns(config.EngineKafkaStreams, cost, 1_000_000, shapes))
	plan := func(extra ...string) map[string]any {
		args := append([]string{"plan", "--state", "10GB", "--partitions", "8", "--record-bytes", "16", "--records-per-key", "20",
			"--rto", "2m", "--format", "json"}, extra...)
		out, _, _ := cli(t, append(args, paths...)...)
		rate, _ := decodeDoc(t, out, "restorebench.plan/v1")["rate"].(map[string]any)
		if rate == nil {
			t.Fatalf("no rate:\n%s", out)
		}
		return rate
	}
	given, assumed := plan("--hot-share", "0.45"), plan()
	c, _ := given["cost"].(map[string]any)
	if got, ok := c["seconds_per_hot_record"].(float64); !ok || math.Abs(got-1.2e-6) > 0.12e-6 {
		t.Errorf("seconds a hot record %v, want about 1.2e-6", c["seconds_per_hot_record"])
	}
	if given["hot_share"] != 0.45 || given["hot_share_assumed"] == true || assumed["hot_share"] != 0.02 || assumed["hot_share_assumed"] != true {
		t.Errorf("hot share %v (assumed %v) with --hot-share 0.45; %v (assumed %v) without", given["hot_share"], given["hot_share_assumed"],
			assumed["hot_share"], assumed["hot_share_assumed"])
	}
	if g, a := given["bytes_per_second_per_thread"].(float64), assumed["bytes_per_second_per_thread"].(float64); !(g > 1.1*a) {
		t.Errorf("%.0f B/s at 45%% hot, %.0f B/s at 2%%: skewed keys restore faster", g, a)
	}
	_, _, err := cli(t, append([]string{"plan", "--state", "10GB", "--hot-share", "1.5"}, paths...)...)
	wantErr(t, "--hot-share 1.5", err, "--hot-share", "from 0 to 1")
}
