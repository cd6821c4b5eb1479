package main

import (
	"context"
	"os"
	"testing"
)

// TestPasswordFromEnvironmentIsNotInherited: $RESTOREBENCH_SASL_PASSWORD
// is taken as the SASL password and then removed from the environment, so
// the JVMs restorebench starts do not inherit it.
func TestPasswordFromEnvironmentIsNotInherited(t *testing.T) {
	t.Setenv("RESTOREBENCH_SASL_PASSWORD", "env-s3cret")
	_, g := newRoot()
	g.sec.Protocol, g.sec.Mechanism, g.sec.Username = "SASL_SSL", "PLAIN", "u"
	sec, _, err := g.security(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sec == nil || sec.Password != "env-s3cret" {
		t.Fatalf("the password was not taken from the environment: %v", sec)
	}
	if v, ok := os.LookupEnv("RESTOREBENCH_SASL_PASSWORD"); ok {
		t.Fatalf("RESTOREBENCH_SASL_PASSWORD is still set (%d bytes): child processes inherit it", len(v))
	}
}
