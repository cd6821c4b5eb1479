//go:build !linux

package ksdriver

import (
	"errors"
	"syscall"
	"time"
)

var errNoProc = errors.New("process figures need Linux's /proc")

// procAttr puts the JVM in its own process group (no parent-death signal
// outside Linux: the driver still stops at the end of its stdin).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

var start = time.Now()

// monoNow is a monotonic reading in nanoseconds; outside Linux it is not
// comparable with the instance's System.nanoTime().
func monoNow() int64 { return int64(time.Since(start)) }

// ProcCPU is not available outside Linux.
func ProcCPU(int) (time.Duration, error) { return 0, errNoProc }

// ProcMemory is not available outside Linux.
func ProcMemory(int) (rss, peak int64, err error) { return 0, 0, errNoProc }
