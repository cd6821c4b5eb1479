package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/restorebench/restorebench/internal/termsafe"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			stop() // a second Ctrl-C kills the process at once
			fmt.Fprintln(os.Stderr, "\nrestorebench: interrupted; stopping cleanly and keeping finished results (Ctrl-C again to kill)")
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
