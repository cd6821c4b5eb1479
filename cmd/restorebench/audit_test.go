package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
