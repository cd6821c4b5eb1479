package engine

// newVersionedLoader opens a task's versioned store where Kafka Streams
// keeps it (RocksDBVersionedStore's one RocksDB instance:
// <task dir>/rocksdb/<store>), restored by put.
func newVersionedLoader(s loaderSpec, id TaskID) (Loader, error) {
	v, err := openVersionedStore(s.Case, storePath(s.AppDir, id, s.Store))
	if err != nil {
		return nil, err
	}
	return storeLoader{v}, nil
}

// Versioned sums what the versioned stores' restores did and the segments
// live at the end; false when the stores are not versioned stores.
func (r *Restored) Versioned() (VersionedCounts, int, bool) {
	var c VersionedCounts
	segments, any := 0, false
	for _, s := range r.Stores {
		v, ok := s.(*VersionedStore)
		if !ok {
			continue
		}
		any = true
		vc := v.Counts()
		c.Put += vc.Put
		c.Skipped += vc.Skipped
		c.HistoryDropped += vc.HistoryDropped
		c.SegmentsOpened += vc.SegmentsOpened
		c.SegmentsDropped += vc.SegmentsDropped
		segments += v.Segments()
	}
	return c, segments, any
}
