package warmup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPredictionBoundsAndCancellation: inputs past what a simulation can
// hold are refused naming the input and the bound; a large simulation
// stops soon after its context is cancelled, with the context's error
// (Ctrl-C works), and the sampled prediction is the same as before
// keeping only each sample's total.
func TestPredictionBoundsAndCancellation(t *testing.T) {
	base := small(8, 2, 4, 2, 10_000)
	base.Order = nil
	for _, c := range []struct {
		edit func(*Inputs)
		want string
	}{
		{func(in *Inputs) { in.TaskOffsets = make([]int64, MaxTasks+1) }, "tasks: 100001 is over 100000"},
		{func(in *Inputs) { in.After = MaxClients + 1 }, "after: 1001 is over 1000"},
		{func(in *Inputs) { in.TaskOffsets, in.After = make([]int64, 20_000), 600 }, "after × tasks: 600 × 20000 is over 10000000"},
		{func(in *Inputs) { in.Samples = MaxSamples + 1 }, "samples: 10001 must be between 1 and 10000"},
		{func(in *Inputs) { in.Samples = -1 }, "samples: -1 must be between 1"},
		{func(in *Inputs) { in.Threads = 1 << 20 }, "threads: 1048576 is over 1024"},
	} {
		in := base
		c.edit(&in)
		if _, err := Predict(in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}

	// The median prediction is whole: its plan per task and its rounds.
	in := base
	in.Samples = 31
	p, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 8 || len(p.Rounds) == 0 || p.Spread == nil || p.Spread.Samples != 31 || p.TotalSeconds != p.Spread.MedianSeconds || p.Spread.MinSeconds > p.TotalSeconds || p.Spread.MaxSeconds < p.TotalSeconds {
		t.Fatalf("spread %+v, total %v", p.Spread, p.TotalSeconds)
	}

	// A simulation of minutes stops within seconds of the cancel.
	big := base
	big.TaskOffsets = Uniform(MaxTasks, 1_000_000)
	big.Standbys = 1
	for _, proto := range []string{ProtocolClassic, ProtocolStreams} {
		big.Protocol = proto
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		start := time.Now()
		_, err := PredictContext(ctx, big)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: error %v, want the context's", proto, err)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Fatalf("%s: stopped %s after the start, 500ms after which it was cancelled", proto, d)
		}
	}
}
