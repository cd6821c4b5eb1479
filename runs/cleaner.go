package runs

import "strconv"

// cleanerDefaults are Kafka's topic defaults for the settings that decide
// what a compacted changelog keeps (the broker's log.cleaner.* and log.*
// defaults): a setting left out means these.
var cleanerDefaults = map[string]string{
	"min.cleanable.dirty.ratio": "0.5",
	"segment.bytes":             "1073741824",
	"segment.ms":                "604800000",
	"min.compaction.lag.ms":     "0",
	"max.compaction.lag.ms":     "9223372036854775807",
	"delete.retention.ms":       "86400000",
}

// CleanerDefaults returns Kafka's topic defaults for the cleaner settings
// by Kafka's names (a copy the caller may change).
func CleanerDefaults() map[string]string {
	out := make(map[string]string, len(cleanerDefaults))
	for k, v := range cleanerDefaults {
		out[k] = v
	}
	return out
}

// ActiveSegmentSlack is the batch that may overflow a segment before it
// rolls: segments roll between batches, and the fill's producer writes
// batches of up to 1 MiB (loadgen.ProducerOpts' batch max bytes).
const ActiveSegmentSlack = 1 << 20

// CleanerBound is what a changelog topic's cleaner settings let a
// compacted log keep, the one derivation of the bound both the compaction
// scenario (records per live key, recorded as CompactionRecord.Bound) and
// the planner (changelog bytes for a live state) use: the cleaner leaves
// a log alone until its dirty part is min.cleanable.dirty.ratio of it, so
// up to live/(1-ratio) stays after cleaning; the active segment is never
// cleaned, up to segment.bytes plus a batch per partition; and records
// younger than min.compaction.lag.ms are not cleaned either.
type CleanerBound struct {
	// DirtyRatio is min.cleanable.dirty.ratio; Kafka's default 0.5 unless
	// strictly between 0 and 1.
	DirtyRatio float64
	// SegmentBytes is segment.bytes; Kafka's default unless positive.
	SegmentBytes float64
	// MinCompactionLagMs is min.compaction.lag.ms; 0 unless positive.
	MinCompactionLagMs float64
}

// NewCleanerBound reads the settings that bound a compacted log from
// settings by Kafka's names; those left out or not usable are Kafka's
// defaults.
func NewCleanerBound(settings map[string]string) CleanerBound {
	get := func(k string, ok func(float64) bool) float64 {
		if f, err := strconv.ParseFloat(settings[k], 64); err == nil && ok(f) {
			return f
		}
		f, _ := strconv.ParseFloat(cleanerDefaults[k], 64)
		return f
	}
	return CleanerBound{
		DirtyRatio:         get("min.cleanable.dirty.ratio", func(f float64) bool { return f > 0 && f < 1 }),
		SegmentBytes:       get("segment.bytes", func(f float64) bool { return f > 0 }),
		MinCompactionLagMs: get("min.compaction.lag.ms", func(f float64) bool { return f > 0 }),
	}
}

// Retained is the most a log whose live part is live (bytes or records)
// keeps once the cleaner has run: live / (1 - min.cleanable.dirty.ratio).
func (b CleanerBound) Retained(live float64) float64 { return live / (1 - b.DirtyRatio) }

// ActiveBytes is the most the partitions' active segments, which the
// cleaner never touches, hold: segment.bytes plus a batch each.
func (b CleanerBound) ActiveBytes(partitions int) float64 {
	return float64(partitions) * (b.SegmentBytes + ActiveSegmentSlack)
}

// Bytes is the bound in bytes for live bytes over partitions, with young
// the bytes still within min.compaction.lag.ms.
func (b CleanerBound) Bytes(live float64, partitions int, young float64) float64 {
	return b.Retained(live) + b.ActiveBytes(partitions) + young
}

// Records is the same bound in records of bytesPerRecord each, for live
// records (keys) over partitions, with young the records still within
// min.compaction.lag.ms.
func (b CleanerBound) Records(live float64, partitions int, bytesPerRecord, young float64) float64 {
	return b.Retained(live) + b.ActiveBytes(partitions)/bytesPerRecord + young
}
