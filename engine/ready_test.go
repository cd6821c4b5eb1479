package engine

import (
	"context"

	"github.com/restorebench/restorebench/config"

	"fmt"
	"testing"
	"time"
)

// TestAwaitReadySettlesAndReads loads enough into a store to leave flushes
// and compactions behind, and checks the ready phase ends with nothing
// running, every memtable flushed and each sampled key read once.
func TestAwaitReadySettlesAndReads(t *testing.T) {
	for _, style := range []string{"universal", "level"} {
		o := config.KStreamsRocksDB()
		o.CompactionStyle = style
		o.WriteBufferSize = 1 << 20
		s, err := OpenRocks(t.TempDir(), o)
		if err != nil {
			t.Fatal(err)
		}
		v := make([]byte, 200)
		var sample []SampledKey
		batch := make([]Entry, 0, 1000)
		for i := 0; i < 100_000; i++ {
			k := []byte(fmt.Sprintf("k%015d", (i*7919)%60_000))
			batch = append(batch, Entry{Key: k, Value: v})
			if len(batch) == cap(batch) {
				if err := s.Write(batch); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
			if i%1000 == 0 {
				sample = append(sample, SampledKey{Key: k})
			}
		}
		res, err := AwaitReady(context.Background(), map[int32]Store{0: s}, sample, time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", style, err)
		}
		if res.Reads.Summary().Count != int64(len(sample)) {
			t.Fatalf("%s: %d reads, want %d", style, res.Reads.Summary().Count, len(sample))
		}
		st := s.Stats()
		if st.MemtableBytes > 64<<10 || s.intProp("rocksdb.num-running-compactions") != 0 || st.PendingCompactionBytes != 0 {
			t.Fatalf("%s: not settled after ready: %+v", style, st)
		}
		if st.FlushBytes == 0 {
			t.Fatalf("%s: no flush bytes counted", style)
		}
		s.Close()
	}
}
