package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restorebench/restorebench/capacity/capacitytest"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/plots"
	rpt "github.com/restorebench/restorebench/report"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// pairedResults is a run of one setting on both engines, two repeats each,
// with kafka-streams records shaped as the engine writes them (no batch
// histograms, RocksDB figures or ready phase).
func pairedResults() *runs.Results {
	res := &runs.Results{SchemaVersion: runs.SchemaVersion, RunID: "cal", Complete: true, StartedAt: time.Now()}
	for rep := 1; rep <= 2; rep++ {
		for _, e := range []config.Engine{config.EngineModel, config.EngineKafkaStreams} {
			c := config.DefaultCase()
			c.Engine, c.Name = e, "t1-"+string(e)
			secs := 8.0 + float64(rep)
			r := runs.Restore{Case: c.Name, Step: &runs.Step{Case: c.Name, Kind: runs.StepRestore}, Repeat: rep, Params: c,
				Phase:   &runs.RestorePhase{Seconds: secs, TotalSeconds: secs, MBPerSec: 0.5 / secs, RecordsPerSec: 1000 / secs, PeakRSSBytes: 300 << 20},
				Records: 1000, Bytes: 500_000, Verified: true,
				Verification: verify.Result{Mode: verify.ModeExpectedState, Partitions: []verify.PartitionCheck{{ExpectedKeys: 100, ActualKeys: 100, OK: true}}},
				Series:       []measure.Point{{T: 1, Records: 500, Bytes: 250_000}, {T: secs, Records: 500, Bytes: 250_000}}}
			if e == config.EngineKafkaStreams {
				r.Phase.Seconds, r.Phase.TotalSeconds = secs*1.25, secs*1.25
				r.Phase.MBPerSec, r.Phase.RecordsPerSec = 0.5/(secs*1.25), 1000/(secs*1.25)
				r.KafkaStreams = &runs.KafkaStreamsRun{Version: "4.4.0", Instances: 1, BytesFrom: "changelog"}
			}
			res.Restores = append(res.Restores, r)
		}
	}
	return res
}

func TestCalibrationCommandPrintsRatioPerSetting(t *testing.T) {
	dir := t.TempDir()
	if err := pairedResults().Save(filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	cmd := newCalibrationCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{dir})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"default", "0.800", "0.800..0.800", "model/KS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	var printed bytes.Buffer
	printCalibration(&printed, pairedResults())
	if !strings.Contains(printed.String(), "model vs kafka-streams") {
		t.Fatalf("printCalibration:\n%s", printed.String())
	}
}

// Records of the kafka-streams engine summarize and plot like the model's.
func TestKafkaStreamsRecordsSummarizeAndPlot(t *testing.T) {
	res := pairedResults()
	var out bytes.Buffer
	rpt.PrintSummary(&out, res, "results.json")
	if !strings.Contains(out.String(), "t1-kafka-streams") || !strings.Contains(out.String(), "2/2") {
		t.Fatalf("summary:\n%s", out.String())
	}
	dir := t.TempDir()
	files, err := plots.WriteAll(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no plots")
	}
	if st, err := os.Stat(filepath.Join(dir, "restore-throughput.png")); err != nil || st.Size() < 1000 {
		t.Fatalf("throughput plot: %v", err)
	}
}

// TestCalibrationAcrossRunsFitsTheFactorAgainstSize: runs at four sizes,
// each both engines, and the same at a second key order, give the factor
// table a row per size and shape and a fit per shape.
func TestCalibrationAcrossRunsFitsTheFactorAgainstSize(t *testing.T) {
	var rs []*runs.Results
	for _, order := range []loadgen.KeyOrder{loadgen.KeysUniform, loadgen.KeysZipf} {
		for _, size := range capacitytest.Sizes {
			res := capacitytest.Run(len(rs), size, []capacitytest.Case{capacitytest.Cases[0], capacitytest.KafkaStreams(2, 90e6)})
			res.Fill.Spec.KeyOrder = order
			rs = append(rs, res)
		}
	}
	dirs, err := capacitytest.Write(t.TempDir(), rs)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := cli(t, append([]string{"calibration"}, dirs...)...)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "default ") && strings.Contains(line, "keys=") {
			rows++
		}
	}
	for _, want := range []string{"R8 = ", "factor against size", "size a thread", "keys=uniform", "keys=zipf", "128 MB", "1.00 GB",
		"fit: default on partitions=4 keys=uniform", "fit: default on partitions=4 keys=zipf", "through the medians of 16 pairs at 4 sizes", "largest residual"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if rows != 8 {
		t.Errorf("%d factor rows, want 4 sizes x 2 shapes:\n%s", rows, out)
	}
	if _, _, err := cli(t, "calibration", dirs[0], dirs[0]); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a run given twice: %v", err)
	}
}
