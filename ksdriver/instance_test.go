package ksdriver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeDriver is a stand-in for `java ... Driver CONFIG`: a shell script
// that behaves as the mode in CONFIG's fake.mode line says, so the process
// handling is tested without a JVM. It records its pid and its child's in
// the instance directory.
const fakeDriver = `#!/bin/bash
config="${@: -1}"
dir=$(dirname "$config")
mode=$(sed -n 's/^fake.mode=//p' "$config")
echo $$ > "$dir/pid"
ev() { printf '{"ev":"%s","instance":"i0","mono_ns":1,"wall_ms":1%s}\n' "$1" "$2"; }
hello() { ev hello ',"pid":'$$',"kafka_streams_version":"fake","java_version":"0","jvm_args":[],"max_heap_bytes":1,"gc":[],"topology":"kv","store":"s","bare":false'; }
case "$mode" in
exit3)
	for i in $(seq 1 30); do echo "log line $i" >&2; done
	ev error ',"message":"restorebench.input.topic is required","where":"config","stack":""'
	exit 3 ;;
silent)
	sleep 1000 & echo $! > "$dir/child"; wait ;;
hang)
	trap '' TERM
	hello
	sleep 1000 & echo $! > "$dir/child"
	while true; do sleep 1; done ;;
secrets)
	sf=$(sed -n 's/^restorebench.secrets.file=//p' "$config")
	stat -c %a "$sf" > "$dir/secrets.mode"
	cp "$sf" "$dir/secrets.seen"
	tr '\0' ' ' < /proc/$$/cmdline > "$dir/cmdline"
	hello
	while read -r cmd; do [ "$cmd" = stop ] && break; done
	ev stopped ',"clean":true,"seconds":0.01'
	exit 0 ;;
termok)
	hello
	while true; do sleep 1; done ;;
ok)
	hello
	while read -r cmd; do
		case "$cmd" in
		digest) ev digest ',"store":"s","scope":"active","seconds":0.1,"partitions":[{"partition":0,"keys":1,"live_bytes":2,"digest":"0000000000000003"}]' ;;
		stop) break ;;
		*) ev error ',"message":"unknown command: '"$cmd"'","where":"command","stack":""' ;;
		esac
	done
	ev stopped ',"clean":true,"seconds":0.01'
	exit 0 ;;
esac
`

// startFake starts the fake driver in mode with short timeouts.
func startFake(t *testing.T, ctx context.Context, mode string) (*Instance, string, error) {
	t.Helper()
	return startFakeWith(t, ctx, mode, nil)
}

// startFakeWith starts the fake driver in mode with secrets.
func startFakeWith(t *testing.T, ctx context.Context, mode string, secrets map[string]string) (*Instance, string, error) {
	t.Helper()
	dir := t.TempDir()
	java := filepath.Join(dir, "java")
	if err := os.WriteFile(java, []byte(fakeDriver), 0o755); err != nil {
		t.Fatal(err)
	}
	idir := filepath.Join(dir, "i0")
	in, err := Start(ctx, Options{
		ID: "i0", Dir: idir, Java: java, Lib: dir,
		Properties:   map[string]string{"fake.mode": mode},
		Secrets:      secrets,
		StartTimeout: 2 * time.Second, StopTimeout: 500 * time.Millisecond, KillGrace: 500 * time.Millisecond,
	})
	return in, idir, err
}

// assertGone fails unless the process recorded in dir/name has exited.
func assertGone(t *testing.T, dir, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d (%s) is still running", pid, name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestInstanceRequestAndCleanStop(t *testing.T) {
	in, dir, err := startFake(t, context.Background(), "ok")
	if err != nil {
		t.Fatal(err)
	}
	if in.Hello() == nil || in.Hello().KafkaStreamsVersion != "fake" {
		t.Fatalf("hello %+v", in.Hello())
	}
	cfg, _ := os.ReadFile(in.ConfigPath())
	if !strings.Contains(string(cfg), "restorebench.instance.id=i0") {
		t.Fatalf("CONFIG.properties lacks the instance id:\n%s", cfg)
	}
	e, err := in.Request(context.Background(), "digest", EvDigest)
	if err != nil {
		t.Fatal(err)
	}
	if d := e.(*Digest); len(d.States()) != 1 || d.States()[0].Digest != 3 {
		t.Fatalf("digest %+v", d)
	}
	if _, err := in.Request(context.Background(), "frobnicate", "never"); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Fatalf("unknown command: err = %v", err)
	}
	if err := in.Stop(context.Background()); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	assertGone(t, dir, "pid")
	if evs := in.Events(); evs[len(evs)-1].Head().Ev != EvStopped || evs[0].Head().RecvMonoNs == 0 {
		t.Fatalf("events: last %s, first received at %d", evs[len(evs)-1].Head().Ev, evs[0].Head().RecvMonoNs)
	}
}

func TestInstanceExitingEarlyIsOneClearError(t *testing.T) {
	_, dir, err := startFake(t, context.Background(), "exit3")
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v, want an *ExitError", err)
	}
	msg := err.Error()
	for _, want := range []string{"instance i0", "did not start", "exit status 3", "restorebench.input.topic is required", "log line 30", LogFile} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "log line 10\n") {
		t.Errorf("error quotes more than the last %d lines:\n%s", logTailLines, msg)
	}
	assertGone(t, dir, "pid")
}

func TestInstanceWithoutHelloIsKilledAfterStartTimeout(t *testing.T) {
	start := time.Now()
	_, dir, err := startFake(t, context.Background(), "silent")
	if err == nil || !strings.Contains(err.Error(), "no hello within 2s") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("start gave up after %s", d)
	}
	assertGone(t, dir, "pid")
	assertGone(t, dir, "child") // the whole process group
}

func TestInstanceIgnoringStopAndSIGTERMIsKilled(t *testing.T) {
	in, dir, err := startFake(t, context.Background(), "hang")
	if err != nil {
		t.Fatal(err)
	}
	err = in.Stop(context.Background())
	var ee *ExitError
	if !errors.As(err, &ee) || !strings.Contains(ee.Killed, "nor 500ms of SIGTERM") {
		t.Fatalf("err = %v", err)
	}
	assertGone(t, dir, "pid")
	assertGone(t, dir, "child")
}

func TestInstanceIgnoringStopEndsWithSIGTERM(t *testing.T) {
	in, dir, err := startFake(t, context.Background(), "termok")
	if err != nil {
		t.Fatal(err)
	}
	err = in.Stop(context.Background())
	if err == nil || !strings.Contains(err.Error(), "SIGTERM ended it") {
		t.Fatalf("err = %v", err)
	}
	assertGone(t, dir, "pid")
}

func TestInstanceIsKilledWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in, dir, err := startFake(t, ctx, "ok")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-in.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("instance still running 5 s after its context ended")
	}
	_, err = in.Next(context.Background(), 1000)
	var ee *ExitError
	if !errors.As(err, &ee) || !strings.Contains(ee.Killed, "context") {
		t.Fatalf("Next after the kill: %v", err)
	}
	assertGone(t, dir, "pid")
}

func TestMissingDriverIsAClearError(t *testing.T) {
	t.Setenv(EnvLib, t.TempDir())
	_, err := FindLib()
	if !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "make kstreams") {
		t.Fatalf("FindLib with an empty %s: %v", EnvLib, err)
	}
	t.Setenv(EnvLib, "")
	t.Chdir(t.TempDir())
	if _, err := FindLib(); !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "scripts/kstreams.sh build") {
		t.Fatalf("FindLib far from the repo: %v", err)
	}
	dir := t.TempDir()
	_, err = Start(context.Background(), Options{ID: "i0", Dir: dir, Java: "java"})
	if !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("Start without a driver: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(dir, LogFile)); statErr == nil {
		t.Fatal("Start without a driver launched something")
	}
}

func TestMissingJavaIsAClearError(t *testing.T) {
	t.Setenv(EnvJava, filepath.Join(t.TempDir(), "no-java-here"))
	_, err := FindJava()
	if !errors.Is(err, ErrNoJava) || !strings.Contains(err.Error(), "Java 17") {
		t.Fatalf("FindJava: %v", err)
	}
	_, err = Start(context.Background(), Options{ID: "i0", Dir: t.TempDir(), Lib: t.TempDir()})
	if !errors.Is(err, ErrNoJava) {
		t.Fatalf("Start without java: %v", err)
	}
}

// TestInstanceInARelativeDirectoryStarts: the default state directory is
// relative (.restorebench/state); the JVM runs in the instance directory,
// so the paths it is given must not resolve against it a second time.
func TestInstanceInARelativeDirectoryStarts(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("java", []byte(fakeDriver), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := Start(context.Background(), Options{
		ID: "i0", Dir: filepath.Join(".restorebench", "state", "i0"), Java: filepath.Join(dir, "java"), Lib: ".",
		Properties:   map[string]string{"fake.mode": "ok"},
		StartTimeout: 2 * time.Second, StopTimeout: 500 * time.Millisecond, KillGrace: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("an instance in a relative directory: %v", err)
	}
	if !filepath.IsAbs(in.ConfigPath()) {
		t.Errorf("config path %s is relative", in.ConfigPath())
	}
	if err := in.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSecretsReachTheProcessOnlyThroughAFileItOwns: the secrets are in a
// 0600 file the process can read at launch, named in CONFIG.properties;
// never in CONFIG.properties or the argv; and the file is gone once the
// process said hello.
func TestSecretsReachTheProcessOnlyThroughAFileItOwns(t *testing.T) {
	const secret = "hunter2-in-the-jaas-line"
	in, dir, err := startFakeWith(t, context.Background(), "secrets", map[string]string{"sasl.jaas.config": "x password=\"" + secret + "\";"})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Kill()
	if _, err := os.Stat(filepath.Join(dir, SecretsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the secrets file outlived the hello: %v", err)
	}
	mode, _ := os.ReadFile(filepath.Join(dir, "secrets.mode"))
	seen, _ := os.ReadFile(filepath.Join(dir, "secrets.seen"))
	if strings.TrimSpace(string(mode)) != "600" || !strings.Contains(string(seen), secret) {
		t.Fatalf("the process saw mode %q and %q", mode, seen)
	}
	cfg, _ := os.ReadFile(in.ConfigPath())
	argv, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	if !strings.Contains(string(cfg), PropSecretsFile+"="+filepath.Join(dir, SecretsFile)) {
		t.Fatalf("CONFIG.properties does not name the secrets file:\n%s", cfg)
	}
	for name, b := range map[string][]byte{"CONFIG.properties": cfg, "argv": argv} {
		if len(b) == 0 || strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret (or is empty): %q", name, b)
		}
	}
	if err := in.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSecretsFileIsGoneWhenTheProcessFailsToStart: a process that exits
// before its hello leaves no secrets file behind.
func TestSecretsFileIsGoneWhenTheProcessFailsToStart(t *testing.T) {
	_, dir, err := startFakeWith(t, context.Background(), "exit3", map[string]string{"ssl.keystore.key": "KEY"})
	if err == nil {
		t.Fatal("the failing fake started")
	}
	if _, err := os.Stat(filepath.Join(dir, SecretsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the secrets file outlived the process: %v", err)
	}
}

// TestExitErrorNamesAnOutOfMemoryJVM: an instance whose log ends in an
// OutOfMemoryError (the JVM exits at once under ExitOnOutOfMemoryError)
// is reported as out of memory, with what to raise; another exit is not.
func TestExitErrorNamesAnOutOfMemoryJVM(t *testing.T) {
	oom := &ExitError{ID: "i0", State: "exit status 3", LogPath: "instance.log", LogTail: "  WARN StreamsConfig - ...",
		OutOfMemory: "Terminating due to java.lang.OutOfMemoryError: Java heap space"}
	if got := oom.Error(); !strings.Contains(got, "exited (exit status 3); the JVM ran out of memory (Terminating due to java.lang.OutOfMemoryError: Java heap space): raise the case's jvm_heap") {
		t.Errorf("out of memory: %s", got)
	}
	other := &ExitError{ID: "i0", State: "exit status 1", LogPath: "instance.log", LogTail: "  Exception in thread main"}
	if got := other.Error(); strings.Contains(got, "out of memory") {
		t.Errorf("another exit: %s", got)
	}
}
