package bench

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/loadgen"
)

// landmarkIdle is how long reading landmark records waits for records that
// compaction may have removed.
const landmarkIdle = 2 * time.Second

// holdsFill checks on the broker, not in any file, that topic holds the
// fill that spec writes (d derived from it): every partition ends exactly at the number
// of records the fill writes to it, and the records still at landmark
// offsets (each partition's first and last LandmarkWindow) are exactly the
// generated ones. It returns "" when the topic holds the fill, else why not.
func (e *Env) holdsFill(ctx context.Context, topic string, spec loadgen.Spec, d loadgen.Derived, offsets cluster.TopicOffsets) (string, error) {
	if len(offsets.End) != len(d.Totals.PerPart) {
		return fmt.Sprintf("it has %d partitions, the fill writes %d", len(offsets.End), len(d.Totals.PerPart)), nil
	}
	heads, tails := map[int32]cluster.OffsetRange{}, map[int32]cluster.OffsetRange{}
	for _, pc := range d.Totals.PerPart {
		p, n := pc.Partition, pc.Records
		if end := offsets.End[p]; end != n {
			return fmt.Sprintf("partition %d ends at offset %d, the fill writes %d records to it", p, end, n), nil
		}
		w := int64(loadgen.LandmarkWindow)
		heads[p] = cluster.OffsetRange{From: offsets.Start[p], To: min(w, n)}
		tails[p] = cluster.OffsetRange{From: max(n-w, offsets.Start[p]), To: n}
	}
	g, err := loadgen.NewGenerator(spec)
	if err != nil {
		return "", err
	}
	checked := map[int32]int{}
	for _, ranges := range []map[int32]cluster.OffsetRange{tails, heads} {
		recs, err := cluster.ReadRange(ctx, e.Cluster, topic, ranges, landmarkIdle)
		if err != nil {
			return "", fmt.Errorf("topic %s: reading landmark records: %w", topic, err)
		}
		for p, rs := range recs {
			n := d.Totals.PerPart[p].Records
			for _, r := range rs {
				idx, ok := d.Landmarks.IndexAt(p, r.Offset, n)
				if !ok {
					continue
				}
				want := g.At(idx)
				if !bytes.Equal(r.Key, want.Key) || !bytes.Equal(r.Value, want.Value) || (r.Value == nil) != (want.Value == nil) {
					return fmt.Sprintf("partition %d offset %d holds a different record than the fill writes there", p, r.Offset), nil
				}
				checked[p]++
			}
		}
	}
	for _, pc := range d.Totals.PerPart {
		if pc.Records > 0 && checked[pc.Partition] == 0 {
			return fmt.Sprintf("partition %d shows none of the fill's first or last records", pc.Partition), nil
		}
	}
	return "", nil
}
