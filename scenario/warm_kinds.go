package scenario

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
)

// segmentedKind says whether the case's stores are segmented by time
// (window and session stores), whose warm restarts need new records in
// every partition (see skipWarmCount).
func segmentedKind(c config.Case) bool {
	return c.StoreKind.Segmented()
}

// skipWarmCount says whether a warm step of n changed records is left out
// for the case's store kind: none for a window or session store. Kafka
// Streams does not persist a segmented store's stream time
// (AbstractRocksDBSegmentedBytesStore.observedStreamTime starts at -1 on
// every init), so a reopened store that restores nothing serves every
// window its live segments hold, expired ones of the oldest segment too,
// until its first record: a state the fill's expected state does not
// describe.
func skipWarmCount(c config.Case, n int64) bool { return n == 0 && segmentedKind(c) }

// checkEveryPartitionChanged fails a window or session store's warm step
// when some partition got none of the records written while the instance
// was down (since are the offsets at the stop): its reopened store would
// serve by an unknown stream time (skipWarmCount).
func checkEveryPartitionChanged(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request, since cluster.TopicOffsets, n int64) error {
	if !segmentedKind(req.Case) {
		return nil
	}
	now, err := env.Offsets(ctx, t.Topic)
	if err != nil {
		return err
	}
	for p, end := range since.End {
		if now.End[p] <= end {
			return fmt.Errorf("warm: case %s #%d: partition %d got none of the %d records written: a reopened %s store that "+
				"restores nothing serves by an unknown stream time (Kafka Streams does not persist it), a state "+
				"not derived; write more records (warm.changed)", req.Case.Name, req.Repeat, p, n, req.Case.StoreKind)
		}
	}
	return nil
}
