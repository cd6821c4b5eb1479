package engine

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/cluster"
)

// ChangelogCount is what a read of a changelog met: the records and
// key+value bytes a restore would apply, the offsets it spanned and its
// transactional data, read with Isolation.
type ChangelogCount struct {
	Records, Bytes, Offsets int64
	Isolation               string
	Txn                     TxnCounts
}

// Count reads the changelog between offsets as the instance's cold
// restore would (its isolation level, its end offsets) and discards every
// record: what a restore of it reads, for an engine whose restore reports
// only record counts (Kafka Streams').
func (in *Instance) Count(ctx context.Context, offsets cluster.TopicOffsets) (ChangelogCount, error) {
	quiet := *in
	quiet.Progress = nil
	res, err := quiet.restore(ctx, ColdTasks(offsets), loaderSpec{Mode: LoadDiscard})
	if err != nil {
		return ChangelogCount{}, fmt.Errorf("counting the changelog: %w", err)
	}
	res.Close()
	return ChangelogCount{Records: res.Records, Bytes: res.Bytes, Offsets: res.Offsets(), Isolation: res.Isolation, Txn: res.Txn}, nil
}
