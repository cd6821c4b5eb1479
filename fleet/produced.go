package fleet

import (
	"context"
	"sort"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/ksdriver"
)

// producedIdle bounds each read of input records' timestamps.
const producedIdle = 2 * time.Second

// InputProduced looks input records' timestamps up on the broker (the
// producer's CreateTime) and turns them into CLOCK_MONOTONIC ns, the
// clock of the events: reads one record per partition at a time, as many
// rounds as the partition with the most offsets asked for needs.
func InputProduced(ctx context.Context, env *Env, topic string) producedAt {
	return func(want map[int32][]int64) map[int32]map[int64]int64 {
		out := map[int32]map[int64]int64{}
		monoMinusWall := ksdriver.NowMonoNs() - time.Now().UnixNano()
		for round := 0; ; round++ {
			ranges := map[int32]cluster.OffsetRange{}
			for p, offs := range want {
				sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
				if round < len(offs) {
					ranges[p] = cluster.OffsetRange{From: offs[round], To: offs[round] + 1}
				}
			}
			if len(ranges) == 0 {
				return out
			}
			recs, err := cluster.ReadRange(ctx, env.Cluster, topic, ranges, producedIdle)
			if err != nil {
				env.Logf("scenario: warning: reading input timestamps: %v (gaps counted from the last processed record)", err)
				return out
			}
			for p, rs := range recs {
				for _, r := range rs {
					if out[p] == nil {
						out[p] = map[int64]int64{}
					}
					out[p][r.Offset] = r.Timestamp.UnixNano() + monoMinusWall
				}
			}
		}
	}
}
