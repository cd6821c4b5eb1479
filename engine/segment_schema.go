package engine

import "github.com/restorebench/restorebench/loadgen"

// keySchema is how a segmented store (WindowStore) reads its changelog
// keys, as Kafka Streams' SegmentedBytesStore.KeySchema does: the time a
// key is segmented and expired by, and the key its entry is digested
// under.
type keySchema struct {
	// time is the key's segment timestamp: a window's start
	// (WindowKeySchema), a session's end (SessionKeySchema).
	time func(changelogKey []byte) (int64, error)
	// digestKey is the key a served entry is digested under.
	digestKey func(changelogKey []byte) []byte
}

// windowSchema reads a window store's keys: segmented by window start,
// digested under record key and window start (loadgen.WindowDigestKey).
var windowSchema = keySchema{
	time: func(k []byte) (int64, error) {
		_, ws, err := loadgen.SplitWindowKey(k)
		return ws, err
	},
	digestKey: loadgen.WindowDigestKey,
}
