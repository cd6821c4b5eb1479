package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/capacity"
)

// hostile is what a results.json anyone wrote may hold in any text field.
const hostile = "evil\x1b[31m|cell\n# injected <script>alert(1)</script> [link](http://x) *em* _u_ &amp; \"><img src=x onerror=1>"

// TestMarkdownEscapesEveryValue: a case name, run id, profile name, host
// fields and a streams value holding markup, newlines and control
// characters reach report.md and report.html only escaped: no heading,
// no raw HTML (no script, no attribute broken out of), no extra table
// cell, no escape sequence.
func TestMarkdownEscapesEveryValue(t *testing.T) {
	rs := syntheticRuns()
	for _, r := range rs {
		res := r.Results
		res.RunID = "run-" + hostile
		res.Host.Hostname, res.Host.CPUModel, res.Host.OS = "host-"+hostile, "cpu-"+hostile, "os-"+hostile
		if res.Profile != nil {
			res.Profile.Name = "profile-" + hostile
		}
		for i := range res.Restores {
			x := &res.Restores[i]
			x.Case = strings.Replace(x.Case, "kstreams-default", "kstreams-default"+hostile, 1)
			x.Params.Name = x.Case
			if x.Params.Streams == nil {
				x.Params.Streams = map[string]string{}
			}
			x.Params.Streams["x.custom"] = hostile
		}
	}
	d, err := Build(capacity.Analyze(rs, deployment))
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, func(w *bytes.Buffer) error { return NewMarkdownReporter(d)(w) })
	if !strings.Contains(md, "evil") {
		t.Fatal("the hostile values are not in the report at all: the test tests nothing")
	}
	for _, raw := range []string{"\x1b", "\n# injected", "<script>", "[link](", "*em*", "_u_", "&amp;amp"[:0] + "evil\\x1b[31m|"} {
		if raw != "" && strings.Contains(md, raw) {
			i := strings.Index(md, raw)
			t.Errorf("report.md holds %q raw: …%s…", raw, md[max(0, i-80):min(len(md), i+80)])
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "# injected") {
			t.Errorf("an injected heading: %q", line)
		}
		if strings.HasPrefix(line, "|") && strings.Contains(line, "evil") && strings.Contains(line, "|cell") && !strings.Contains(line, `\|cell`) {
			t.Errorf("a value split a table row: %q", line)
		}
	}
	if !strings.Contains(md, `evil\\x1b\[31m`) {
		t.Errorf("the escape sequence is not shown escaped")
	}
	page := render(t, func(w *bytes.Buffer) error { return NewHTMLReporter(d)(w) })
	for _, raw := range []string{"\x1b", "<script>", "<img"} {
		if i := strings.Index(page, raw); i >= 0 {
			t.Errorf("report.html holds %q raw: …%s…", raw, page[max(0, i-80):min(len(page), i+80)])
		}
	}
	// Shown as text, escaped, wherever the names appear (subtitle, facts, cells).
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&#34;&gt;&lt;img src=x onerror=1&gt;"} {
		if strings.Count(page, want) < 3 {
			t.Errorf("report.html shows %q %d times, want the hostile names shown escaped", want, strings.Count(page, want))
		}
	}
}

func TestMdText(t *testing.T) {
	for in, want := range map[string]string{
		"plain `code` and **bold**": "plain `code` and **bold**",
		"# not a heading":           `\# not a heading`,
		"1. not a list":             `1\. not a list`,
		"a\nb":                      "a<br>b",
		"`<b>`":                     "<code>&lt;b&gt;</code>",
		"x <i> & y":                 "x &lt;i&gt; &amp; y",
	} {
		if got := mdText(in, true); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}
