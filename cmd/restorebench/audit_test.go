package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/internal/testkafka"
)

// --streams-config: session.timeout.ms as Kafka Streams takes it (the
// main.consumer. prefix first), acceptable.recovery.lag, and the default
// said ASSUMED when the file has none.
func TestAuditStreamsConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	o, err := auditStreamsConfig(write("a.properties", "session.timeout.ms=30000\nmain.consumer.session.timeout.ms = 12000\nacceptable.recovery.lag=500\n"+
		"topology.optimization=all\n"))
	if err != nil || o.SessionTimeout != 12*time.Second || o.SessionTimeoutAssumed || o.AcceptableRecoveryLag != 500 || o.TopologyOptimization != "all" {
		t.Fatalf("%+v %v", o, err)
	}
	o, err = auditStreamsConfig(write("b.properties", "application.id=x\n"))
	if err != nil || o.SessionTimeout != 45*time.Second || !o.SessionTimeoutAssumed {
		t.Fatalf("%+v %v", o, err)
	}
	if _, err := auditStreamsConfig(write("c.properties", "\nsession.timeout.ms=soon\n")); err == nil || !strings.Contains(err.Error(), "line 2: session.timeout.ms") {
		t.Fatalf("bad value: %v", err)
	}
}

// An audit interrupted (Ctrl-C, SIGTERM) while it reads exits with the
// interrupt's error, says so and writes no audit presented as complete.
func TestAuditInterrupted(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	cl, err := cluster.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kadm.NewClient(cl).CreateTopic(context.Background(), 1, 1, nil, "orders-s-changelog"); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	for _, format := range []string{"text", "json"} {
		cmd := newRootCmd()
		cmd.SetArgs([]string{"--brokers", cfg.Brokers[0], "audit", "--application-id", "orders", "--format", format})
		var o, e bytes.Buffer
		cmd.SetOut(&o)
		cmd.SetErr(&e)
		// Cancelled while audit waits to measure the write rate.
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		err := cmd.ExecuteContext(ctx)
		cancel()
		if err == nil || !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("%s: interrupted audit: %v", format, err)
		}
		if o.Len() != 0 {
			t.Errorf("%s: an interrupted audit wrote:\n%s", format, o.String())
		}
	}
}
