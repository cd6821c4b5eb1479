package heapsearch

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeCase runs out of memory below need bytes, and fails for another
// reason at the heaps in broken.
func fakeCase(need int64, broken ...int64) (Try, *[]int64) {
	var tried []int64
	return func(_ context.Context, heap int64) (Step, error) {
		tried = append(tried, heap)
		for _, b := range broken {
			if heap == b {
				return Step{Outcome: Failed, Error: "the broker went away\nmore"}, nil
			}
		}
		if heap < need {
			return Step{Outcome: OutOfMemory, Error: "java.lang.OutOfMemoryError: Java heap space"}, nil
		}
		return Step{Outcome: Verified}, nil
	}, &tried
}

// TestSearchFindsTheSmallestHeap: the search brackets the heap the case
// needs within the resolution, with the verified heap above and the
// out-of-memory one below as its answer, High first, then Low.
func TestSearchFindsTheSmallestHeap(t *testing.T) {
	try, tried := fakeCase(300 * MiB)
	res, err := Search(context.Background(), Config{Low: 64 * MiB, High: 1024 * MiB, Resolution: 16 * MiB}, try)
	if err != nil {
		t.Fatal(err)
	}
	if (*tried)[0] != 1024*MiB || (*tried)[1] != 64*MiB {
		t.Errorf("tried %v, want 1024 MiB, then 64 MiB first", *tried)
	}
	v, o := res.SmallestVerifiedBytes, res.LargestOutOfMemoryBytes
	if v < 300*MiB || o >= 300*MiB || v-o > 16*MiB || res.Inconclusive {
		t.Errorf("verified %d MiB, out of memory %d MiB (%s)", v/MiB, o/MiB, res.Answer)
	}
	if !strings.HasPrefix(res.Answer, "the smallest heap with which it completed and verified: ") || len(res.Steps) != len(*tried) || len(res.Steps) > 9 {
		t.Errorf("answer %q after %d steps", res.Answer, len(res.Steps))
	}
	for _, s := range res.Steps {
		if s.HeapBytes%MiB != 0 {
			t.Errorf("step at %d bytes, not whole MiB", s.HeapBytes)
		}
	}
}

// TestSearchSaysInconclusive: when even High runs out of memory, or a
// step fails for another reason, the answer says inconclusive and why;
// when Low verifies, it says nothing smaller was tried.
func TestSearchSaysInconclusive(t *testing.T) {
	for _, c := range []struct {
		need         int64
		broken       []int64
		want         string
		inconclusive bool
	}{
		{4096 * MiB, nil, "inconclusive: it ran out of memory even with 1024 MiB (--high)", true},
		{300 * MiB, []int64{544 * MiB}, "inconclusive: 544 MiB failed for another reason than memory (the broker went away)", true},
		{32 * MiB, nil, "it completed and verified with 64 MiB, the smallest heap tried (--low); a smaller one may do", false},
	} {
		try, _ := fakeCase(c.need, c.broken...)
		res, err := Search(context.Background(), Config{Low: 64 * MiB, High: 1024 * MiB}, try)
		if err != nil || res.Answer != c.want || res.Inconclusive != c.inconclusive {
			t.Errorf("need %d MiB: %v, %q (inconclusive %v), want %q", c.need/MiB, err, res.Answer, res.Inconclusive, c.want)
		}
	}
}

// TestSearchKeepsItsStepsOnError: an error of the search's own (Ctrl-C)
// ends it with the steps run so far.
func TestSearchKeepsItsStepsOnError(t *testing.T) {
	n := 0
	stop := errors.New("interrupted")
	res, err := Search(context.Background(), Config{}, func(context.Context, int64) (Step, error) {
		if n++; n == 3 {
			return Step{}, stop
		}
		return Step{Outcome: map[int]Outcome{1: Verified, 2: OutOfMemory}[n]}, nil
	})
	if !errors.Is(err, stop) || len(res.Steps) != 2 || res.SmallestVerifiedBytes != DefaultHigh || res.LargestOutOfMemoryBytes != DefaultLow {
		t.Errorf("%v, %+v", err, res)
	}
	if !res.Interrupted || !res.Inconclusive || !strings.HasPrefix(res.Answer, "inconclusive: the search was interrupted after 2 step(s) (interrupted)") {
		t.Errorf("an interrupted search's answer: %q (inconclusive %v, interrupted %v)", res.Answer, res.Inconclusive, res.Interrupted)
	}
}

// TestInterruptedAfterHighIsNoAnswer: a search interrupted once --high
// verified, before --low was tried, is inconclusive and never calls
// --high the smallest heap tried (--low); nor is a file of such a search
// that does not say it was interrupted (written before it did).
func TestInterruptedAfterHighIsNoAnswer(t *testing.T) {
	n := 0
	res, err := Search(context.Background(), Config{Low: 64 * MiB, High: 1024 * MiB}, func(context.Context, int64) (Step, error) {
		if n++; n == 2 {
			return Step{}, context.Canceled
		}
		return Step{Outcome: Verified}, nil
	})
	if !errors.Is(err, context.Canceled) || !res.Inconclusive || strings.Contains(res.Answer, "--low") ||
		!strings.Contains(res.Answer, "so far it verified with 1024 MiB") {
		t.Errorf("%v: %q (inconclusive %v)", err, res.Answer, res.Inconclusive)
	}
	res.Interrupted, res.Inconclusive = false, false
	if answer, inconclusive := Verdict(res); !inconclusive || answer != "inconclusive: it verified with 1024 MiB, but the search never tried --low 64 MiB" {
		t.Errorf("the file of an interrupted search: %q (inconclusive %v)", answer, inconclusive)
	}
}

// TestConfigChecks: bounds that cannot make a search are refused, naming
// the flag.
func TestConfigChecks(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Low: 8 * MiB}, "--low: 8 MiB is under 16 MiB"},
		{Config{Low: 512 * MiB, High: 256 * MiB}, "--high: 256 MiB is not above --low 512 MiB"},
		{Config{Resolution: 1000}, "--resolution: 1000 bytes is under 1 MiB"},
		{Config{High: 4096 * MiB, Max: 2048 * MiB}, "--high: 4096 MiB is over 2048 MiB, this host's memory (--low and --high lie within 16 MiB and 2048 MiB)"},
	} {
		if _, err := Search(context.Background(), c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestClassify: how a step's run reads: out of memory from the JVM's line
// in the run's error or a record's; verified only without an error and
// with every restore verified.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err      error
		records  []string
		verified bool
		want     Outcome
	}{
		{nil, nil, true, Verified},
		{errors.New("case x: instance exited; the JVM ran out of memory (Terminating due to java.lang.OutOfMemoryError: Java heap space)"), nil, false, OutOfMemory},
		{errors.New("1 restore failed"), []string{"", "java.lang.OutOfMemoryError: Direct buffer memory"}, false, OutOfMemory},
		{errors.New("broker unreachable"), nil, false, Failed},
		{nil, nil, false, Failed},
	} {
		if got, msg := Classify(c.err, c.records, c.verified); got != c.want || (got != Verified && msg == "") {
			t.Errorf("%v %v %v: %s %q, want %s", c.err, c.records, c.verified, got, msg, c.want)
		}
	}
}
