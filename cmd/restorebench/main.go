package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/restorebench/restorebench/internal/termsafe"
)

// interruptNote says what a command does when interrupted; a command that
// does something else (the agent) stores its own.
var interruptNote atomic.Pointer[string]

func init() {
	note := "stopping cleanly and keeping finished results"
	interruptNote.Store(&note)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			stop() // a second Ctrl-C kills the process at once
			fmt.Fprintf(os.Stderr, "\nrestorebench: interrupted; %s (Ctrl-C again to kill)\n", *interruptNote.Load())
		case <-finished:
		}
	}()
	root, g := newRoot()
	err := root.ExecuteContext(ctx)
	g.stopProfile() // also after a failure, which skips PersistentPostRun
	close(finished)
	stop()
	if err != nil {
		fmt.Fprint(os.Stderr, errorLine(err))
		if errors.Is(err, context.Canceled) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}

// errorLine is how a failed command's error is printed: an error may quote
// a results file or a profile, so its control characters are escaped
// (termsafe.Lines) before they reach the terminal.
func errorLine(err error) string {
	return "restorebench: " + termsafe.Lines(err.Error()) + "\n"
}
