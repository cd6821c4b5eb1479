package ksdriver

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/internal/boundedread"
)

// A file command is a driver command that writes its answer to a file named
// by its last argument and replies with an event once the file is whole
// (kstreams/PROTOCOL.md, "Commands"): `balances PATH` and `entries
// PARTITION PATH`. Whoever runs the process chooses PATH (a file of the
// process's own, on the machine it runs on) and hands back the file's bytes,
// so a command can be asked of a process here or on an agent alike.

// fileCommands are the file commands by name: the reply event, and how
// many arguments come before PATH, each a non-negative integer.
var fileCommands = map[string]struct {
	reply string
	args  int
}{
	"balances": {EvBalances, 0},
	"entries":  {EvEntries, 1},
}

// MaxFileCommandBytes bounds the file a file command writes that is read
// back (64 MiB: the entries of a partition of about a million keys).
const MaxFileCommandBytes = 64 << 20

// ParseFileCommand checks line, a file command without its PATH
// ("balances", "entries 3"), and returns the event that replies to it.
func ParseFileCommand(line string) (reply string, err error) {
	f := strings.Fields(line)
	if len(f) == 0 || strings.Join(f, " ") != line {
		return "", fmt.Errorf("file command %.60q: want a name and its arguments, one space apart", line)
	}
	c, ok := fileCommands[f[0]]
	if !ok {
		return "", fmt.Errorf("file command %.60q: not one of balances, entries PARTITION", line)
	}
	if len(f)-1 != c.args {
		return "", fmt.Errorf("file command %.60q: %s takes %d argument(s) before its path", line, f[0], c.args)
	}
	for _, a := range f[1:] {
		if n, err := strconv.ParseInt(a, 10, 32); err != nil || n < 0 || a != strconv.FormatInt(n, 10) {
			return "", fmt.Errorf("file command %.60q: %q is not a partition number", line, a)
		}
	}
	return c.reply, nil
}

// FileCommand has the instance run the file command line with path as
// its file, one file command at a time, and returns the file's bytes (at
// most MaxFileCommandBytes); the file is removed afterwards.
func (in *Instance) FileCommand(ctx context.Context, line, path string) ([]byte, error) {
	reply, err := ParseFileCommand(line)
	if err != nil {
		return nil, err
	}
	in.fileMu.Lock()
	defer in.fileMu.Unlock()
	defer os.Remove(path)
	if _, err := in.Request(ctx, line+" "+path, reply); err != nil {
		return nil, err
	}
	return boundedread.ReadFile(path, MaxFileCommandBytes)
}
