package runs

import "github.com/restorebench/restorebench/loadgen"

// FillTransactions is what a transactional fill (spec.transactional)
// wrote besides its records: its settings, and the aborted transactions and
// markers that take offsets in the log but hold none of the expected state.
// Nil for a plain fill.
type FillTransactions struct {
	// TransactionRecords and AbortRatio are the fill's settings (also in
	// its spec).
	TransactionRecords int     `json:"transaction_records"`
	AbortRatio         float64 `json:"abort_ratio"`
	// Transactions and AbortedTransactions count the transactions written,
	// all and aborted.
	Transactions        int64 `json:"transactions"`
	AbortedTransactions int64 `json:"aborted_transactions"`
	// AbortedRecords and AbortedBytes (key+value) are the aborted
	// transactions' records, in the log on top of Fill.Records.
	AbortedRecords int64 `json:"aborted_records"`
	AbortedBytes   int64 `json:"aborted_bytes"`
	// Markers counts the transaction markers: one per transaction and
	// partition it wrote to.
	Markers int64 `json:"markers"`
	// Offsets is the offsets the fill takes in all its partitions:
	// Fill.Records + AbortedRecords + Markers.
	Offsets int64 `json:"offsets"`
}

// NewFillTransactions describes a transactional spec's log (nil for a
// plain spec).
func NewFillTransactions(spec loadgen.Spec, l loadgen.LogShape) *FillTransactions {
	if !spec.Transactional {
		return nil
	}
	return &FillTransactions{
		TransactionRecords: spec.TransactionRecords, AbortRatio: spec.AbortRatio,
		Transactions: l.Transactions, AbortedTransactions: l.AbortedTransactions,
		AbortedRecords: l.AbortedRecords, AbortedBytes: l.AbortedBytes, Markers: l.Markers, Offsets: l.Offsets(),
	}
}
