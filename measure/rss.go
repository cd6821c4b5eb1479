package measure

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ResetPeakRSS resets the kernel's peak-RSS mark (VmHWM) for this process, so
// PeakRSS afterwards reports the peak of the work that follows. It returns
// false where the kernel does not allow it (then PeakRSS is the process peak).
func ResetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// PeakRSS returns the process's peak resident set size in bytes (VmHWM), or 0
// where /proc is not available.
func PeakRSS() int64 { return procStatusBytes("VmHWM:") }

// CurrentRSS returns the process's resident set size in bytes (VmRSS).
func CurrentRSS() int64 { return procStatusBytes("VmRSS:") }

func procStatusBytes(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, field) {
			continue
		}
		fields := strings.Fields(line[len(field):])
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// CPUTime returns the CPU time (user plus system) this process has used so
// far, over all its threads: Go, RocksDB's background threads and, on the
// embedded broker, the broker too.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
