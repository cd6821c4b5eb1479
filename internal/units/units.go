// Package units formats sizes, rates and durations for people: the shared
// formatter of each unit, so the outputs that use it show a size or a time
// the same way. Not every output does yet: some packages still write a
// size, rate or duration with a format of their own (issue 53); new output
// uses these. Sizes are decimal (1 MB = 10^6 bytes), as everywhere in
// restorebench.
//
// Bytes, Rate and Seconds are the style of the plan, the report and the
// capacity answers. Two outputs keep a style of their own, which their
// users and tests read: the fill's progress lines (BytesTenths) and the
// warmup model's terminal summary (BytesTenthsMBGB, SecondsTerse). They are
// named for that style here rather than written again where they are used;
// moving them onto Bytes and Seconds would change those outputs.
package units

import (
	"fmt"
	"math"
	"time"
)

// Bytes formats a size with three significant digits: "512 MB", "1.02 GB".
func Bytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for math.Abs(b) >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	return Sig3(b) + " " + units[i]
}

// Rate formats bytes per second as MB/s with three significant digits:
// "118 MB/s".
func Rate(bytesPerSec float64) string { return Sig3(bytesPerSec/1e6) + " MB/s" }

// Seconds formats a duration in seconds with three significant digits:
// "0.912 s", "41.2 s", "12.5 min", "1.50 h".
func Seconds(s float64) string {
	switch {
	case math.Abs(s) >= 3600:
		return Sig3(s/3600) + " h"
	case math.Abs(s) >= 120:
		return Sig3(s/60) + " min"
	}
	return Sig3(s) + " s"
}

// RTO formats an objective as a user writes it: "1 min", "90 s", "1 h".
func RTO(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return fmt.Sprintf("%g s", d.Seconds())
}

// Sig3 prints x with three significant digits and no exponent.
func Sig3(x float64) string {
	switch a := math.Abs(x); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 10:
		return fmt.Sprintf("%.1f", x)
	case a >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

// BytesTenths formats a size with one decimal, the style of the fill's
// progress lines: "999 B", "1.5 kB", "20.0 GB".
func BytesTenths(b int64) string {
	const unit = 1000
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(b)/float64(div), "kMGTPE"[exp])
}

// BytesTenthsMBGB formats a size with one decimal in MB or GB only, the
// style of the warmup model's summary: "20.0 GB", "5000.0 GB", "25.0 MB",
// and a size under 1 MB in bytes: "500000 bytes".
func BytesTenthsMBGB(b float64) string {
	switch {
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
	return fmt.Sprintf("%.0f bytes", b)
}

// SecondsTerse formats a duration the warmup model's summary's way:
// "42.3s", "12m 5s", "14h 10m"; "never" for an infinite or undefined one.
func SecondsTerse(s float64) string {
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return "never"
	}
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", s)
	case d < time.Hour:
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
}
