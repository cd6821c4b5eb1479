package engine

import (
	"fmt"
	"runtime"
	"sort"

	"golang.org/x/sync/errgroup"

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

// ScanAll scans every store for verification and returns their states in
// partition order. The stores are independent, so they are scanned on up
// to one goroutine per core: reading them back and digesting every entry
// is CPU work (iterator steps through cgo, the digest's hash over every
// byte), and one goroutine left the other cores idle while the run waited.
func ScanAll(stores map[int32]Store) ([]loadgen.PartitionState, error) {
	parts := make([]int32, 0, len(stores))
	for p := range stores {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	out := make([]loadgen.PartitionState, len(parts))
	errs := make([]error, len(parts))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range parts {
		g.Go(func() error {
			st, err := Scan(stores[p])
			st.Partition = p
			out[i], errs[i] = st, err
			return nil
		})
	}
	g.Wait()
	for i, err := range errs { // the lowest partition's error, as a sequential scan reports
		if err != nil {
			return nil, fmt.Errorf("partition %d: scan: %w", parts[i], err)
		}
	}
	return out, nil
}

// Entries is a store's live entries key by key (key → loadgen.EntryHash
// of its entry), the digest Scan sums taken apart, so a store that did not
// verify can name the key it holds wrong. A nil store has none.
func Entries(s Store) (map[string]uint64, error) {
	out := map[string]uint64{}
	if s == nil {
		return out, nil
	}
	err := s.ForEach(func(k, v []byte) error {
		out[string(k)] = loadgen.EntryHash(k, v)
		return nil
	})
	return out, err
}
