package ksdriver

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/restorebench/restorebench/internal/javaprops"
)

// Defaults of Options.
const (
	// DefaultStartTimeout bounds the wait for an instance's hello.
	DefaultStartTimeout = 60 * time.Second
	// DefaultStopTimeout bounds the wait for an instance to exit after
	// `stop`: the driver's close timeout (60 s) plus a margin.
	DefaultStopTimeout = 75 * time.Second
	// DefaultKillGrace is how long SIGTERM has before SIGKILL.
	DefaultKillGrace = 10 * time.Second
)

// File names in an instance's directory.
const (
	ConfigFile = "CONFIG.properties"
	LogFile    = "instance.log"
	// SecretsFile holds Options.Secrets (0600) from the launch until the
	// driver has read it: the driver deletes it before its hello, and
	// Start deletes it once the hello arrives or the process ends.
	SecretsFile = "secrets.properties"
)

// logTailLines is how many lines of the instance's log an error quotes.
const logTailLines = 20

// Options configure one instance process.
type Options struct {
	// ID is the instance's restorebench.instance.id: it names the instance
	// in its events and in errors. Required.
	ID string
	// Dir is the instance's own directory, created if missing: its
	// CONFIG.properties and its log (the JVM's stderr, instance.log). Required.
	Dir string
	// Properties are CONFIG.properties' entries: StreamsConfig properties
	// and the driver's restorebench.* keys (kstreams/PROTOCOL.md).
	// restorebench.instance.id is set from ID.
	Properties map[string]string
	// Secrets are StreamsConfig properties that hold secrets
	// (sasl.jaas.config, a private key, store passwords): never in
	// CONFIG.properties, the argv or an event, they reach the JVM through
	// SecretsFile, which lives only until the driver has read it. Default
	// none.
	Secrets map[string]string
	// JVMFlags go to java before the class path, e.g. -Xmx1g.
	JVMFlags []string
	// KafkaStreamsVersion is the Kafka Streams version the instance must
	// run (a case's kafka_streams_version): Lib defaults to the driver
	// built against it, and a hello naming another version is an error
	// naming both. Default: DefaultKafkaStreamsVersion when Lib is unset;
	// with Lib set and this empty, whatever Lib holds (unchecked).
	KafkaStreamsVersion string
	// Lib is the driver's lib directory. Default: FindLibFor(KafkaStreamsVersion).
	Lib string
	// Java is the java binary. Default: FindJava().
	Java string
	// StartTimeout bounds the wait for the hello event. Default 60 s.
	StartTimeout time.Duration
	// StopTimeout bounds the wait for the process to exit after `stop`,
	// before SIGTERM. Default 75 s.
	StopTimeout time.Duration
	// KillGrace is how long SIGTERM has before SIGKILL. Default 10 s.
	KillGrace time.Duration
}

func (o *Options) defaults() error {
	if o.ID == "" || o.Dir == "" {
		return errors.New("ksdriver: an instance needs an ID and a directory")
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = DefaultStopTimeout
	}
	if o.KillGrace <= 0 {
		o.KillGrace = DefaultKillGrace
	}
	var err error
	if o.Lib == "" {
		if o.KafkaStreamsVersion == "" {
			o.KafkaStreamsVersion = DefaultKafkaStreamsVersion
		}
		if o.Lib, err = FindLibFor(o.KafkaStreamsVersion); err != nil {
			return err
		}
	}
	// The JVM runs in Dir and is handed paths under it: a relative Dir (the
	// default state directory, .restorebench/state, is one) or Lib would
	// resolve against Dir a second time.
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return fmt.Errorf("ksdriver: instance directory: %w", err)
	}
	if o.Lib, err = filepath.Abs(o.Lib); err != nil {
		return fmt.Errorf("ksdriver: driver lib: %w", err)
	}
	if o.Java == "" {
		if o.Java, err = FindJava(); err != nil {
			return err
		}
	}
	return nil
}

// Instance is one running Kafka Streams instance process: the tool starts
// it, feeds it commands, reads its events and stops it. It never outlives
// the tool: it is killed when the context given to Start ends, when Stop
// cannot stop it cleanly, and (Linux) when the tool's process dies.
type Instance struct {
	opts       Options
	cmd        *exec.Cmd
	pid        int
	launchMono int64
	hello      *Hello

	stdinMu     sync.Mutex
	stdin       io.WriteCloser
	stdinClosed bool

	// fileMu runs one file command at a time (FileCommand): two replies
	// of one kind could not be told apart.
	fileMu sync.Mutex

	mu         sync.Mutex
	events     []Event
	notify     chan struct{} // closed and replaced whenever events grow or the process exits
	exited     bool
	waitErr    error  // cmd.Wait's error
	killReason string // why the tool killed the process, if it did
	done       chan struct{}
}

// Start writes the instance's CONFIG.properties, launches
// `java FLAGS -cp LIB/* restorebench.kstreams.Driver CONFIG` and waits for
// its hello. A JVM that cannot start, or exits before saying hello, is one
// error quoting the end of its log (an *ExitError), and no process is left.
func Start(ctx context.Context, o Options) (*Instance, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	in := &Instance{opts: o, notify: make(chan struct{}), done: make(chan struct{})}
	if err := in.writeConfig(); err != nil {
		return nil, err
	}
	if err := in.launch(); err != nil {
		in.removeSecrets()
		return nil, err
	}
	go in.watch(ctx)
	hctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	e, _, err := in.WaitFor(hctx, 0, func(e Event) bool { return e.Head().Ev == EvHello })
	in.removeSecrets() // read by now, or never to be
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no hello within %s", o.StartTimeout)
		}
		in.kill("it did not start")
		return nil, in.startError(err)
	}
	in.hello = e.(*Hello)
	if err := in.checkVersion(); err != nil {
		in.kill("it runs another Kafka Streams version")
		return nil, err
	}
	return in, nil
}

// checkVersion refuses an instance whose hello names another Kafka
// Streams version than Options.KafkaStreamsVersion: its measurements would
// be recorded under a version that did not run.
func (in *Instance) checkVersion() error {
	want, got := in.opts.KafkaStreamsVersion, in.hello.KafkaStreamsVersion
	if want == "" || want == got {
		return nil
	}
	return fmt.Errorf("kafka-streams instance %s: the driver in %s runs Kafka Streams %s, but kafka_streams_version is %s; rebuild it with %s",
		in.opts.ID, in.opts.Lib, got, want, buildHint(want))
}

// writeConfig writes CONFIG.properties into the instance's directory.
func (in *Instance) writeConfig() error {
	if err := os.MkdirAll(in.opts.Dir, 0o755); err != nil {
		return fmt.Errorf("kafka-streams instance %s: %w", in.opts.ID, err)
	}
	props := maps.Clone(in.opts.Properties)
	if props == nil {
		props = map[string]string{}
	}
	props[PropInstanceID] = in.opts.ID
	delete(props, PropSecretsFile)
	if len(in.opts.Secrets) > 0 {
		if err := writeSecrets(in.secretsPath(), in.opts.Secrets); err != nil {
			return fmt.Errorf("kafka-streams instance %s: %w", in.opts.ID, err)
		}
		props[PropSecretsFile] = in.secretsPath()
	}
	if err := os.WriteFile(in.ConfigPath(), javaprops.Encode(props), 0o600); err != nil {
		in.removeSecrets()
		return fmt.Errorf("kafka-streams instance %s: %w", in.opts.ID, err)
	}
	return nil
}

// writeSecrets writes secrets to a new file at path that only this user
// can read (0600, created exclusively: never through a file someone else
// left there). An error never holds a value.
func writeSecrets(path string, secrets map[string]string) error {
	os.Remove(path) // a previous process's, if it died before reading it
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("secrets file: %w", err)
	}
	_, werr := f.Write(javaprops.Encode(secrets))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return fmt.Errorf("secrets file %s: %w", path, werr)
	}
	return nil
}

func (in *Instance) secretsPath() string { return filepath.Join(in.opts.Dir, SecretsFile) }

// removeSecrets deletes the secrets file, if the driver has not.
func (in *Instance) removeSecrets() {
	if len(in.opts.Secrets) > 0 {
		os.Remove(in.secretsPath())
	}
}

// launch starts the JVM with stderr in the log file and stdout read into
// events by a goroutine, which reaps the process at the end of stdout.
func (in *Instance) launch() error {
	o := in.opts
	logf, err := os.Create(in.LogPath())
	if err != nil {
		return fmt.Errorf("kafka-streams instance %s: %w", o.ID, err)
	}
	defer logf.Close() // the JVM has its own descriptor
	args := append(append([]string{}, o.JVMFlags...), "-cp", Classpath(o.Lib), MainClass, in.ConfigPath())
	cmd := exec.Command(o.Java, args...)
	cmd.Dir = o.Dir
	cmd.Stderr = logf
	cmd.SysProcAttr = procAttr()
	if in.stdin, err = cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	in.launchMono = monoNow()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("kafka-streams instance %s: starting %s: %w", o.ID, o.Java, err)
	}
	in.cmd, in.pid = cmd, cmd.Process.Pid
	go in.read(stdout)
	return nil
}

// read turns stdout lines into events until the end of stdout, then reaps
// the process.
func (in *Instance) read(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			in.append(parseLine(line))
		}
		if err != nil {
			break
		}
	}
	werr := in.cmd.Wait()
	in.removeSecrets()
	in.mu.Lock()
	in.exited, in.waitErr = true, werr
	in.broadcast()
	in.mu.Unlock()
	close(in.done)
}

// parseLine decodes a line, stamped with its receipt; a line that is not an
// event is kept as an *Unknown with an empty name.
func parseLine(line []byte) Event {
	recv := monoNow()
	e, err := Parse(line)
	if err != nil {
		e = &Unknown{Raw: string(line)}
	}
	e.Head().RecvMonoNs = recv
	return e
}

func (in *Instance) append(e Event) {
	in.mu.Lock()
	in.events = append(in.events, e)
	in.broadcast()
	in.mu.Unlock()
}

// broadcast wakes every waiter; in.mu must be held.
func (in *Instance) broadcast() {
	close(in.notify)
	in.notify = make(chan struct{})
}

// watch kills the process when ctx ends before it exits.
func (in *Instance) watch(ctx context.Context) {
	select {
	case <-ctx.Done():
		in.kill("its context ended: " + context.Cause(ctx).Error())
	case <-in.done:
	}
}

// ID is the instance's id.
func (in *Instance) ID() string { return in.opts.ID }

// PID is the JVM's process id.
func (in *Instance) PID() int { return in.pid }

// Hello is the instance's first event.
func (in *Instance) Hello() *Hello { return in.hello }

// LaunchMonoNs is CLOCK_MONOTONIC just before the JVM was launched.
func (in *Instance) LaunchMonoNs() int64 { return in.launchMono }

// Dir is the instance's directory.
func (in *Instance) Dir() string { return in.opts.Dir }

// ConfigPath is the instance's CONFIG.properties.
func (in *Instance) ConfigPath() string { return filepath.Join(in.opts.Dir, ConfigFile) }

// LogPath is the instance's log: the JVM's stderr.
func (in *Instance) LogPath() string { return filepath.Join(in.opts.Dir, LogFile) }

// Done is closed once the process has exited and its events are all read.
func (in *Instance) Done() <-chan struct{} { return in.done }

// Len is how many events have arrived until now: a cursor for WaitFor that
// sees only what comes after now.
func (in *Instance) Len() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.events)
}

// Events returns every event received until the call, in order.
func (in *Instance) Events() []Event {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Event(nil), in.events...)
}

// Next returns event i (0 is the first), waiting until it arrives. When the
// process exits without sending it, the error is an *ExitError.
func (in *Instance) Next(ctx context.Context, i int) (Event, error) {
	for {
		in.mu.Lock()
		if i < len(in.events) {
			e := in.events[i]
			in.mu.Unlock()
			return e, nil
		}
		if in.exited {
			in.mu.Unlock()
			return nil, in.exitError()
		}
		ch := in.notify
		in.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// WaitFor returns the first event at index from or later that match
// accepts, and its index.
func (in *Instance) WaitFor(ctx context.Context, from int, match func(Event) bool) (Event, int, error) {
	for i := from; ; i++ {
		e, err := in.Next(ctx, i)
		if err != nil {
			return nil, i, err
		}
		if match(e) {
			return e, i, nil
		}
	}
}

// Send writes one command line to the instance's stdin.
func (in *Instance) Send(command string) error {
	in.stdinMu.Lock()
	defer in.stdinMu.Unlock()
	if in.stdinClosed {
		return fmt.Errorf("kafka-streams instance %s: stdin is closed (the instance is stopping)", in.opts.ID)
	}
	if _, err := io.WriteString(in.stdin, command+"\n"); err != nil {
		return fmt.Errorf("kafka-streams instance %s: sending %q: %w", in.opts.ID, command, err)
	}
	return nil
}

// Request sends a command and waits for its reply event (named reply), or
// the error event that answers it instead.
func (in *Instance) Request(ctx context.Context, command, reply string) (Event, error) {
	from := in.Len()
	if err := in.Send(command); err != nil {
		return nil, err
	}
	word, _, _ := strings.Cut(strings.TrimSpace(command), " ")
	e, _, err := in.WaitFor(ctx, from, func(e Event) bool {
		if er, ok := e.(*Error); ok {
			return er.Where == "command" || er.Where == word
		}
		return e.Head().Ev == reply
	})
	if err != nil {
		return nil, fmt.Errorf("kafka-streams instance %s: waiting for the reply to %q: %w", in.opts.ID, command, err)
	}
	if er, ok := e.(*Error); ok {
		return nil, er.Err()
	}
	return e, nil
}

func (in *Instance) closeStdin() {
	in.stdinMu.Lock()
	defer in.stdinMu.Unlock()
	if !in.stdinClosed {
		in.stdinClosed = true
		in.stdin.Close()
	}
}

// Stop stops the instance cleanly: `stop` (the driver closes Kafka Streams,
// leaving the group unless configured otherwise, and exits), then SIGTERM
// after StopTimeout, then SIGKILL after KillGrace; ctx ending kills at once.
// It returns nil only for a clean stop: exit status 0 after a clean
// `stopped` event.
func (in *Instance) Stop(ctx context.Context) error {
	if !in.hasExited() {
		in.Send("stop")
	}
	in.closeStdin()
	if in.waitExit(ctx, in.opts.StopTimeout) {
		return in.stopResult()
	}
	if ctx.Err() != nil {
		in.kill("its context ended while it stopped")
		return in.exitError()
	}
	in.signal(syscall.SIGTERM)
	reason := fmt.Sprintf("it did not stop within %s of `stop`; SIGTERM ended it", in.opts.StopTimeout)
	if !in.waitExit(ctx, in.opts.KillGrace) {
		reason = fmt.Sprintf("it did not stop within %s of `stop` nor %s of SIGTERM", in.opts.StopTimeout, in.opts.KillGrace)
		in.kill(reason)
	}
	in.mu.Lock()
	if in.killReason == "" {
		in.killReason = reason
	}
	in.mu.Unlock()
	return in.exitError()
}

// stopResult is nil for a clean stop, else the exit error.
func (in *Instance) stopResult() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.waitErr == nil && in.killReason == "" {
		for i := len(in.events) - 1; i >= 0; i-- {
			if s, ok := in.events[i].(*Stopped); ok && s.Clean {
				return nil
			}
		}
	}
	return in.exitErrorLocked()
}

// Kill ends the process at once (SIGKILL to its process group) and waits
// for it to be reaped. It is safe to call at any time, more than once.
func (in *Instance) Kill() { in.kill("on purpose (SIGKILL)") }

func (in *Instance) kill(reason string) {
	in.mu.Lock()
	if !in.exited && in.killReason == "" {
		in.killReason = reason
	}
	in.mu.Unlock()
	// SIGKILL before closing stdin, which the driver would take as `stop`.
	in.signal(syscall.SIGKILL)
	in.closeStdin()
	<-in.done
}

// signal sends sig to the instance's process group while it runs.
func (in *Instance) signal(sig syscall.Signal) {
	if in.hasExited() {
		return
	}
	if err := syscall.Kill(-in.pid, sig); err != nil {
		in.cmd.Process.Signal(sig)
	}
}

func (in *Instance) hasExited() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.exited
}

// waitExit waits up to d for the process to exit.
func (in *Instance) waitExit(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-in.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// ExitError is an instance process that ended (or never started) when the
// tool still needed it, or ended badly: its exit status, the error it
// reported last, why the tool killed it if it did, and the end of its log.
type ExitError struct {
	ID string
	// State is the exit status text ("exit status 3", "signal: killed"),
	// empty when the process did not exit.
	State string
	// Cause is what went wrong on the Go side, if anything (a timeout).
	Cause error
	// Reported is the last error event the instance sent, if any.
	Reported *Error
	// Killed says why restorebench killed the process, if it did.
	Killed string
	// LogPath is the instance's log and LogTail its last lines.
	LogPath, LogTail string
	// OutOfMemory is the JVM's OutOfMemoryError line ("Terminating due to
	// java.lang.OutOfMemoryError: Java heap space", which HotSpot's
	// ExitOnOutOfMemoryError writes to stdout), if it wrote one.
	OutOfMemory string
}

func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kafka-streams instance %s", e.ID)
	switch {
	case e.Cause != nil && e.State == "":
		fmt.Fprintf(&b, ": %v", e.Cause)
	case e.Cause != nil:
		fmt.Fprintf(&b, ": %v; it exited (%s)", e.Cause, e.State)
	default:
		fmt.Fprintf(&b, " exited (%s)", e.State)
	}
	if e.Killed != "" {
		fmt.Fprintf(&b, "; restorebench killed it: %s", e.Killed)
	}
	if e.Reported != nil {
		fmt.Fprintf(&b, "; it reported %s: %s", e.Reported.Where, e.Reported.Message)
	}
	if e.Reported != nil && e.Reported.Where == "connect" {
		// The report says it all; the log holds the clients' stack traces.
		fmt.Fprintf(&b, " (its log: %s)", e.LogPath)
		return b.String()
	}
	if e.OutOfMemory != "" || strings.Contains(e.LogTail, "java.lang.OutOfMemoryError") {
		fmt.Fprintf(&b, "; the JVM ran out of memory (%s): raise the case's jvm_heap (its -Xmx), or for \"Direct buffer "+
			"memory\" or \"Metaspace\" the matching jvm_flags", cmp.Or(e.OutOfMemory, "java.lang.OutOfMemoryError"))
	}
	if e.LogTail != "" {
		fmt.Fprintf(&b, "; last lines of %s:\n%s", e.LogPath, e.LogTail)
	} else if e.LogPath != "" {
		fmt.Fprintf(&b, " (its log %s is empty)", e.LogPath)
	}
	return b.String()
}

func (e *ExitError) Unwrap() error { return e.Cause }

// exitError describes the process's end.
func (in *Instance) exitError() *ExitError {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.exitErrorLocked()
}

func (in *Instance) exitErrorLocked() *ExitError {
	e := &ExitError{ID: in.opts.ID, Killed: in.killReason, LogPath: in.LogPath(), LogTail: LogTail(in.LogPath(), logTailLines)}
	if in.exited {
		e.State = "exit status 0"
		if in.waitErr != nil {
			e.State = in.waitErr.Error() // "exit status 3", "signal: killed"
		}
	}
	for i := len(in.events) - 1; i >= 0; i-- {
		if r, ok := in.events[i].(*Error); ok {
			e.Reported = r
			break
		}
	}
	for i := len(in.events) - 1; i >= 0 && i >= len(in.events)-oomScan; i-- {
		if u, ok := in.events[i].(*Unknown); ok && strings.Contains(u.Raw, "java.lang.OutOfMemoryError") {
			e.OutOfMemory = strings.TrimSpace(u.Raw)
			break
		}
	}
	return e
}

// oomScan is how many of an instance's last events are searched for the
// JVM's OutOfMemoryError line.
const oomScan = 64

// startError is the error of a failed start, with its cause.
func (in *Instance) startError(cause error) error {
	e := in.exitError()
	var ee *ExitError
	if !errors.As(cause, &ee) {
		e.Cause = fmt.Errorf("did not start: %w", cause)
	} else {
		e.Cause = errors.New("did not start")
	}
	return e
}

// LogTail returns the last n lines of the file at path, indented, from at
// most its last 64 KiB; "" when it is empty or unreadable.
func LogTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		f.Seek(fi.Size()-window, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		return ""
	}
	return "  " + strings.Join(lines, "\n  ")
}
