package main

import (
	"strings"
	"testing"
)

// TestAgentFlags: labels and agent lists parse, and each bad one is an
// error naming the flag; the agent refuses to start without a name, a
// state dir or brokers.
func TestAgentFlags(t *testing.T) {
	lb, err := parseLabels(" zone=a, rack = r1 ,")
	if err != nil || len(lb) != 2 || lb["zone"] != "a" || lb["rack"] != "r1" {
		t.Fatalf("labels %v, %v", lb, err)
	}
	for _, bad := range []string{"zone", "=a", "zone=a,zone=b"} {
		if _, err := parseLabels(bad); err == nil || !strings.HasPrefix(err.Error(), "--labels: ") {
			t.Errorf("--labels %q: %v", bad, err)
		}
	}
	names, _, err := parseAgents("host-a, host-b,")
	if err != nil || len(names) != 2 || names[1] != "host-b" {
		t.Fatalf("agents %v, %v", names, err)
	}
	if _, _, err := parseAgents("a,a"); err == nil || !strings.Contains(err.Error(), "--agents: a named twice") {
		t.Fatalf("a repeated agent: %v", err)
	}
	if names, n, err := parseAgents("any:3"); err != nil || n != 3 || names != nil {
		t.Fatalf("any:3: %v %d %v", names, n, err)
	}
	for _, bad := range []string{"any:0", "any:x", "any:-1", "any:100000"} {
		if _, _, err := parseAgents(bad); err == nil || !strings.Contains(err.Error(), "N must be a whole number from 1 to") {
			t.Errorf("--agents %s: %v", bad, err)
		}
	}
	for args, want := range map[string]string{
		"agent --state-dir /tmp/x --brokers 127.0.0.1:1": "--name is required",
		"agent --name a --brokers 127.0.0.1:1":           "--state-dir is required",
		"agent --name a --state-dir /tmp/x":              "--brokers (or bootstrap.servers in --command-config) is required",
	} {
		root := newRootCmd()
		root.SetArgs(strings.Fields(args))
		if err := root.Execute(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
}
