package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/restorebench/restorebench/metrics"
	"github.com/restorebench/restorebench/runs"
)

// scrapeMetrics GETs a --metrics-addr endpoint and parses it with
// Prometheus' own text parser; nil when nothing answers.
func scrapeMetrics(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// metricValue is the value of name's series whose labels include want
// (name, value, ...); ok false when there is none.
func metricValue(mfs map[string]*dto.MetricFamily, name string, want ...string) (float64, bool) {
series:
	for _, m := range mfs[name].GetMetric() {
		for i := 0; i+1 < len(want); i += 2 {
			found := false
			for _, l := range m.GetLabel() {
				found = found || l.GetName() == want[i] && l.GetValue() == want[i+1]
			}
			if !found {
				continue series
			}
		}
		if m.Counter != nil {
			return m.Counter.GetValue(), true
		}
		return m.Gauge.GetValue(), true
	}
	return 0, false
}

// TestRunServesLiveMetrics runs a small profile on the embedded broker
// with --metrics-addr, scrapes the endpoint while it runs until it has
// seen a restore's records rise, and checks the final figures against
// results.json: the records restored are the verified restores' records,
// the fill's records and bytes the fill's. The server stops with the run.
func TestRunServesLiveMetrics(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	url := "http://" + addr + metrics.Path
	var watch *metrics.Run
	onRunMetrics = func(r *metrics.Run) { watch = r }
	defer func() { onRunMetrics = nil }()

	t.Chdir(t.TempDir())
	p, _ := filepath.Abs("small.yaml")
	os.WriteFile(p, []byte("name: small\nrepeats: 2\nfill: {records: 150000, keys: 20000, value_size: 100-200, partitions: 2}\n"+
		"restore: {batch_records: 200}\ncases:\n  - name: a\n"), 0o644)
	out, _ := filepath.Abs("run")
	type result struct {
		stderr string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		_, stderr, err := cliCtx(ctx, "run", p, "--out", out, "--no-plots", "--metrics-addr", addr)
		done <- result{stderr, err}
	}()

	// While it runs: the restore's records as the scrapes see them.
	var rising []float64
	phases := map[string]bool{}
	var res result
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
scraping:
	for {
		select {
		case res = <-done:
			break scraping
		case <-tick.C:
		}
		mfs, err := scrapeMetrics(url)
		if err != nil {
			continue // not up yet, or gone
		}
		for _, ph := range metrics.Phases {
			if v, _ := metricValue(mfs, "restorebench_phase", "phase", ph); v == 1 {
				phases[ph] = true
			}
		}
		n, _ := metricValue(mfs, "restorebench_restore_records")
		target, _ := metricValue(mfs, "restorebench_restore_target_records")
		remaining, _ := metricValue(mfs, "restorebench_restore_remaining_records")
		if n > 0 && n < target {
			if remaining != target-n {
				t.Errorf("remaining %v of %v restored of %v", remaining, n, target)
			}
			if len(rising) == 0 || n != rising[len(rising)-1] {
				rising = append(rising, n)
			}
		}
	}
	if res.err != nil {
		t.Fatalf("run: %v\n%s", res.err, res.stderr)
	}
	if !strings.Contains(res.stderr, "metrics: serving http://"+addr+metrics.Path) {
		t.Errorf("the run does not say where it serves metrics:\n%s", res.stderr)
	}
	rises := 0
	for i := 1; i < len(rising); i++ {
		if rising[i] > rising[i-1] {
			rises++
		}
	}
	if rises == 0 {
		t.Errorf("no restore seen rising (mid-restore figures %v; phases seen %v)", rising, phases)
	}
	if !phases[metrics.PhaseRestore] {
		t.Errorf("phases seen %v, no restore", phases)
	}
	t.Logf("%d mid-restore figures seen, %d of them rising; phases seen: %v", len(rising), rises, phases)
	if _, err := http.Get(url); err == nil {
		t.Errorf("still served after the run")
	}

	// The final figures, from the registry the server served.
	got, err := watch.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	final := map[string]*dto.MetricFamily{}
	for _, mf := range got {
		final[mf.GetName()] = mf
	}
	r, err := runs.Load(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var verified int64
	n := 0
	for _, rec := range r.Restores {
		if rec.Verified {
			verified += rec.Records
			n++
		}
	}
	if n != 2 || r.Fill == nil || r.Fill.Reused {
		t.Fatalf("results: %d verified restores, fill %+v", n, r.Fill)
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"restorebench_restored_records_total", nil, float64(verified)},
		{"restorebench_restores_total", nil, 2},
		{"restorebench_cases_started_total", nil, 2},
		{"restorebench_restore_remaining_records", nil, 0},
		{"restorebench_fill_written_records_total", nil, float64(r.Fill.Records)},
		{"restorebench_fill_written_bytes_total", nil, float64(r.Fill.Bytes)},
		{"restorebench_phase", []string{"phase", metrics.PhaseDone}, 1},
		{"restorebench_case_info", []string{"case", "a", "repeat", "2"}, 1},
		{"restorebench_run_info", []string{"run_id", r.RunID, "profile", "small"}, 1},
	} {
		if v, ok := metricValue(final, c.name, c.labels...); !ok || v != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, v, ok, c.want)
		}
	}
}

// TestBadMetricsAddrStopsTheRunBeforeItStarts: a --metrics-addr that does
// not parse, or whose port is taken, is one error naming the flag, and
// nothing is filled or written.
func TestBadMetricsAddrStopsTheRunBeforeItStarts(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for addr, want := range map[string]string{
		"9464":               "not host:port",
		"127.0.0.1:":         "names no port",
		busy.Addr().String(): "address already in use",
	} {
		_, stderr, err := cli(t, "run", "quick", "--metrics-addr", addr)
		wantErr(t, "run --metrics-addr "+addr, err, "--metrics-addr", want)
		if strings.Contains(stderr, "broker:") || strings.Contains(stderr, "fill:") {
			t.Errorf("--metrics-addr %s: the run started:\n%s", addr, stderr)
		}
		if _, err := os.Stat("results"); err == nil {
			t.Errorf("--metrics-addr %s: results written", addr)
		}
	}
	_, _, err = cli(t, "agent", "--brokers", "127.0.0.1:1", "--name", "a", "--state-dir", t.TempDir(), "--insecure", "--metrics-addr", "nope")
	wantErr(t, "agent --metrics-addr nope", err, "--metrics-addr", "not host:port")
}
