package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
)

// Scan counts a store's live entries, their bytes and their digest.
func Scan(s Store) (loadgen.PartitionState, error) {
	var st loadgen.PartitionState
	err := s.ForEach(func(k, v []byte) error {
		st.Keys++
		st.LiveBytes += int64(len(k) + len(v))
		st.Digest.Add(k, v)
		return nil
	})
	return st, err
}

// Verify checks every store against the expected state. It returns true only
// when every partition has exactly the expected key count and digest, and
// the stores cover exactly the expected partitions.
func Verify(stores map[int32]Store, expected []loadgen.PartitionState) (bool, measure.Verification) {
	v := measure.Verification{Mode: "expected-state"}
	ok := true
	var problems []string
	if len(stores) != len(expected) {
		ok = false
		problems = append(problems, fmt.Sprintf("restored %d partitions, expected %d", len(stores), len(expected)))
	}
	for _, exp := range expected {
		s, have := stores[exp.Partition]
		check := measure.PartitionCheck{Partition: exp.Partition, ExpectedKeys: exp.Keys, ExpectedDigest: exp.Digest}
		if !have {
			ok = false
			problems = append(problems, fmt.Sprintf("partition %d: no store", exp.Partition))
			v.Partitions = append(v.Partitions, check)
			continue
		}
		got, err := Scan(s)
		if err != nil {
			ok = false
			problems = append(problems, fmt.Sprintf("partition %d: scan: %v", exp.Partition, err))
		}
		check.ActualKeys, check.ActualDigest, check.LiveBytes = got.Keys, got.Digest, got.LiveBytes
		check.OK = err == nil && got.Keys == exp.Keys && got.Digest == exp.Digest && got.LiveBytes == exp.LiveBytes
		if !check.OK && err == nil {
			ok = false
			problems = append(problems, fmt.Sprintf("partition %d: %d keys (digest %s), expected %d keys (digest %s)",
				exp.Partition, got.Keys, got.Digest, exp.Keys, exp.Digest))
		}
		v.Partitions = append(v.Partitions, check)
	}
	if !ok {
		v.Problem = strings.Join(problems, "; ")
	}
	return ok, v
}

// Census counts what the stores hold without an expected state, for a
// changelog the tool did not fill. The result is never verified.
func Census(stores map[int32]Store) (measure.Verification, error) {
	v := measure.Verification{Mode: "unverified", Problem: "topic was not filled by restorebench: contents counted, not checked"}
	ps := make([]int32, 0, len(stores))
	for p := range stores {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	for _, p := range ps {
		got, err := Scan(stores[p])
		if err != nil {
			return v, fmt.Errorf("partition %d: scan: %w", p, err)
		}
		v.Partitions = append(v.Partitions, measure.PartitionCheck{Partition: p, ActualKeys: got.Keys, ActualDigest: got.Digest, LiveBytes: got.LiveBytes})
	}
	return v, nil
}
