package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
	"github.com/restorebench/restorebench/runs"
)

// HostFacts describes this host for an agent whose state lives under
// stateDir and whose processes run java ("" finds it as the driver does):
// what a coordinator records beside its measurements. It runs
// `java -version` (a JVM of its own), so an agent calls it once.
func HostFacts(stateDir, toolVersion, java string) runs.AgentFacts {
	h, _ := os.Hostname()
	f := runs.AgentFacts{Hostname: h, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		MemoryBytes: memTotal(), Kernel: kernelRelease(), JavaVersion: javaVersion(java), ToolVersion: toolVersion,
		StateDir: stateDir, StartedWallMs: time.Now().UnixMilli()}
	_, err := ksdriver.FindLib()
	f.DriverLib = err == nil
	f.StateDirBytes, f.StateDirFree = diskSpace(stateDir)
	return f
}

// diskSpace is the size and free space of the file system holding dir
// (0, 0 where unknown).
func diskSpace(dir string) (size, free int64) {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return 0, 0
	}
	return int64(st.Blocks) * int64(st.Bsize), int64(st.Bavail) * int64(st.Bsize)
}

// memTotal is MemTotal of /proc/meminfo in bytes (0 where unknown).
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			fmt.Sscanf(rest, "%d", &kb)
			return kb * 1024
		}
	}
	return 0
}

// kernelRelease is the kernel's release string ("" where unknown).
func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// javaVersion is the first line `java -version` prints ("" without a
// java, or when it does not answer within 10 s).
func javaVersion(java string) string {
	if java == "" {
		var err error
		if java, err = ksdriver.FindJava(); err != nil {
			return ""
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, java, "-version").CombinedOutput()
	if err != nil {
		return ""
	}
	line, _, _ := bytes.Cut(out, []byte("\n"))
	return strings.TrimSpace(string(line))
}
