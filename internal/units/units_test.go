package units

import (
	"math"
	"testing"
	"time"
)

// TestStyles pins each output's style: the plan and report's three
// significant digits, the fill's and the warmup summary's one decimal,
// the warmup summary's terse times.
func TestStyles(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Bytes(0), "0 B"},
		{Bytes(512e6), "512 MB"},
		{Bytes(1.024e9), "1.02 GB"},
		{Bytes(20e9), "20.0 GB"},
		{Bytes(3e18), "3000 PB"},
		{Rate(118.4e6), "118 MB/s"},
		{Seconds(0.9123), "0.912 s"},
		{Seconds(41.23), "41.2 s"},
		{Seconds(750), "12.5 min"},
		{Seconds(5400), "1.50 h"},
		{RTO(time.Minute), "1 min"},
		{RTO(90 * time.Second), "90 s"},
		{RTO(time.Hour), "1 h"},
		{BytesTenths(999), "999 B"},
		{BytesTenths(1500), "1.5 kB"},
		{BytesTenths(20e9), "20.0 GB"},
		{BytesTenths(math.MaxInt64), "9.2 EB"},
		{BytesTenthsMBGB(20e9), "20.0 GB"},
		{BytesTenthsMBGB(5e12), "5000.0 GB"},
		{BytesTenthsMBGB(25e6), "25.0 MB"},
		{BytesTenthsMBGB(500e3), "500000 bytes"},
		{SecondsTerse(42.34), "42.3s"},
		{SecondsTerse(725), "12m 5s"},
		{SecondsTerse(51000), "14h 10m"},
		{SecondsTerse(math.Inf(1)), "never"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
