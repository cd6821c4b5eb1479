package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium finds Debian's chromium. Without it the test skips, except
// under CI=true, where a missing browser is a failure (the Makefile
// installs it).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (apt-get install chromium); CI=true requires the browser test")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// screenshotDir is where the browser test keeps its screenshot:
// $RESTOREBENCH_TEST_OUT, else testdata/out (git-ignored).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("RESTOREBENCH_TEST_OUT")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
	return abs
}

// chartCheck is what the page reports for one figure once laid out.
type chartCheck struct {
	Name   string  `json:"name"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Marks counts drawn SVG elements (paths, text) inside the chart.
	Marks int `json:"marks"`
}

// checkCharts is evaluated in the page: every figure's SVG, its rendered
// size and how many marks it drew.
const checkCharts = `JSON.stringify(Array.from(document.querySelectorAll('figure.chart')).map(f => {
  const s = f.querySelector('svg'); const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
  return {name: f.dataset.chart, width: r.width, height: r.height, marks: s ? s.querySelectorAll('path,text').length : 0};
}))`

// TestReportRendersInChromium opens report.html in headless Chromium: every
// chart must render at a readable size with its marks drawn, with no console
// message, exception or error log (a blocked load would log one), and a
// full-page screenshot is kept for a human to look at.
func TestReportRendersInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	d := build(t, deployment)
	if _, err := Write(dir, d); err != nil {
		t.Fatal(err)
	}
	b, charts := openPage(t, bin, filepath.Join(dir, HTMLFile))
	defer b.close()

	want := d.Figures()
	if len(charts) != len(want) {
		t.Errorf("page shows %d charts, the report has %d", len(charts), len(want))
	}
	for i, c := range charts {
		if i < len(want) && c.Name != want[i].Name {
			t.Errorf("chart %d is %q, want %q", i, c.Name, want[i].Name)
		}
		if c.Width < 600 || c.Height < 300 || c.Marks < 20 {
			t.Errorf("chart %s rendered %.0f×%.0f px with %d marks: not drawn", c.Name, c.Width, c.Height, c.Marks)
		}
	}
	for _, msg := range consoleProblems(b.events) {
		t.Errorf("browser reported: %s", msg)
	}
	path := filepath.Join(screenshotDir(t), "report.png")
	saveScreenshot(t, b, pageWidth, path)
	t.Logf("screenshot of report.html (%d charts): %s", len(charts), path)
}

// pageWidth is the CSS width the page is laid out and captured at.
const pageWidth = 1200

// openPage loads the HTML file in a fresh headless Chromium, waits for it
// to load and settle, and returns the browser (with every event so far)
// and the charts as laid out.
func openPage(t *testing.T, bin, path string) (*browser, []chartCheck) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	b, err := startBrowser(ctx, bin, filepath.Join(t.TempDir(), "profile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"Page.enable", nil}, {"Runtime.enable", nil}, {"Log.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": pageWidth, "height": 900, "deviceScaleFactor": 1, "mobile": false}},
		{"Page.navigate", map[string]any{"url": "file://" + path}},
	} {
		if _, err := b.call(c.method, orEmpty(c.params), 10*time.Second); err != nil {
			b.close()
			t.Fatal(err)
		}
	}
	if err := b.waitEvent("Page.loadEventFired", 20*time.Second); err != nil {
		b.close()
		t.Fatal(err)
	}
	charts := evaluateCharts(t, b)
	b.drain(500 * time.Millisecond)
	return b, charts
}

// TestBrowserCheckCatchesProblems makes sure the rendering test can fail:
// a page in the report's own head that tries to load an image and run a
// script must produce reported problems (the policy blocks both and says so).
func TestBrowserCheckCatchesProblems(t *testing.T) {
	bin := chromium(t)
	path := filepath.Join(t.TempDir(), "bad.html")
	head := render(t, func(w *bytes.Buffer) error { return NewHTMLReporter(&Document{Title: "bad"})(w) })
	page := strings.Replace(head, "</main>", `<img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script></main>`, 1)
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	b, charts := openPage(t, bin, path)
	defer b.close()
	if len(charts) != 0 {
		t.Errorf("found %d charts on a page without any", len(charts))
	}
	if problems := consoleProblems(b.events); len(problems) == 0 {
		t.Error("a blocked image and a blocked script were not reported: the browser check would miss real problems")
	} else {
		t.Logf("reported as expected: %s", strings.Join(problems, " | "))
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func evaluateCharts(t *testing.T, b *browser) []chartCheck {
	t.Helper()
	res, err := b.call("Runtime.evaluate", map[string]any{"expression": checkCharts, "returnByValue": true}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails *json.RawMessage `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatal(err)
	}
	if out.ExceptionDetails != nil {
		t.Fatalf("evaluating the chart check: %s", *out.ExceptionDetails)
	}
	var charts []chartCheck
	if err := json.Unmarshal([]byte(out.Result.Value), &charts); err != nil {
		t.Fatalf("chart check returned %q: %v", out.Result.Value, err)
	}
	return charts
}

// consoleProblems are the console calls, uncaught exceptions and warning
// or error log entries among events. A page without scripts has none.
func consoleProblems(events []cdpEvent) []string {
	var out []string
	for _, e := range events {
		switch e.Method {
		case "Runtime.consoleAPICalled":
			out = append(out, "console: "+string(e.Params))
		case "Runtime.exceptionThrown":
			out = append(out, "exception: "+string(e.Params))
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Source, Text, URL string }
			}
			json.Unmarshal(e.Params, &p)
			if p.Entry.Level == "error" || p.Entry.Level == "warning" {
				out = append(out, strings.TrimSpace(p.Entry.Level+" ("+p.Entry.Source+"): "+p.Entry.Text+" "+p.Entry.URL))
			}
		}
	}
	return out
}

// saveScreenshot captures the whole page, width px wide, as PNG at path.
func saveScreenshot(t *testing.T, b *browser, width int, path string) {
	t.Helper()
	res, err := b.call("Page.getLayoutMetrics", map[string]any{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		CSSContentSize struct{ Height float64 } `json:"cssContentSize"`
	}
	if err := json.Unmarshal(res, &m); err != nil {
		t.Fatal(err)
	}
	res, err = b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": m.CSSContentSize.Height, "scale": 1}}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var shot struct{ Data string }
	if err := json.Unmarshal(res, &shot); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
