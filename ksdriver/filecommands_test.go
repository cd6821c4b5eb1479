package ksdriver

import (
	"strings"
	"testing"
)

// TestParseFileCommand: the driver's file commands are taken with their
// own arguments only; anything else (another command, a path, a flag,
// a second line) is refused, naming the line.
func TestParseFileCommand(t *testing.T) {
	for line, want := range map[string]string{"balances": EvBalances, "entries 0": EvEntries, "entries 17": EvEntries} {
		if got, err := ParseFileCommand(line); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", line, got, err, want)
		}
	}
	for _, bad := range []string{"", "stop", "digest", "balances /etc/passwd", "entries", "entries -1", "entries 01",
		"entries 3 /tmp/x", "entries x", "entries  3", "entries 3\nstop", "entries 99999999999"} {
		if _, err := ParseFileCommand(bad); err == nil || !strings.Contains(err.Error(), "file command") {
			t.Errorf("%q: %v, want a refusal", bad, err)
		}
	}
}
