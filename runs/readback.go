package runs

import (
	"fmt"
)

// ReadBack is what the verified cold restores of a fill's topic read of
// it: the changelog as the broker holds it at restore time, which the log
// cleaner may have compacted since the fill was written (a reused fill on
// the embedded broker after a compaction run, or Kafka's own cleaner).
type ReadBack struct {
	// Records and Bytes are the most any verified cold restore of the
	// topic read; Restores how many such restores there were.
	Records, Bytes int64
	Restores       int
}

// Compacted reports whether the restores read fewer records than the fill
// wrote: the changelog they restored is smaller than the fill's size says.
func (rb ReadBack) Compacted(f *Fill) bool {
	return rb.Restores > 0 && f != nil && rb.Records < f.Records
}

// Describe says, for a compacted fill, what the restores read of it: "the
// cold restores read 440,563 of its 1,012,209 records (222.8 of 512.0 MB)".
func (rb ReadBack) Describe(f *Fill) string {
	return fmt.Sprintf("compacted since the fill: the cold restores read %d of its %d records (%.1f of %.1f MB); their "+
		"times are of what the log cleaner left, not of the fill's size",
		rb.Records, f.Records, float64(rb.Bytes)/1e6, float64(f.Bytes)/1e6)
}

// ReadBackOf is what the run's verified cold restores of f's topic read.
// Only a restore of the whole log counts: a cold restore from its start.
// A window or session store's does not: it starts, as Kafka Streams 4.4
// does, at the first record within its retention of each partition's
// last, so it reads less than the log holds by design, not because the
// cleaner ran.
func (r *Results) ReadBackOf(f *Fill) ReadBack {
	var rb ReadBack
	if f == nil {
		return rb
	}
	for _, rec := range r.Restores {
		if rec.Topic != f.Topic || !rec.Counts() || !rec.IsCold() || rec.Params.StoreKind.Segmented() {
			continue
		}
		rb.Restores++
		if rec.Records > rb.Records {
			rb.Records, rb.Bytes = rec.Records, rec.Bytes
		}
	}
	return rb
}
