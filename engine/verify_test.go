package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/loadgen"
)

// TestScanAllMatchesEachStore: the parallel scan gives every partition
// the state a scan of its store alone gives, in partition order.
func TestScanAllMatchesEachStore(t *testing.T) {
	stores := map[int32]Store{}
	want := map[int32]loadgen.PartitionState{}
	for _, p := range []int32{5, 0, 3, 1, 7, 2} {
		s := NewMemoryStore()
		var batch []Entry
		for i := range 200 + int(p)*37 {
			batch = append(batch, Entry{Key: fmt.Appendf(nil, "k%d-%d", p, i), Value: fmt.Appendf(nil, "v%d", i*int(p+1))})
		}
		if err := s.Write(batch); err != nil {
			t.Fatal(err)
		}
		stores[p] = s
		st, err := Scan(s)
		if err != nil {
			t.Fatal(err)
		}
		st.Partition = p
		want[p] = st
	}
	got, err := ScanAll(stores)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(stores) {
		t.Fatalf("%d states for %d stores", len(got), len(stores))
	}
	for i, st := range got {
		if i > 0 && got[i-1].Partition >= st.Partition {
			t.Fatalf("states out of partition order: %d before %d", got[i-1].Partition, st.Partition)
		}
		if st != want[st.Partition] {
			t.Errorf("partition %d: %+v, its store alone %+v", st.Partition, st, want[st.Partition])
		}
	}
}

// TestScanAllNamesTheFailedPartition: a store that cannot be read fails
// the scan with its partition named (the lowest, when several fail).
func TestScanAllNamesTheFailedPartition(t *testing.T) {
	stores := map[int32]Store{0: NewMemoryStore(), 4: failingStore{}, 2: failingStore{}, 6: NewMemoryStore()}
	_, err := ScanAll(stores)
	if err == nil || !strings.Contains(err.Error(), "partition 2: scan: unreadable") {
		t.Fatalf("error %v, want partition 2's", err)
	}
}

type failingStore struct{ closedStore }

func (failingStore) ForEach(func(k, v []byte) error) error { return errors.New("unreadable") }

// BenchmarkScanAll is verification's read-back: 4 RocksDB stores of
// 25,000 entries of the large profile's size (16-byte keys, 1000-byte
// values) scanned and digested.
func BenchmarkScanAll(b *testing.B) {
	stores := map[int32]Store{}
	value := make([]byte, 1000)
	for p := range int32(4) {
		s, err := OpenRocks(b.TempDir(), config.DefaultCase().RocksDB)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for i := 0; i < 25_000; i += 1000 {
			var batch []Entry
			for j := i; j < i+1000; j++ {
				batch = append(batch, Entry{Key: loadgen.AppendKey(nil, int64(j)), Value: value})
			}
			if err := s.Write(batch); err != nil {
				b.Fatal(err)
			}
		}
		stores[p] = s
	}
	b.SetBytes(4 * 25_000 * 1016)
	for b.Loop() {
		if _, err := ScanAll(stores); err != nil {
			b.Fatal(err)
		}
	}
}
