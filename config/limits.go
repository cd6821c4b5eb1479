package config

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Upper bounds of case settings: a value past one is a typo or an attempt
// no host can run, refused when the profile is checked rather than when a
// store or JVM fails to start (or the host runs out of memory).
const (
	// MaxBlockSize bounds block_size. RocksDB refuses 4 GiB and more (a
	// block's size is a 32-bit offset); blocks past a few MiB already
	// make every point read slow, so 256 MiB is generous.
	MaxBlockSize Size = 256 << 20
	// MaxWriteBufferSize bounds write_buffer_size: RocksDB clips it to
	// 64 GiB.
	MaxWriteBufferSize Size = 64 << 30
	// MaxBloomBitsPerKey bounds bloom_bits_per_key: RocksDB treats more
	// than 100 bits a key as 100.
	MaxBloomBitsPerKey = 100
	// MaxWriteBufferNumber bounds max_write_buffer_number (each one is a
	// memtable of write_buffer_size).
	MaxWriteBufferNumber = 64
	// MaxBackgroundJobs bounds max_background_jobs (threads of one store),
	// or the host's CPU count if more (the kstreams preset's default).
	MaxBackgroundJobs = 256
	// MaxLevel0Trigger bounds the level-0 file-count triggers.
	MaxLevel0Trigger = 10_000
	// MaxScenarioDuration bounds a scenario's durations (a step, a pause,
	// a settle time): a benchmark step longer than a day is a typo.
	MaxScenarioDuration = Duration(24 * time.Hour)
	// MaxRate bounds write rates, records a second: far past any one
	// host's producer.
	MaxRate = 1e8
	// MaxAcceptableRecoveryLag bounds acceptable.recovery.lag, records.
	MaxAcceptableRecoveryLag = 10_000_000_000
	// fallbackMemoryCap bounds memory settings when the host's memory is
	// unknown (no /proc/meminfo).
	fallbackMemoryCap Size = 1 << 40
)

// HostMemory is this host's memory (MemTotal of /proc/meminfo), or 0 when
// unknown.
var HostMemory = sync.OnceValue(func() Size {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb); err == nil && kb > 0 {
				return Size(kb << 10)
			}
		}
	}
	return 0
})

// checkMemory refuses a memory setting larger than the host's memory (or,
// when that is unknown, than fallbackMemoryCap).
func checkMemory(field string, v Size) error {
	if m := HostMemory(); m > 0 {
		if v > m {
			return fieldErr(field, "%s is over this host's memory (%s, MemTotal in /proc/meminfo)", v, humanSize(m))
		}
		return nil
	}
	if v > fallbackMemoryCap {
		return fieldErr(field, "%s is over %s", v, fallbackMemoryCap)
	}
	return nil
}

// checkDuration refuses a scenario duration over MaxScenarioDuration.
func checkDuration(field string, d Duration) error {
	if d > MaxScenarioDuration {
		return fieldErr(field, "%s is over %s", d, MaxScenarioDuration)
	}
	return nil
}

// checkRate refuses a rate over MaxRate.
func checkRate(field string, r float64) error {
	if r > MaxRate {
		return fieldErr(field, "%v is over %v records/s", r, MaxRate)
	}
	return nil
}

// humanSize is a size in binary units to a tenth ("23.4 GiB"), for sizes
// that are not round.
func humanSize(s Size) string {
	f := float64(s)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if f < 1024 || u == "TiB" {
			if u == "B" {
				return fmt.Sprintf("%d B", int64(s))
			}
			return fmt.Sprintf("%.1f %s", f, u)
		}
		f /= 1024
	}
	return ""
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
