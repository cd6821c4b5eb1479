package compare

import (
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/internal/errwriter"
	"github.com/restorebench/restorebench/runs"
)

// BenchfmtPkg is the pkg: configuration line WriteBenchfmt writes.
const BenchfmtPkg = "github.com/restorebench/restorebench"

// benchfmtUnits are the unit metadata lines: which direction is better for
// the custom units (ns/op and MB/s are known to benchstat).
var benchfmtUnits = []string{
	"Unit records/s better=higher",
	"Unit ready-ns/op better=lower",
	"Unit peak-RSS-B better=lower",
	"Unit efficiency better=higher",
}

// WriteBenchfmt writes r's verified, error-free restores in the Go benchmark
// format (golang.org/design/14313-benchmark-format), one line per repeat so
// benchstat sees the distribution:
//
//	BenchmarkRestore/case=<case>/strategy=<s>/threads=<t>/batch=<b> 1 <ns> ns/op <MB/s> MB/s <rec/s> records/s \
//		[<ns> ready-ns/op] [<bytes> peak-RSS-B] [<ratio> efficiency]
//
// (one line: the backslash and the break are not written)
//
// ns/op is the record's own seconds (runs.Restore.Measured): a restore's
// phase, a standby step's applying, or the gap of a scenario measured by
// one (a failover kill's longest gap, a scale-out's assignment time, a
// rolling restart's downtime, whose MB/s and records/s are 0: they are not
// restores); ready-ns/op is the time to ready (runs.Restore.TimeToReady),
// written only when the ready phase was measured; peak-RSS-B only when
// recorded; efficiency only with limits. Before them come goos:, goarch: and pkg: configuration
// lines (Host has no CPU model, so there is no cpu: line), unit metadata,
// and "#" comment lines, which benchmark readers ignore, naming the run and
// the excluded restores. Case names and parameter values are made
// benchfmt-safe: characters other than ASCII letters, digits and ._+,:@~-
// become "_"; names that then collide get a hash of the original appended.
func WriteBenchfmt(w io.Writer, r *runs.Results) error {
	ew := errwriter.New(w)
	fmt.Fprintf(ew, "# restorebench run %s (tool %s, host %s, %d CPUs, %s, RocksDB %s)\n",
		benchfmtComment(r.RunID), benchfmtComment(r.ToolVersion), benchfmtComment(r.Host.Hostname),
		r.Host.CPUs, benchfmtComment(r.Host.GoVersion), benchfmtComment(r.Host.RocksDBVersion))
	if why := r.IncompleteReason(); why != "" {
		fmt.Fprintf(ew, "# run incomplete: %s\n", benchfmtComment(why))
	}
	if v := benchfmtConfigValue(r.Host.OS); v != "" {
		fmt.Fprintf(ew, "goos: %s\n", v)
	}
	if v := benchfmtConfigValue(r.Host.Arch); v != "" {
		fmt.Fprintf(ew, "goarch: %s\n", v)
	}
	fmt.Fprintf(ew, "pkg: %s\n", BenchfmtPkg)
	for _, u := range benchfmtUnits {
		fmt.Fprintln(ew, u)
	}
	names := benchfmtCaseNames(runs.CaseNames(r.Restores))
	for _, x := range r.Restores {
		if !countsForCompare(x) {
			why := "not verified"
			if x.Error != "" {
				why = "error: " + x.Error
			} else if x.Verification.Problem != "" {
				why = "not verified: " + x.Verification.Problem
			}
			fmt.Fprintf(ew, "# excluded: case %s repeat %d: %s\n", benchfmtComment(x.Case), x.Repeat, benchfmtComment(why))
			continue
		}
		fmt.Fprintln(ew, BenchfmtLine(names[x.Case], x))
	}
	return ew.Err()
}

// BenchfmtLine is one restore's benchmark line under the benchfmt-safe case
// name safeCase.
func BenchfmtLine(safeCase string, x runs.Restore) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BenchmarkRestore/case=%s/strategy=%s/threads=%d/batch=%d 1",
		safeCase, BenchfmtSafe(string(x.Params.Strategy)), max(x.Params.Threads, 0), max(x.Params.BatchRecords, 0))
	secs, mbps, rps := benchfmtFigures(x)
	fmt.Fprintf(&b, " %.0f ns/op", secs*1e9)
	fmt.Fprintf(&b, " %s MB/s", strconv.FormatFloat(mbps, 'f', -1, 64))
	fmt.Fprintf(&b, " %s records/s", strconv.FormatFloat(rps, 'f', -1, 64))
	if total, ok := x.TimeToReady(); ok && x.Ready() != nil {
		fmt.Fprintf(&b, " %.0f ready-ns/op", total*1e9)
	}
	if p := x.Phase; p != nil && p.PeakRSSBytes > 0 {
		fmt.Fprintf(&b, " %d peak-RSS-B", p.PeakRSSBytes)
	}
	if l := x.Limits(); l != nil {
		fmt.Fprintf(&b, " %s efficiency", strconv.FormatFloat(l.Efficiency, 'f', -1, 64))
	}
	return b.String()
}

// benchfmtFigures are the time of what the record measured
// (runs.Restore.Measured) and its rates: a restore's phase's, a standby
// step's applying's, none for a scenario's gap (it is not a restore);
// zero when it measured nothing.
func benchfmtFigures(x runs.Restore) (seconds, mbPerSec, recordsPerSec float64) {
	seconds, what, _ := x.Measured()
	switch what {
	case runs.MeasureRestore:
		return seconds, x.Phase.MBPerSec, x.Phase.RecordsPerSec
	case runs.MeasureFollowing:
		f := x.Standby.Following
		return seconds, f.MBPerSec, f.RecordsPerSec
	}
	return seconds, 0, 0
}

// BenchfmtSafe makes s usable inside a benchmark name part: ASCII letters,
// digits and ._+,:@~- stay, anything else (space, "/", "=", other Unicode)
// becomes "_"; an empty string becomes "_".
func BenchfmtSafe(s string) string {
	if s == "" {
		return "_"
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.ContainsRune("._+,:@~-", c):
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// benchfmtCaseNames maps case names to benchfmt-safe names that stay
// distinct: a changed name that collides with another gets "~" and a hash
// of the original name appended.
func benchfmtCaseNames(cases []string) map[string]string {
	safe := map[string]string{}
	users := map[string]int{}
	for _, c := range cases {
		safe[c] = BenchfmtSafe(c)
		users[safe[c]]++
	}
	for _, c := range cases {
		if s := safe[c]; s != c && users[s] > 1 {
			h := fnv.New32a()
			h.Write([]byte(c))
			safe[c] = fmt.Sprintf("%s~%08x", s, h.Sum32())
		}
	}
	return safe
}

// benchfmtConfigValue is a configuration value on one line.
func benchfmtConfigValue(s string) string { return oneLine(s) }

// benchfmtComment keeps a comment on one line.
func benchfmtComment(s string) string {
	if s = oneLine(s); s == "" {
		return "-"
	}
	return s
}
