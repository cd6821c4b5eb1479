package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
)

// landmarkIdle is how long reading landmark records waits for records that
// compaction may have removed.
const landmarkIdle = 2 * time.Second

// holdsFill checks on the broker, not in any file, that topic holds the
// fill that spec writes (d derived from it): every partition ends exactly
// at the offset the fill's writes end at (its records; for a transactional
// fill also its aborted records and markers), and what is still at the
// landmark offsets (each partition's first and last LandmarkWindow) is
// exactly what the fill wrote there. It returns "" when the topic holds
// the fill, else why not.
func (e *Env) holdsFill(ctx context.Context, topic string, spec loadgen.Spec, d loadgen.Derived, offsets cluster.TopicOffsets) (string, error) {
	heads, tails, why := landmarkRanges(spec, d, offsets)
	if why != "" {
		return why, nil
	}
	check, err := loadgen.NewSlotChecker(spec)
	if err != nil {
		return "", err
	}
	checked := map[int32]int{}
	for _, ranges := range []map[int32]cluster.OffsetRange{tails, heads} {
		// Read uncommitted with the markers: every offset the fill wrote.
		recs, err := cluster.ReadRange(ctx, e.Cluster, topic, ranges, landmarkIdle, kgo.KeepControlRecords())
		if err != nil {
			return "", fmt.Errorf("topic %s: reading landmark records: %w", topic, err)
		}
		for p, rs := range recs {
			for _, r := range rs {
				slot, ok := d.Landmarks.At(p, r.Offset, d.Log.Ends[p])
				if !ok {
					continue
				}
				if !check.Holds(slot, r.Key, r.Value, r.Attrs.IsControl()) {
					return fmt.Sprintf("partition %d offset %d holds a different record than the fill writes there", p, r.Offset), nil
				}
				checked[p]++
			}
		}
	}
	for p, end := range d.Log.Ends {
		if end > 0 && checked[int32(p)] == 0 {
			return fmt.Sprintf("partition %d shows none of the fill's first or last records", p), nil
		}
	}
	return "", nil
}

// landmarkRanges are the offsets of each partition's landmarks still in
// the log (heads and tails), or why the topic cannot hold the fill: its
// partitions or end offsets are not the fill's.
func landmarkRanges(spec loadgen.Spec, d loadgen.Derived, offsets cluster.TopicOffsets) (heads, tails map[int32]cluster.OffsetRange, why string) {
	if len(offsets.End) != len(d.Log.Ends) {
		return nil, nil, fmt.Sprintf("it has %d partitions, the fill writes %d", len(offsets.End), len(d.Log.Ends))
	}
	heads, tails = map[int32]cluster.OffsetRange{}, map[int32]cluster.OffsetRange{}
	for i, n := range d.Log.Ends {
		p := int32(i)
		if end := offsets.End[p]; end != n {
			if spec.Transactional {
				return nil, nil, fmt.Sprintf("partition %d ends at offset %d; the transactional fill's %d records with its "+
					"aborted records and transaction markers end at %d",
					p, end, d.Totals.PerPart[p].Records, n)
			}
			return nil, nil, fmt.Sprintf("partition %d ends at offset %d, the fill writes %d records to it", p, end, n)
		}
		w := int64(loadgen.LandmarkWindow)
		heads[p] = cluster.OffsetRange{From: offsets.Start[p], To: min(w, n)}
		tails[p] = cluster.OffsetRange{From: max(n-w, offsets.Start[p]), To: n}
	}
	return heads, tails, ""
}
