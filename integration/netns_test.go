package integration

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/ksdriver"
)

// startAgentInNetns starts an agent in a network namespace of its own
// (unshare --net: only a loopback interface), where the one thing it can
// reach is the broker: a listening socket the test opens inside that
// namespace on the broker's own address, each connection to it carried to
// the broker from this namespace. Kafka's advertised address is the same
// inside and out, so clients inside need nothing else; any other address
// (another agent's JVMs, the coordinator) is unreachable from there.
// Root only (the test is skipped without it, but fails under CI=true).
func startAgentInNetns(t *testing.T, name, labels string) *agentProc {
	t.Helper()
	brokers := testkafka.RealBrokers(t)
	bin := restorebenchBinary(t)
	lib, err := ksdriver.FindLib()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ready := filepath.Join(dir, "netns-ready")
	script := fmt.Sprintf(`ip link set lo up && while [ ! -e %q ]; do sleep 0.05; done && exec "$@"`, ready)
	// Closed after the agent stopped (cleanups run last first), so that it
	// says bye through them.
	var listeners []net.Listener
	t.Cleanup(func() {
		for _, ln := range listeners {
			ln.Close()
		}
	})
	a := &agentProc{name: name, stateDir: dir, log: &bytes.Buffer{}, mu: &sync.Mutex{}, exited: make(chan struct{})}
	a.cmd = exec.Command("unshare", "--net", "--", "sh", "-c", script, "sh", bin, "agent", "--brokers", strings.Join(brokers, ","),
		"--name", name, "--state-dir", dir, "--labels", labels, "--control-key-file", controlKeyFile(t))
	a.cmd.Dir = dir
	a.cmd.Env = append(os.Environ(), "RESTOREBENCH_KSTREAMS_LIB="+lib)
	a.cmd.Stdout, a.cmd.Stderr = lockedWriter{a.mu, a.log}, lockedWriter{a.mu, a.log}
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { a.cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() { a.stop(t) })
	for _, b := range brokers {
		ln, err := listenInNetnsOf(a.cmd.Process.Pid, b)
		if err != nil {
			a.mu.Lock()
			defer a.mu.Unlock()
			if os.Getenv("CI") == "true" {
				t.Fatalf("agent %s's network namespace: %v (%s)", name, err, a.log)
			}
			t.Skipf("a network namespace of its own for agent %s needs root: %v (%s)", name, err, a.log)
		}
		listeners = append(listeners, ln)
		go carry(ln, b)
	}
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return a
}

// listenInNetnsOf opens a TCP listener on addr in the network namespace
// of process pid, from an OS thread that joins it and then returns to the
// test's: the socket stays in that namespace. The thread must not end
// meanwhile (a thread that ends fires the Pdeathsig of the children it
// forked), so it is unlocked only once back, and a thread that cannot
// return ends only when nothing was forked from it after the agents: it
// is locked here afresh.
func listenInNetnsOf(pid int, addr string) (net.Listener, error) {
	type result struct {
		ln  net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		var r result
		defer func() { ch <- r }()
		own, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			r.err = err
			return
		}
		defer own.Close()
		theirs, err := awaitNetns(pid)
		if err != nil {
			r.err = err
			return
		}
		defer theirs.Close()
		if err := unix.Setns(int(theirs.Fd()), unix.CLONE_NEWNET); err != nil {
			r.err = fmt.Errorf("setns: %w", err)
			return
		}
		// Listening anywhere but the agent's namespace would reach the
		// broker's own port here ("address already in use"): check first.
		want, _ := nsOf(theirs)
		if now, err := os.Readlink("/proc/thread-self/ns/net"); err != nil || now != want || now == testNetns {
			r.err = fmt.Errorf("after setns this thread is in network namespace %s, want the agent's %s (%v)", now, want, err)
			if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
				runtime.UnlockOSThread()
			}
			return
		}
		for i := 0; i < 100; i++ { // lo comes up under the script
			if r.ln, r.err = net.Listen("tcp", addr); r.err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
	}()
	r := <-ch
	return r.ln, r.err
}

// testNetns is the test process's own network namespace, read once as the
// package starts, before any thread joins an agent's: a thread's own
// (/proc/thread-self) is not a safe reference, as a thread the runtime
// clones inherits the namespace of the thread that cloned it.
var testNetns, testNetnsErr = os.Readlink("/proc/self/ns/net")

// awaitNetns opens process pid's network namespace once it is not the
// test's own (unshare has made its own), within 10 s.
func awaitNetns(pid int) (*os.File, error) {
	if testNetnsErr != nil {
		return nil, testNetnsErr
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err != nil {
			return nil, err
		}
		// The namespace the opened file refers to, not the process's
		// now: a process that leaves the test's namespace between the
		// open and a read of its link would hand back the test's own.
		their, err := nsOf(f)
		if err != nil || their != testNetns {
			return f, err
		}
		f.Close()
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("process %d did not leave the test's network namespace within 10 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nsOf is the namespace an open namespace file refers to ("net:[N]").
func nsOf(f *os.File) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}

// carry forwards every connection accepted on ln to addr, both ways.
func carry(ln net.Listener, addr string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			up, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{}, 2)
			go func() { io.Copy(up, c); up.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
			go func() { io.Copy(c, up); c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
			<-done
			<-done
		}()
	}
}

// interfacesOf are the network interfaces process pid sees.
func interfacesOf(t *testing.T, pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/dev", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n")[2:] {
		if name, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			out = append(out, name)
		}
	}
	return out
}

// TestAgentsFailoverInSeparateNetworkNamespaces runs the failover across
// two agents each in a network namespace of its own, where the broker is
// all they reach: the ledger verifies, the instances ran on both agents,
// the victim's tasks moved across, and each agent saw no interface but
// its loopback.
func TestAgentsFailoverInSeparateNetworkNamespaces(t *testing.T) {
	t.Parallel()
	needDriver(t)
	names := agentNames(t, 2)
	agents := []*agentProc{startAgentInNetns(t, names[0], "zone=a"), startAgentInNetns(t, names[1], "zone=b")}
	env := connect(t, bench.Options{Agents: names})
	for _, a := range agents {
		if ifs := interfacesOf(t, a.cmd.Process.Pid); len(ifs) != 1 || ifs[0] != "lo" {
			t.Fatalf("agent %s sees interfaces %v: want only its loopback", a.name, ifs)
		}
	}
	for _, a := range env.Agents.Agents() {
		t.Logf("agent %s (own network namespace): clock offset %.3f ms ± %.3f ms", a.Name, float64(a.ClockOffsetNs)/1e6, float64(a.ClockBoundNs)/1e6)
	}
	recs, err := runAgentFailover(t, env, agentFailoverCase(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, recs...)
	r := recs[0]
	f := r.Failover
	if !r.Verified || f == nil || f.Ledger == nil || f.Ledger.Lost != 0 || len(f.Tasks) == 0 {
		t.Fatalf("verified=%v error=%q failover %+v", r.Verified, r.Error, f)
	}
	pl := r.KafkaStreams.Placement
	if pl["i1"] == pl["i2"] || pl[f.Killed] == pl[f.Survivor] {
		t.Fatalf("placement %v: the two instances must run on the two agents", pl)
	}
	t.Logf("failover across network namespaces: %s on %s killed, %s on %s took over: max gap %.2fs ± %.4fs",
		f.Killed, pl[f.Killed], f.Survivor, pl[f.Survivor], f.MaxGapSeconds, f.ClockBoundSeconds)
	for _, a := range agents {
		noJVMUnder(t, a.stateDir)
	}
}
