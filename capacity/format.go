package capacity

import (
	"fmt"
	"math"
	"time"
)

// FormatBytes formats a size in decimal units (1 MB = 10^6 bytes, as everywhere
// in restorebench) with three significant digits: "512 MB", "1.02 GB".
func FormatBytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for math.Abs(b) >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	return sig3(b) + " " + units[i]
}

// FormatRate formats bytes per second as MB/s: "118 MB/s".
func FormatRate(bytesPerSec float64) string { return sig3(bytesPerSec/1e6) + " MB/s" }

// FormatSeconds formats a duration in seconds: "0.912 s", "41.2 s", "12.5 min".
func FormatSeconds(s float64) string {
	switch {
	case math.Abs(s) >= 3600:
		return sig3(s/3600) + " h"
	case math.Abs(s) >= 120:
		return sig3(s/60) + " min"
	}
	return sig3(s) + " s"
}

// FormatRTO formats an objective as a user writes it: "1 min", "90 s", "1 h".
func FormatRTO(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return fmt.Sprintf("%g s", d.Seconds())
}

// sig3 prints x with three significant digits and no exponent.
func sig3(x float64) string {
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

// Plural counts n things: "1 thread", "4 threads".
func Plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
