package measure

// StoreStats are RocksDB's own figures for one store or, summed, for all of
// a restore's stores: what its properties and statistics report.
type StoreStats struct {
	LiveSSTBytes           int64   `json:"live_sst_bytes"`
	TotalSSTBytes          int64   `json:"total_sst_bytes"`
	L0Files                int64   `json:"l0_files"`
	PendingCompactionBytes int64   `json:"pending_compaction_bytes"`
	MemtableBytes          int64   `json:"memtable_bytes"`
	EstimatedKeys          int64   `json:"estimated_keys"`
	StallSeconds           float64 `json:"stall_seconds"`
	// FlushBytes and CompactionWriteBytes are what RocksDB wrote to SST files
	// by flushing memtables and by compacting.
	FlushBytes           int64 `json:"flush_bytes"`
	CompactionWriteBytes int64 `json:"compaction_write_bytes"`
	// IngestedBytes are SST bytes added by file ingestion.
	IngestedBytes int64 `json:"ingested_bytes,omitempty"`
	// SortSpillBytes are the ingest strategy's external-sort run files.
	SortSpillBytes int64 `json:"sort_spill_bytes,omitempty"`
	// WriteAmplification is (flush + compaction + ingested + sort spill
	// bytes) over the key+value bytes the restore wrote: what the disk
	// absorbed per byte restored.
	WriteAmplification float64 `json:"write_amplification"`
}

// Add sums other's figures into s (WriteAmplification is not summed: it is
// derived from the sums afterwards).
func (s *StoreStats) Add(o StoreStats) {
	s.LiveSSTBytes += o.LiveSSTBytes
	s.TotalSSTBytes += o.TotalSSTBytes
	s.L0Files += o.L0Files
	s.PendingCompactionBytes += o.PendingCompactionBytes
	s.MemtableBytes += o.MemtableBytes
	s.EstimatedKeys += o.EstimatedKeys
	s.StallSeconds += o.StallSeconds
	s.FlushBytes += o.FlushBytes
	s.CompactionWriteBytes += o.CompactionWriteBytes
	s.IngestedBytes += o.IngestedBytes
	s.SortSpillBytes += o.SortSpillBytes
}

// WrittenBytes is what RocksDB and the restore wrote to disk for the
// store: flush, compaction, ingested SST and external-sort spill bytes.
func (s StoreStats) WrittenBytes() int64 {
	return s.FlushBytes + s.CompactionWriteBytes + s.IngestedBytes + s.SortSpillBytes
}
