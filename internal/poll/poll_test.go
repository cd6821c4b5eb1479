package poll

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestUntilDoneAtOnce: a condition that already holds returns nil without
// waiting an interval.
func TestUntilDoneAtOnce(t *testing.T) {
	calls := 0
	start := time.Now()
	err := Until(context.Background(), time.Hour, time.Hour, "never", func(context.Context) (bool, error) {
		calls++
		return true, nil
	})
	if err != nil || calls != 1 || time.Since(start) > time.Second {
		t.Fatalf("got %v after %d calls and %s, want nil after 1 call at once", err, calls, time.Since(start))
	}
}

// TestUntilPollsUntilDone: the condition is asked again every interval until
// it holds.
func TestUntilPollsUntilDone(t *testing.T) {
	calls := 0
	err := Until(context.Background(), time.Millisecond, time.Minute, "three calls", func(context.Context) (bool, error) {
		calls++
		return calls == 3, nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("got %v after %d calls, want nil after 3", err, calls)
	}
}

// TestUntilCancelStopsPromptly: cancelling ctx ends a wait at once with
// ctx's error, neither waiting out the interval nor calling it a timeout.
func TestUntilCancelStopsPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	err := UntilTime(ctx, time.Hour, time.Time{}, "never", func(context.Context) (bool, error) { return false, nil })
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("cancel took %s to stop the wait", time.Since(start))
	}
}

// TestUntilTimeoutSaysWhat: past the deadline the error is the caller's
// words for what did not happen, and wraps ErrTimeout; the condition had a
// last look after the deadline passed.
func TestUntilTimeoutSaysWhat(t *testing.T) {
	what := "topic t: created, but not listed with 3 partitions after 30ms"
	start := time.Now()
	var last time.Time
	err := Until(context.Background(), 10*time.Millisecond, 30*time.Millisecond, what, func(context.Context) (bool, error) {
		last = time.Now()
		return false, nil
	})
	if !errors.Is(err, ErrTimeout) || err.Error() != what {
		t.Fatalf("got %v, want the timeout %q", err, what)
	}
	if last.Sub(start) < 30*time.Millisecond {
		t.Fatalf("last look %s after the start, want one after the 30ms deadline", last.Sub(start))
	}
}

// TestUntilConditionError: the condition's error ends the wait, as it is.
func TestUntilConditionError(t *testing.T) {
	boom := errors.New("broker gone")
	err := Until(context.Background(), time.Millisecond, time.Minute, "never", func(context.Context) (bool, error) {
		return false, boom
	})
	if err != boom {
		t.Fatalf("got %v, want the condition's error", err)
	}
}

// TestUntilSpentBudget: a timeout already spent (0 or less, what is left of
// a budget) or a deadline already passed gives the condition one look and
// then times out, never waiting without a limit; the zero time is no
// deadline.
func TestUntilSpentBudget(t *testing.T) {
	for _, wait := range []func(Cond) error{
		func(c Cond) error { return Until(context.Background(), time.Hour, 0, "spent", c) },
		func(c Cond) error { return Until(context.Background(), time.Hour, -time.Second, "spent", c) },
		func(c Cond) error {
			return UntilTime(context.Background(), time.Hour, time.Now().Add(-time.Second), "spent", c)
		},
	} {
		calls := 0
		err := wait(func(context.Context) (bool, error) {
			calls++
			return false, nil
		})
		if !errors.Is(err, ErrTimeout) || calls != 1 {
			t.Fatalf("got %v after %d calls, want a timeout after 1", err, calls)
		}
	}
	calls := 0
	err := UntilTime(context.Background(), time.Millisecond, time.Time{}, "none", func(context.Context) (bool, error) {
		calls++
		return calls == 5, nil
	})
	if err != nil {
		t.Fatalf("no deadline: got %v", err)
	}
}
