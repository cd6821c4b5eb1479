package loadgen

import "bytes"

// Write is one step of a fill in the order it reaches the log: a record,
// or, in a transactional fill, the end of a transaction.
type Write struct {
	// Record is the record written (when End is false). Its Index is the
	// fill generator's for a committed (or plain) record, the aborted
	// records' generator's for a record of an aborted transaction.
	Record Record
	// Txn is the transaction's index among all the fill's transactions,
	// committed and aborted (0 in a plain fill).
	Txn int64
	// Aborted says the record's (or the ending) transaction aborts.
	Aborted bool
	// End is the end of transaction Txn: a marker (commit, or abort when
	// Aborted) in every partition its records went to.
	End bool
}

// Stream yields a fill's writes in order. A plain fill is its generator's
// records. A transactional fill writes the same records, TransactionRecords
// per committed transaction, with aborted transactions between them: so
// its committed records, and the state they leave, are exactly those of the
// plain fill of the same parameters, and what aborts adds is the cost a
// restore pays for them (records fetched and dropped, markers, offsets).
//
// Transaction k aborts when Aborts(spec, k); an aborted transaction holds
// TransactionRecords records of a second generator (same keys, sizes and
// tombstone ratio, its own values), the i-th being that generator's record
// k×TransactionRecords+i: a pure function of the seed and the transaction's
// index. The fill ends with the transaction that commits its last record.
type Stream struct {
	spec    Spec
	plain   *Generator
	aborted *Generator // nil in a plain fill
	txn     int64      // the current transaction
	open    bool       // a transaction is under way
	abort   bool       // it aborts
	inTxn   int        // records written in it
}

// abortSalt separates the aborted records' generator and the abort
// decisions from the fill's own records.
const abortSalt = 0xab0127ed5eed0001

// NewStream returns the writes of a valid spec.
func NewStream(spec Spec) (*Stream, error) {
	g, err := NewGenerator(spec)
	if err != nil {
		return nil, err
	}
	s := &Stream{spec: spec, plain: g}
	if spec.Transactional {
		if s.aborted, err = NewGenerator(abortedSpec(spec)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// abortedSpec is the spec of a transactional fill's aborted records: the
// fill's key space, sizes and tombstones under another seed.
func abortedSpec(spec Spec) Spec {
	spec.Seed ^= abortSalt
	spec.Transactional, spec.TransactionRecords, spec.AbortRatio = false, 0, 0
	return spec
}

// AbortedRecordAt is the record at index i of a transactional fill's
// aborted records (see Stream), for checking what a topic holds.
func AbortedRecordAt(spec Spec, i int64) (Record, error) {
	g, err := NewGenerator(abortedSpec(spec))
	if err != nil {
		return Record{}, err
	}
	return g.At(i), nil
}

// Aborts reports whether transaction txn of a transactional fill aborts:
// a pure function of the seed and txn, true for about AbortRatio of them.
func Aborts(spec Spec, txn int64) bool {
	if spec.AbortRatio <= 0 {
		return false
	}
	var src resettableSource
	src.reset(spec.Seed^abortSalt, uint64(txn))
	return float64(src.Uint64()>>11)/(1<<53) < spec.AbortRatio
}

// Next returns the next write, or false after the last. A record's slices
// are reused by the following call.
func (s *Stream) Next() (Write, bool) {
	if !s.spec.Transactional {
		r, ok := s.plain.Next()
		return Write{Record: r}, ok
	}
	if !s.open {
		if !s.plain.More() {
			return Write{}, false
		}
		s.open, s.abort, s.inTxn = true, Aborts(s.spec, s.txn), 0
	}
	if s.inTxn == s.spec.TransactionRecords || (!s.abort && !s.plain.More()) {
		w := Write{Txn: s.txn, Aborted: s.abort, End: true}
		s.open = false
		s.txn++
		return w, true
	}
	w := Write{Txn: s.txn, Aborted: s.abort}
	if s.abort {
		w.Record = s.aborted.At(s.txn*int64(s.spec.TransactionRecords) + int64(s.inTxn))
	} else {
		w.Record, _ = s.plain.Next()
	}
	s.inTxn++
	return w, true
}

// SlotChecker tells whether what a topic holds at a landmark offset is
// what the fill wrote there.
type SlotChecker struct {
	plain, aborted *Generator
}

// NewSlotChecker returns the checker of a valid spec's landmarks.
func NewSlotChecker(spec Spec) (*SlotChecker, error) {
	g, err := NewGenerator(spec)
	if err != nil {
		return nil, err
	}
	a, err := NewGenerator(abortedSpec(spec))
	if err != nil {
		return nil, err
	}
	return &SlotChecker{plain: g, aborted: a}, nil
}

// Holds reports whether a record read back (its key and value, and
// whether it is a control record) is slot s: the same record, or a marker
// of the same kind. A control record's key is Kafka's: version int16 0,
// then type int16, 0 for abort and 1 for commit.
func (c *SlotChecker) Holds(s Slot, key, value []byte, control bool) bool {
	switch s.Kind {
	case SlotCommit, SlotAbort:
		want := byte(1)
		if s.Kind == SlotAbort {
			want = 0
		}
		return control && len(key) >= 4 && key[0] == 0 && key[1] == 0 && key[2] == 0 && key[3] == want
	}
	if control {
		return false
	}
	g := c.plain
	if s.Kind == SlotAborted {
		g = c.aborted
	}
	r := g.At(s.Index)
	return bytes.Equal(key, r.Key) && bytes.Equal(value, r.Value) && (value == nil) == (r.Value == nil)
}
