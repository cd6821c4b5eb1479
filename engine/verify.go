package engine

import (
	"fmt"
	"sort"

	"github.com/restorebench/restorebench/loadgen"
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

// ScanAll scans every store, in partition order, for verification.
func ScanAll(stores map[int32]Store) ([]loadgen.PartitionState, error) {
	parts := make([]int32, 0, len(stores))
	for p := range stores {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	out := make([]loadgen.PartitionState, 0, len(parts))
	for _, p := range parts {
		st, err := Scan(stores[p])
		if err != nil {
			return nil, fmt.Errorf("partition %d: scan: %w", p, err)
		}
		st.Partition = p
		out = append(out, st)
	}
	return out, nil
}
