package capacity

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/restorebench/restorebench/internal/units"
)

// FormatBytes formats a size in decimal units with three significant
// digits: "512 MB", "1.02 GB" (units.Bytes).
func FormatBytes(b float64) string { return units.Bytes(b) }

// FormatRate formats bytes per second as MB/s: "118 MB/s" (units.Rate).
func FormatRate(bytesPerSec float64) string { return units.Rate(bytesPerSec) }

// FormatSeconds formats a duration in seconds: "0.912 s", "41.2 s",
// "12.5 min" (units.Seconds).
func FormatSeconds(s float64) string { return units.Seconds(s) }

// FormatRTO formats an objective as a user writes it: "1 min", "90 s",
// "1 h" (units.RTO).
func FormatRTO(d time.Duration) string { return units.RTO(d) }

// Plural counts n things: "1 thread", "4 threads".
func Plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// FormatPartitions writes partitions as a user writes them: "3, 17".
func FormatPartitions(ps []int32) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ", ")
}

// NamePartitions is "partition 3" for one partition, "partitions 3, 17"
// for more (FormatPartitions).
func NamePartitions(ps []int32) string {
	if len(ps) == 1 {
		return "partition " + FormatPartitions(ps)
	}
	return "partitions " + FormatPartitions(ps)
}
