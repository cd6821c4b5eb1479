package report

import (
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
)

// versionedNote is the Store kinds section's paragraph on versioned
// stores, when a run restored one: what their retention, segments, kept
// and served mean. nil otherwise.
func versionedNote(a *capacity.Analysis) *Para {
	for _, run := range a.Runs {
		for _, r := range kindRestores(run.Results.Restores) {
			if r.Store.Kind == config.StoreVersionedKeyValue {
				return &Para{Text: "A cold versioned store's restore (KIP-889) reads every record, each a version valid from its timestamp until its key's next write; " +
					"it keeps each key's latest version whatever its age, and serves an older one only while its validTo is after " +
					"stream time minus the history retention (the retention column): " +
					"kept counts the records put, served the versions reads return (verified against the fill's expected state), " +
					"segment the interval of its logical segments (one RocksDB for all), dropped whole once stream " +
					"time passes them by the history retention."}
			}
		}
	}
	return nil
}

// versionedLegend is the store-kind text table's line on versioned
// stores.
const versionedLegend = "versioned-key-value: retention is the history retention, segments are logical ones in one " +
	"RocksDB, served the versions reads return (each key's latest and those within the history); " +
	"kept: the records put"
