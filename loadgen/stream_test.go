package loadgen

import (
	"bytes"
	"strings"
	"testing"
)

func txnSpec() Spec {
	s := testSpec()
	s.Transactional, s.TransactionRecords, s.AbortRatio = true, 500, 0.3
	return s
}

// writes collects a spec's stream, copying each record's slices.
func writes(t *testing.T, s Spec) []Write {
	t.Helper()
	st, err := NewStream(s)
	if err != nil {
		t.Fatal(err)
	}
	var out []Write
	for {
		w, ok := st.Next()
		if !ok {
			return out
		}
		w.Record.Key = bytes.Clone(w.Record.Key)
		w.Record.Value = bytes.Clone(w.Record.Value)
		out = append(out, w)
	}
}

// TestTransactionalFillCommitsThePlainFill checks that the committed
// records of a transactional fill are the plain fill's, in order, in
// transactions of TransactionRecords, with aborted transactions between
// them; and that the fill ends with a committed transaction.
func TestTransactionalFillCommitsThePlainFill(t *testing.T) {
	s := txnSpec()
	plain := collect(t, testSpec())
	var committed []Record
	var aborted, ended, inTxn int
	ws := writes(t, s)
	for i, w := range ws {
		switch {
		case w.End:
			if inTxn == 0 || inTxn > s.TransactionRecords {
				t.Fatalf("write %d: transaction %d ends after %d records", i, w.Txn, inTxn)
			}
			if w.Aborted != Aborts(s, w.Txn) {
				t.Fatalf("transaction %d: aborted=%v, Aborts says %v", w.Txn, w.Aborted, Aborts(s, w.Txn))
			}
			ended++
			inTxn = 0
		case w.Aborted:
			aborted++
			inTxn++
		default:
			committed = append(committed, w.Record)
			inTxn++
		}
	}
	if last := ws[len(ws)-1]; !last.End || last.Aborted {
		t.Fatalf("the fill ends with %+v, want a commit", last)
	}
	if len(committed) != len(plain) {
		t.Fatalf("%d committed records, the plain fill has %d", len(committed), len(plain))
	}
	for i := range plain {
		if !bytes.Equal(committed[i].Key, plain[i].Key) || !bytes.Equal(committed[i].Value, plain[i].Value) || committed[i].Index != plain[i].Index {
			t.Fatalf("committed record %d differs from the plain fill's", i)
		}
	}
	if want := (len(plain) + s.TransactionRecords - 1) / s.TransactionRecords; ended-aborted/s.TransactionRecords != want {
		t.Fatalf("%d transactions with %d aborted records: %d committed, want %d", ended, aborted, ended-aborted/s.TransactionRecords, want)
	}
	if aborted == 0 {
		t.Fatal("no aborted records at abort_ratio 0.3")
	}
}

// TestAbortsIsAPureFunctionOfSeedAndIndex checks the abort decisions: the
// same for the same seed and index, about AbortRatio of them, different
// under another seed, none at ratio 0.
func TestAbortsIsAPureFunctionOfSeedAndIndex(t *testing.T) {
	s := txnSpec()
	other := s
	other.Seed = 2
	var n, same int
	const txns = 20000
	for k := int64(0); k < txns; k++ {
		a := Aborts(s, k)
		if a != Aborts(s, k) {
			t.Fatalf("transaction %d: two answers", k)
		}
		if a {
			n++
		}
		if a == Aborts(other, k) {
			same++
		}
	}
	if r := float64(n) / txns; r < 0.28 || r > 0.32 {
		t.Fatalf("%.3f of transactions abort, want about 0.3", r)
	}
	if same > txns*7/10 {
		t.Fatalf("seed 2 agrees with seed 1 on %d of %d transactions", same, txns)
	}
	s.AbortRatio = 0
	for k := int64(0); k < 1000; k++ {
		if Aborts(s, k) {
			t.Fatalf("transaction %d aborts at ratio 0", k)
		}
	}
}

// replay is the state of a store that applied the writes, aborted ones
// too when uncommitted: what read_uncommitted and read_committed restore.
func replay(ws []Write, partitions int32, uncommitted bool) []PartitionState {
	m := map[string][]byte{}
	for _, w := range ws {
		if w.End || (w.Aborted && !uncommitted) {
			continue
		}
		if w.Record.Value == nil {
			delete(m, string(w.Record.Key))
		} else {
			m[string(w.Record.Key)] = w.Record.Value
		}
	}
	out := make([]PartitionState, partitions)
	for k, v := range m {
		p := PartitionFor([]byte(k), partitions)
		out[p].Partition = p
		out[p].Keys++
		out[p].LiveBytes += int64(len(k) + len(v))
		out[p].Digest.Add([]byte(k), v)
	}
	return out
}

// TestExpectedStateExcludesAbortedRecords checks that the expected state of
// a transactional fill is that of its committed records (the plain fill's)
// and not what a restore that applied the aborted records too would hold.
func TestExpectedStateExcludesAbortedRecords(t *testing.T) {
	s := txnSpec()
	got, _, err := Expect(s)
	if err != nil {
		t.Fatal(err)
	}
	plain, _, _ := Expect(testSpec())
	ws := writes(t, s)
	committed, uncommitted := replay(ws, s.Partitions, false), replay(ws, s.Partitions, true)
	for p := range got {
		if got[p] != plain[p] || got[p].Digest != committed[p].Digest || got[p].Keys != committed[p].Keys {
			t.Fatalf("partition %d: expected %+v, plain fill %+v, committed replay %+v", p, got[p], plain[p], committed[p])
		}
		if got[p].Digest == uncommitted[p].Digest {
			t.Fatalf("partition %d: the aborted records change nothing a read_uncommitted restore would hold", p)
		}
	}
}

// TestTransactionalLogShape checks the offsets a transactional fill takes:
// per partition its committed and aborted records and one marker per
// transaction that wrote to it, and the landmarks at the first and last
// offsets naming what is written there.
func TestTransactionalLogShape(t *testing.T) {
	s := txnSpec()
	d, err := Derive(s)
	if err != nil {
		t.Fatal(err)
	}
	log := make([][]Slot, s.Partitions) // offset -> slot, built here from the writes
	touched := map[int32]bool{}
	var abortedRecs int64
	for _, w := range writes(t, s) {
		if w.End {
			kind := SlotCommit
			if w.Aborted {
				kind = SlotAbort
			}
			for p := range touched {
				log[p] = append(log[p], Slot{Kind: kind, Index: w.Txn})
			}
			touched = map[int32]bool{}
			continue
		}
		kind := SlotRecord
		if w.Aborted {
			kind = SlotAborted
			abortedRecs++
		}
		log[w.Record.Partition] = append(log[w.Record.Partition], Slot{Kind: kind, Index: w.Record.Index})
		touched[w.Record.Partition] = true
	}
	var markers int64
	for p, slots := range log {
		end := int64(len(slots))
		if d.Log.Ends[p] != end {
			t.Fatalf("partition %d: derived end %d, the writes take %d offsets", p, d.Log.Ends[p], end)
		}
		for o, sl := range slots {
			if sl.Kind == SlotCommit || sl.Kind == SlotAbort {
				markers++
			}
			got, ok := d.Landmarks.At(int32(p), int64(o), end)
			if ok && got != sl {
				t.Fatalf("partition %d offset %d: landmark %+v, the fill writes %+v", p, o, got, sl)
			}
			if !ok && (o < LandmarkWindow || int64(o) >= end-LandmarkWindow) {
				t.Fatalf("partition %d offset %d: no landmark", p, o)
			}
		}
	}
	if d.Log.Markers != markers || d.Log.AbortedRecords != abortedRecs || d.Totals.Records != s.Records {
		t.Fatalf("log %+v totals %+v; counted %d markers, %d aborted records", d.Log, d.Totals, markers, abortedRecs)
	}
	if d.Log.Offsets() != s.Records+abortedRecs+markers {
		t.Fatalf("%d offsets, want %d records + %d aborted + %d markers", d.Log.Offsets(), s.Records, abortedRecs, markers)
	}
}

func TestSpecValidateNamesTransactionalFields(t *testing.T) {
	cases := map[string]func(*Spec){
		"transaction_records": func(s *Spec) { s.TransactionRecords = 0 },
		"abort_ratio":         func(s *Spec) { s.AbortRatio = 0.95 },
	}
	for field, mutate := range cases {
		s := txnSpec()
		mutate(&s)
		if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), field+":") {
			t.Errorf("%s: got %v, want an error naming %s", field, err, field)
		}
	}
	plain := testSpec()
	plain.AbortRatio = 0.1
	if err := plain.Validate(); err == nil || !strings.Contains(err.Error(), "abort_ratio: is set only with transactional") {
		t.Errorf("abort_ratio on a plain fill: got %v", err)
	}
	plain = testSpec()
	plain.TransactionRecords = 10
	if err := plain.Validate(); err == nil || !strings.HasPrefix(err.Error(), "transaction_records:") {
		t.Errorf("transaction_records on a plain fill: got %v", err)
	}
}
