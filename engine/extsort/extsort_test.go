package extsort

import (
	"github.com/restorebench/restorebench/internal/kvtest"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// sortAndCollect adds ops to a sorter, checking the buffer bound after every
// add, and returns the merged output.
func sortAndCollect(t *testing.T, s *Sorter, ops []kvtest.KV) []kvtest.KV {
	t.Helper()
	for _, op := range ops {
		if err := s.Add(op.K, op.V); err != nil {
			t.Fatal(err)
		}
		if h, bound := s.Held(), s.limit+s.Stats().MaxEntry; h > bound {
			t.Fatalf("buffer holds %d bytes, over the %d-byte limit by more than one entry", h, s.limit)
		}
	}
	var out []kvtest.KV
	err := s.Merge(context.Background(), func(k, v []byte) error {
		if v == nil {
			return fmt.Errorf("key %q emitted with a nil value", k)
		}
		out = append(out, kvtest.KV{K: bytes.Clone(k), V: bytes.Clone(v)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExtSortMatchesReplay(t *testing.T) {
	cases := []struct {
		name                  string
		n, keys, maxValue     int
		tomb                  float64
		limit                 int64
		fanIn                 int
		wantSpills, wantMerge bool
	}{
		{"many spills", 10_000, 500, 200, 0.2, 4 << 10, 0, true, true},
		{"one merge pass", 2_500, 500, 200, 0.2, 4 << 10, 0, true, false},
		{"multi-pass merge", 10_000, 500, 200, 0.2, 4 << 10, 3, true, true},
		{"mostly tombstones", 10_000, 300, 50, 0.8, 4 << 10, 5, true, true},
		{"entries larger than the buffer", 300, 40, 8 << 10, 0.2, 4 << 10, 4, true, true},
		{"fits in memory", 5_000, 1_000, 100, 0.1, 64 << 20, 0, false, false},
		{"no input", 0, 1, 1, 0, 4 << 10, 0, false, false},
		{"only tombstones", 2_000, 100, 1, 1, 4 << 10, 0, true, false},
	}
	for seed := uint64(1); seed <= 3; seed++ {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/seed%d", c.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 42))
				ops := kvtest.RandomOps(r, c.n, c.keys, c.maxValue, c.tomb)
				dir := filepath.Join(t.TempDir(), "spill")
				s := New(dir, c.limit)
				if c.fanIn > 0 {
					s.fanIn = c.fanIn
				}
				got := sortAndCollect(t, s, ops)
				kvtest.CheckSorted(t, got, kvtest.Replay(ops))
				st := s.Stats()
				if (st.Spills > 0) != c.wantSpills {
					t.Errorf("%d spills, want spills: %v", st.Spills, c.wantSpills)
				}
				if (st.Merges > 0) != c.wantMerge {
					t.Errorf("%d intermediate merges, want some: %v", st.Merges, c.wantMerge)
				}
				if st.PeakHeld > c.limit+st.MaxEntry {
					t.Errorf("peak buffer %d bytes: over the %d-byte limit by more than one entry (%d)", st.PeakHeld, c.limit, st.MaxEntry)
				}
				if c.wantSpills {
					ents, err := os.ReadDir(dir)
					if err != nil {
						t.Fatal(err)
					}
					if len(ents) == 0 {
						t.Error("spill dir is empty before Close")
					}
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("spill dir still there after Close: %v", err)
				}
			})
		}
	}
}

// The buffer stays within its limit even when it is not much larger than
// the entries, and the reported figures add up.
func TestExtSortBufferBound(t *testing.T) {
	const limit = 64 << 10
	s := New(t.TempDir()+"/spill", limit)
	defer s.Close()
	r := rand.New(rand.NewPCG(7, 7))
	ops := kvtest.RandomOps(r, 50_000, 5_000, 300, 0.05)
	got := sortAndCollect(t, s, ops)
	kvtest.CheckSorted(t, got, kvtest.Replay(ops))
	st := s.Stats()
	if st.PeakHeld > limit+st.MaxEntry || st.PeakHeld < limit/2 {
		t.Errorf("peak buffer %d bytes with a %d-byte limit", st.PeakHeld, limit)
	}
	if st.Records != int64(len(ops)) || st.Spills < 10 || st.SpillByte == 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestExtSortTruncatedRunFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spill")
	s := New(dir, 4<<10)
	defer s.Close()
	r := rand.New(rand.NewPCG(3, 3))
	for _, op := range kvtest.RandomOps(r, 2_000, 1_000, 100, 0) {
		if err := s.Add(op.K, op.V); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.runs) < 2 {
		t.Fatalf("%d runs", len(s.runs))
	}
	f := s.runs[1].path
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(f, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	err = s.Merge(context.Background(), func(k, v []byte) error { return nil })
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("merge of a truncated run: %v, want unexpected EOF", err)
	}
}

func TestExtSortMergeStopsOnCallbackError(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "spill"), 4<<10)
	defer s.Close()
	for i := range 1000 {
		s.Add(fmt.Appendf(nil, "%05d", i), []byte("v"))
	}
	stop := errors.New("stop")
	n := 0
	err := s.Merge(context.Background(), func(k, v []byte) error {
		if n++; n == 10 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 10 {
		t.Fatalf("merge returned %v after %d keys", err, n)
	}
}

// BenchmarkExternalSort sorts 1M records of 16-byte keys (200k distinct, in
// random order) and 100-byte values through a 64 MiB buffer, as the ingest
// strategy does with its default sort_buffer. Throughput counts the key and
// value bytes added.
func BenchmarkExternalSort(b *testing.B) {
	const (
		records = 1_000_000
		keys    = 200_000
		valLen  = 100
	)
	r := rand.New(rand.NewPCG(1, 2))
	const keyLen = 16
	keyBytes := make([]byte, 0, records*keyLen)
	for range records {
		keyBytes = fmt.Appendf(keyBytes, "%016x", r.Uint64N(keys)*0x9e3779b97f4a7c15)
	}
	val := make([]byte, valLen)
	for i := range val {
		val[i] = byte(r.Uint32())
	}
	b.SetBytes(int64(records * (keyLen + valLen)))
	b.ReportAllocs()
	var st Stats
	for b.Loop() {
		s := New(filepath.Join(b.TempDir(), "spill"), 64<<20)
		for i := 0; i < len(keyBytes); i += keyLen {
			if err := s.Add(keyBytes[i:i+keyLen], val); err != nil {
				b.Fatal(err)
			}
		}
		n := 0
		if err := s.Merge(context.Background(), func(k, v []byte) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no output")
		}
		st = s.Stats()
		s.Close()
	}
	b.ReportMetric(float64(st.Spills), "spills")
	b.ReportMetric(float64(st.PeakHeld)/(1<<20), "peak-MiB")
}
