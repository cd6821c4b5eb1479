// Package heapsearch finds the smallest JVM heap (-Xmx, a case's jvm_heap)
// with which a kafka-streams case completes and verifies: its restore, or
// its restore and a standby following a write load. It bisects between two
// heaps, running the case once per step; a step that runs out of memory is
// a finding (the heap below the answer, and what it died of), not a
// failure of the search. Kafka Streams buffers restoring and standby
// records with no cap of its own, so the heap a restore needs grows with
// the record size and max.poll.records: the answer holds for the case's
// records and settings only, which the result names.
package heapsearch

import (
	"context"
	"fmt"
	"strings"
)

// Schema names the JSON a search writes (Result).
const Schema = "restorebench.heap/v1"

// FileName is the name of the file a search's Result is written to.
const FileName = "heap.json"

// MiB is one mebibyte: heaps are chosen in whole MiB.
const MiB = 1 << 20

// Config bounds a search.
type Config struct {
	// Low and High are the heaps it searches between, in bytes. Default
	// 64 MiB and 2 GiB.
	Low, High int64
	// Resolution ends the search once the smallest heap that completed
	// and the largest that did not lie within it. Default 16 MiB.
	Resolution int64
	// Max is the largest heap High may be (the caller passes this host's
	// memory: a JVM is never started with an -Xmx the host cannot give).
	// Default 0: no bound.
	Max int64
}

// Defaults for Config.
const (
	DefaultLow        = 64 * MiB
	DefaultHigh       = 2048 * MiB
	DefaultResolution = 16 * MiB
	// MinHeap is the smallest heap a search may try: below it the JVM
	// cannot start Kafka Streams at all, which says nothing of a restore.
	MinHeap = 16 * MiB
	// maxSteps bounds a search: bisection over any range this allows ends
	// well within it.
	maxSteps = 24
)

// Resolve fills what c leaves unset with the defaults and checks it: an
// error names the flag (--low, --high, --resolution) that cannot be.
func (c Config) Resolve() (Config, error) {
	if c.Low == 0 {
		c.Low = DefaultLow
	}
	if c.High == 0 {
		c.High = DefaultHigh
	}
	if c.Resolution == 0 {
		c.Resolution = DefaultResolution
	}
	switch {
	case c.Low < MinHeap:
		return c, fmt.Errorf("--low: %d MiB is under %d MiB, in which the JVM cannot start Kafka Streams%s", c.Low/MiB, MinHeap/MiB, c.span())
	case c.Max > 0 && c.High > c.Max:
		return c, fmt.Errorf("--high: %d MiB is over %d MiB, this host's memory%s", c.High/MiB, c.Max/MiB, c.span())
	case c.High <= c.Low:
		return c, fmt.Errorf("--high: %d MiB is not above --low %d MiB", c.High/MiB, c.Low/MiB)
	case c.Resolution < MiB:
		return c, fmt.Errorf("--resolution: %d bytes is under 1 MiB", c.Resolution)
	}
	return c, nil
}

// span says the range --low and --high must lie in, for their errors.
func (c Config) span() string {
	if c.Max <= 0 {
		return ""
	}
	return fmt.Sprintf(" (--low and --high lie within %d MiB and %d MiB)", MinHeap/MiB, c.Max/MiB)
}

// Outcome is how one step ended.
type Outcome string

const (
	// Verified: the case completed and every restore verified.
	Verified Outcome = "verified"
	// OutOfMemory: the JVM ran out of heap (java.lang.OutOfMemoryError).
	OutOfMemory Outcome = "out-of-memory"
	// Failed: it failed for another reason, which the search cannot read
	// as a heap's verdict.
	Failed Outcome = "failed"
)

// Step is one run of the case at one heap.
type Step struct {
	HeapBytes int64   `json:"heap_bytes"`
	Outcome   Outcome `json:"outcome"`
	// Error is what ended a step that did not verify (the JVM's
	// OutOfMemoryError line among it).
	Error string `json:"error,omitempty"`
	// Seconds is the step's wall time.
	Seconds float64 `json:"seconds"`
	// Run is the directory of the step's results.json.
	Run string `json:"run,omitempty"`
}

// Result is a search: every step in the order run, and the answer.
type Result struct {
	Schema string `json:"schema"`
	// Profile and Case name what was run; Records says its records (the
	// fill's value sizes and the case's max.poll.records), for which alone
	// the answer holds.
	Profile string `json:"profile"`
	Case    string `json:"case"`
	Records string `json:"records"`
	Config  struct {
		LowBytes        int64 `json:"low_bytes"`
		HighBytes       int64 `json:"high_bytes"`
		ResolutionBytes int64 `json:"resolution_bytes"`
	} `json:"config"`
	Steps []Step `json:"steps"`
	// SmallestVerifiedBytes is the smallest heap with which the case
	// verified (0: none did); LargestOutOfMemoryBytes the largest with
	// which it ran out of memory (0: none did).
	SmallestVerifiedBytes   int64 `json:"smallest_verified_heap_bytes"`
	LargestOutOfMemoryBytes int64 `json:"largest_out_of_memory_heap_bytes"`
	// Answer says it in a sentence; Inconclusive says the steps could not
	// decide (a step failed for another reason, even High did not verify,
	// or the search was interrupted).
	Answer       string `json:"answer"`
	Inconclusive bool   `json:"inconclusive"`
	// Interrupted says an error of the search's own (Ctrl-C, the broker
	// gone) ended it before it finished: its steps are kept, its answer is
	// inconclusive. False in a heap.json written before the field existed.
	Interrupted bool `json:"interrupted"`
	// stop is the error that interrupted the search, for its answer.
	stop error
}

// Try runs the case once with heap bytes of heap and says how it ended.
// An error is the search's own failure (the broker gone, Ctrl-C), which
// ends it; a step that fails is a Step, not an error.
type Try func(ctx context.Context, heap int64) (Step, error)

// Search bisects between c.Low and c.High: High first (if even it does not
// verify, the answer is inconclusive), then Low (if it verifies, Low is
// the answer: nothing smaller was tried), then the midpoints, in whole
// MiB, until the verified and the out-of-memory heaps lie within
// c.Resolution. A step that fails for another reason ends the search as
// inconclusive: its heap's verdict is unknown. The result holds every step
// run, also when an error ends the search.
func Search(ctx context.Context, c Config, try Try) (*Result, error) {
	c, err := c.Resolve()
	if err != nil {
		return nil, err
	}
	res := &Result{Schema: Schema}
	res.Config.LowBytes, res.Config.HighBytes, res.Config.ResolutionBytes = c.Low, c.High, c.Resolution
	run := func(heap int64) (Outcome, error) {
		s, err := try(ctx, heap)
		if err != nil {
			res.Interrupted, res.stop = true, err
			return "", err
		}
		s.HeapBytes = heap
		res.Steps = append(res.Steps, s)
		switch s.Outcome {
		case Verified:
			if res.SmallestVerifiedBytes == 0 || heap < res.SmallestVerifiedBytes {
				res.SmallestVerifiedBytes = heap
			}
		case OutOfMemory:
			res.LargestOutOfMemoryBytes = max(res.LargestOutOfMemoryBytes, heap)
		}
		return s.Outcome, nil
	}
	finish := func(err error) (*Result, error) {
		res.Answer, res.Inconclusive = answer(res, c)
		return res, err
	}
	if o, err := run(c.High); err != nil || o != Verified {
		return finish(err)
	}
	if o, err := run(c.Low); err != nil || o != OutOfMemory {
		return finish(err)
	}
	lo, hi := c.Low, c.High
	for len(res.Steps) < maxSteps && hi-lo > c.Resolution {
		mid := (lo + hi) / 2 / MiB * MiB
		if mid <= lo || mid >= hi {
			break
		}
		o, err := run(mid)
		if err != nil {
			return finish(err)
		}
		switch o {
		case Verified:
			hi = mid
		case OutOfMemory:
			lo = mid
		default:
			return finish(nil)
		}
	}
	return finish(nil)
}

// Verdict is what res's own steps and bounds decide, and whether that is
// inconclusive, whatever its Answer and Inconclusive say: plan --heap
// reads a heap.json through it, so a file of an interrupted search written
// before it said so (or edited) is not taken for an answer.
func Verdict(res *Result) (string, bool) {
	return answer(res, Config{Low: res.Config.LowBytes, High: res.Config.HighBytes, Resolution: res.Config.ResolutionBytes})
}

// answer says what the steps found, and whether that is inconclusive.
func answer(res *Result, c Config) (string, bool) {
	mib := func(b int64) string { return fmt.Sprintf("%d MiB", b/MiB) }
	if res.Interrupted {
		return interruptedAnswer(res), true
	}
	var failed []string
	for _, s := range res.Steps {
		if s.Outcome == Failed {
			failed = append(failed, fmt.Sprintf("%s failed for another reason than memory (%s)", mib(s.HeapBytes), FirstLine(s.Error)))
		}
	}
	switch {
	case len(res.Steps) == 0:
		return "inconclusive: no step ran", true
	case len(failed) > 0:
		return "inconclusive: " + strings.Join(failed, "; "), true
	case res.SmallestVerifiedBytes == 0:
		return fmt.Sprintf("inconclusive: it ran out of memory even with %s (--high)", mib(c.High)), true
	case res.LargestOutOfMemoryBytes == 0 && res.SmallestVerifiedBytes != c.Low:
		return fmt.Sprintf("inconclusive: it verified with %s, but the search never tried --low %s", mib(res.SmallestVerifiedBytes), mib(c.Low)), true
	case res.LargestOutOfMemoryBytes == 0:
		return fmt.Sprintf("it completed and verified with %s, the smallest heap tried (--low); a smaller one may do", mib(res.SmallestVerifiedBytes)), false
	}
	return fmt.Sprintf("the smallest heap with which it completed and verified: %s; with %s it ran out of memory", mib(res.SmallestVerifiedBytes),
		mib(res.LargestOutOfMemoryBytes)), false
}

// interruptedAnswer is the answer of a search an error of its own ended:
// inconclusive, with what its steps found so far.
func interruptedAnswer(res *Result) string {
	why := ""
	if res.stop != nil {
		why = " (" + FirstLine(res.stop.Error()) + ")"
	}
	found := "no step finished"
	if v, o := res.SmallestVerifiedBytes, res.LargestOutOfMemoryBytes; v > 0 || o > 0 {
		var parts []string
		if v > 0 {
			parts = append(parts, fmt.Sprintf("it verified with %d MiB", v/MiB))
		}
		if o > 0 {
			parts = append(parts, fmt.Sprintf("ran out of memory with %d MiB", o/MiB))
		}
		found = "so far " + strings.Join(parts, " and ")
	}
	return fmt.Sprintf("inconclusive: the search was interrupted after %d step(s)%s, before it finished; %s", len(res.Steps), why, found)
}

// FirstLine is the first line of s, at most 300 bytes: a step's error as
// an answer or a terminal line quotes it.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Classify reads how a step's run ended: verified when it returned no
// error and every restore verified; out of memory when its error or a
// record's says the JVM ran out of memory; else failed.
func Classify(runErr error, recordErrors []string, allVerified bool) (Outcome, string) {
	var msgs []string
	if runErr != nil {
		msgs = append(msgs, runErr.Error())
	}
	for _, e := range recordErrors {
		if e != "" {
			msgs = append(msgs, e)
		}
	}
	msg := strings.Join(msgs, "; ")
	switch {
	case strings.Contains(msg, "OutOfMemoryError") || strings.Contains(msg, "ran out of memory"):
		return OutOfMemory, msg
	case runErr == nil && allVerified:
		return Verified, ""
	case msg == "":
		msg = "not every restore verified"
	}
	return Failed, msg
}
