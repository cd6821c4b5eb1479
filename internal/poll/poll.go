// Package poll is the one "ask again until it holds" loop: a condition
// asked at once and then every interval, until it holds, fails, the context
// ends or a deadline passes. It replaces hand-written loops of
// check / sleep / deadline that each ordered those steps their own way.
package poll

import (
	"context"
	"errors"
	"time"
)

// Cond is the condition Until asks: done when it holds; an error ends the
// wait with that error, as it is.
type Cond func(ctx context.Context) (done bool, err error)

// ErrTimeout is what the error of a wait whose deadline passed wraps
// (errors.Is), for a caller that words the timeout from what it saw last.
var ErrTimeout = errors.New("timed out")

// timeoutError is a passed deadline: its text is what the caller said it
// was waiting for, as the caller words it.
type timeoutError struct{ what string }

func (e *timeoutError) Error() string {
	if e.what == "" {
		return ErrTimeout.Error()
	}
	return e.what
}

func (e *timeoutError) Is(target error) bool { return target == ErrTimeout }

// Until asks cond at once and then every interval until it is done (nil),
// returns an error (that error), ctx ends (ctx.Err(), at once, also during
// a wait) or timeout has passed since the call. The timeout's error says
// what, the caller's words for what did not happen (such as "topic t:
// created, but not listed after 15s"), and wraps ErrTimeout. A timeout of
// 0 or less (what is left of a budget already spent) still asks cond once.
// cond is asked once more after the deadline passed during a wait, so a wait
// never times out without a last look.
func Until(ctx context.Context, interval, timeout time.Duration, what string, cond Cond) error {
	return UntilTime(ctx, interval, time.Now().Add(timeout), what, cond)
}

// UntilTime is Until with a deadline as a time; the zero time is none (only
// ctx ends the wait).
func UntilTime(ctx context.Context, interval time.Duration, deadline time.Time, what string, cond Cond) error {
	for {
		done, err := cond(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return &timeoutError{what: what}
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
