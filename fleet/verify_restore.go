package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/runs"
	"github.com/restorebench/restorebench/verify"
)

// Verifying what a restore holds, the same for both engines and every
// placement: the model's scanned stores and an instance's digest alike.

// VerifyInto checks what a restore holds against the target's expected
// state and records the outcome; a topic without one is only counted.
func VerifyInto(rec *runs.Restore, t Target, actual []loadgen.PartitionState) (runs.Restore, error) {
	if t.Expected == nil {
		rec.Verification = verify.Census(actual)
		return *rec, nil
	}
	ok, v := verify.Check(t.Expected, actual)
	rec.Verified, rec.Verification = ok, v
	if !ok {
		if rec.Read != nil && rec.Read.Note != "" {
			v.Problem += " (restored " + rec.Read.Note + ")"
			rec.Verification = v
		}
		rec.Error = "verification failed: " + v.Problem
		return *rec, fmt.Errorf("%w: case %s #%d: %s", ErrUnverified, rec.Case, rec.Repeat, v.Problem)
	}
	return *rec, nil
}

// EntriesOf reads one restored partition's live entries key by key: key →
// loadgen.EntryHash of its entry as the store holds it.
type EntriesOf func(ctx context.Context, partition int32) (map[string]uint64, error)

// NameDifference amends a record that did not verify against an
// independent read of a topic restorebench did not fill with the key it
// got wrong: the first partition that differed is read again key by key,
// from the topic (Target.TopicEntries) and from the store (restored), and
// the lowest differing key is named (verify.FirstDifference). A read that
// cannot name it says why; err, the verification's, is returned with the
// key added. A record that verified, or a fill's, is left as it is.
func NameDifference(ctx context.Context, rec *runs.Restore, t Target, restored EntriesOf, err error) error {
	if rec.Verified || t.TopicEntries == nil || restored == nil || !errors.Is(err, ErrUnverified) {
		return err
	}
	p, found := FirstFailed(rec.Verification)
	if !found {
		return err
	}
	text := keyDifference(ctx, t, p, restored)
	rec.Verification.Problem += "; " + text
	rec.Error += "; " + text
	return fmt.Errorf("%w; %s", err, text)
}

// keyDifference is nameDifference's text for partition p.
func keyDifference(ctx context.Context, t Target, p int32, restored EntriesOf) string {
	want, err := t.TopicEntries(ctx, p)
	if err != nil {
		return fmt.Sprintf("partition %d's differing key not named: reading the topic key by key: %v", p, err)
	}
	got, err := restored(ctx, p)
	if err != nil {
		return fmt.Sprintf("partition %d's differing key not named: reading the store key by key: %v", p, err)
	}
	if d := verify.FirstDifference(p, want, got); d != "" {
		return d
	}
	return fmt.Sprintf("partition %d: key by key the store and the topic agree: "+
		"their digests differ by a hash collision, or the topic changed between the reads", p)
}

// FirstFailed is the lowest partition a verification failed.
func FirstFailed(v verify.Result) (int32, bool) {
	for _, pc := range v.Partitions {
		if !pc.OK {
			return pc.Partition, true
		}
	}
	return 0, false
}
