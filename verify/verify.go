package verify

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/restorebench/restorebench/loadgen"
)

// Modes of a Result.
const (
	// ModeExpectedState: checked against the state derived from the fill's spec.
	ModeExpectedState = "expected-state"
	// ModeUnverified: a topic restorebench did not fill; contents counted only.
	ModeUnverified = "unverified"
)

// Result is the check of restored stores against the expected state, as
// results.json records it.
type Result struct {
	// Mode is "expected-state" or "unverified".
	Mode       string           `json:"mode"`
	Partitions []PartitionCheck `json:"partitions"`
	Problem    string           `json:"problem,omitempty"`
}

// PartitionCheck compares one store with its expected state.
type PartitionCheck struct {
	Partition         int32          `json:"partition"`
	ExpectedKeys      int64          `json:"expected_keys"`
	ActualKeys        int64          `json:"actual_keys"`
	ExpectedLiveBytes int64          `json:"expected_live_bytes,omitempty"`
	ExpectedDigest    loadgen.Digest `json:"expected_digest"`
	ActualDigest      loadgen.Digest `json:"actual_digest"`
	LiveBytes         int64          `json:"live_bytes"`
	OK                bool           `json:"ok"`
}

// Check compares the restored partitions with the expected ones. It returns
// true only when the restored partitions are exactly the expected ones and
// each has exactly the expected key count, live bytes and digest.
func Check(expected, actual []loadgen.PartitionState) (bool, Result) {
	v := Result{Mode: ModeExpectedState}
	got := map[int32]loadgen.PartitionState{}
	for _, a := range actual {
		got[a.Partition] = a
	}
	var problems []string
	if len(actual) != len(expected) {
		problems = append(problems, fmt.Sprintf("restored %d partitions, expected %d", len(actual), len(expected)))
	}
	want := map[int32]bool{}
	for _, exp := range expected {
		want[exp.Partition] = true
		a, have := got[exp.Partition]
		check := PartitionCheck{Partition: exp.Partition, ExpectedKeys: exp.Keys, ExpectedLiveBytes: exp.LiveBytes, ExpectedDigest: exp.Digest}
		if !have {
			problems = append(problems, fmt.Sprintf("partition %d: not restored", exp.Partition))
			v.Partitions = append(v.Partitions, check)
			continue
		}
		check.ActualKeys, check.ActualDigest, check.LiveBytes = a.Keys, a.Digest, a.LiveBytes
		check.OK = a.Keys == exp.Keys && a.Digest == exp.Digest && a.LiveBytes == exp.LiveBytes
		if !check.OK {
			problems = append(problems, fmt.Sprintf("partition %d: %d keys, %d live bytes (digest %s), expected %d keys, %d live bytes (digest %s)",
				exp.Partition, a.Keys, a.LiveBytes, a.Digest, exp.Keys, exp.LiveBytes, exp.Digest))
		}
		v.Partitions = append(v.Partitions, check)
	}
	for _, a := range sorted(actual) {
		if !want[a.Partition] {
			problems = append(problems, fmt.Sprintf("partition %d: restored but not expected", a.Partition))
		}
	}
	if len(problems) > 0 {
		v.Problem = strings.Join(problems, "; ")
		return false, v
	}
	return true, v
}

// Census records what the restored partitions hold without an expected
// state, for a changelog restorebench did not fill. It is never verified.
func Census(actual []loadgen.PartitionState) Result {
	v := Result{Mode: ModeUnverified, Problem: "topic was not filled by restorebench: contents counted, not checked"}
	for _, a := range sorted(actual) {
		v.Partitions = append(v.Partitions, PartitionCheck{Partition: a.Partition, ActualKeys: a.Keys, ActualDigest: a.Digest, LiveBytes: a.LiveBytes})
	}
	return v
}

// Totals sums the live keys and bytes the result's partitions hold.
func (r Result) Totals() (keys, liveBytes int64) {
	for _, p := range r.Partitions {
		keys += p.ActualKeys
		liveBytes += p.LiveBytes
	}
	return keys, liveBytes
}

func sorted(states []loadgen.PartitionState) []loadgen.PartitionState {
	s := append([]loadgen.PartitionState(nil), states...)
	sort.Slice(s, func(i, j int) bool { return s[i].Partition < s[j].Partition })
	return s
}

// FirstDifference names where a restored partition's entries and the
// topic's differ, key by key (each map: key → loadgen.EntryHash of its
// entry): how many keys differ and the lowest such key in byte order,
// with what is wrong with it. It returns "" when they agree (the digest
// then differed by a hash collision, which a caller should say).
func FirstDifference(partition int32, topic, restored map[string]uint64) string {
	var differ int
	var first, what string
	note := func(k, why string) {
		differ++
		if differ == 1 || k < first {
			first, what = k, why
		}
	}
	for k, want := range topic {
		got, ok := restored[k]
		switch {
		case !ok:
			note(k, "in the topic, missing from the store")
		case got != want:
			note(k, "the store holds another value than the topic's last")
		}
	}
	for k := range restored {
		if _, ok := topic[k]; !ok {
			note(k, "in the store, not live in the topic")
		}
	}
	if differ == 0 {
		return ""
	}
	return fmt.Sprintf("partition %d: %d key(s) differ; the first, key %s: %s", partition, differ, KeyText([]byte(first)), what)
}

// KeyText shows a key as people read it: quoted when it is printable
// UTF-8 of at most 64 bytes, else as hex (its first 64 bytes, and its
// length).
func KeyText(k []byte) string {
	printable := utf8.Valid(k) && len(k) <= 64
	for _, r := range string(k) {
		if !unicode.IsPrint(r) {
			printable = false
			break
		}
	}
	if printable {
		return strconv.Quote(string(k))
	}
	if len(k) > 64 {
		return fmt.Sprintf("0x%x… (%d bytes)", k[:64], len(k))
	}
	return fmt.Sprintf("0x%x", k)
}
