package runs

import (
	"fmt"

	"github.com/restorebench/restorebench/config"
)

// ChangelogRead is how a restore read its changelog: the isolation level
// of its restore consumer (Kafka Streams' under the case's
// processing.guarantee), the offsets it spanned and the transactional data
// it met. Records of schema 1 and 2 runs without it load with nil.
type ChangelogRead struct {
	// IsolationLevel is read_committed (exactly_once_v2: the records of
	// aborted transactions are fetched and dropped) or read_uncommitted
	// (at_least_once: they are restored as if committed).
	IsolationLevel string `json:"isolation_level"`
	// Offsets is the offsets the restore spanned (end minus start, summed
	// over its partitions): Restore.Records plus compaction gaps, markers
	// and, read committed, the aborted records dropped.
	Offsets int64 `json:"offsets"`
	// Markers counts the transaction markers (control records) read,
	// AbortMarkers those that ended an aborted transaction.
	Markers      int64 `json:"markers"`
	AbortMarkers int64 `json:"abort_markers"`
	// TransactionalRecords counts the records of transactional batches
	// restored (read committed: committed ones only).
	TransactionalRecords int64 `json:"transactional_records"`
	// Note says aloud a read that may have restored what Kafka Streams under
	// exactly_once_v2 never would: read_uncommitted over transactional
	// batches. Empty otherwise.
	Note string `json:"note,omitempty"`
}

// SetNote writes Note for a read_uncommitted read that met transactional
// batches, and clears it otherwise.
func (c *ChangelogRead) SetNote() {
	c.Note = ""
	if c.IsolationLevel == config.ReadCommitted || (c.Markers == 0 && c.TransactionalRecords == 0) {
		return
	}
	what := "none of them aborts, so the state restored is the committed one, but an aborted transaction's records would have been restored"
	if c.AbortMarkers > 0 {
		what = fmt.Sprintf("%d of them end aborted transactions, whose records were restored as if committed", c.AbortMarkers)
	}
	c.Note = fmt.Sprintf("%s over transactional batches (%d transaction markers): %s; Kafka Streams under "+
		"processing.guarantee exactly_once_v2 restores read_committed (--processing-guarantee "+
		"exactly_once_v2, or streams: {processing.guarantee: exactly_once_v2})",
		c.IsolationLevel, c.Markers, what)
}

// check reports a figure that is not one a restore measures.
func (c *ChangelogRead) check() error {
	if c.IsolationLevel != config.ReadCommitted && c.IsolationLevel != config.ReadUncommitted {
		return fmt.Errorf("read.isolation_level %q is not read_committed or read_uncommitted", c.IsolationLevel)
	}
	for _, x := range []struct {
		name string
		v    int64
	}{{"offsets", c.Offsets}, {"markers", c.Markers}, {"abort_markers", c.AbortMarkers}, {"transactional_records", c.TransactionalRecords}} {
		if err := plausible("read."+x.name, float64(x.v), MaxPlausibleRecords); err != nil {
			return err
		}
	}
	if c.AbortMarkers > c.Markers {
		return fmt.Errorf("read.abort_markers %d exceeds read.markers %d", c.AbortMarkers, c.Markers)
	}
	return nil
}
