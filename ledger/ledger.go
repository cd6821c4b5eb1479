// Package ledger writes the failover scenario's transactions (deposits and
// withdrawals keyed by account) to a topic at a set rate with an idempotent
// producer, and keeps every transaction the broker acknowledged: the ground
// truth a balance check compares Kafka Streams' balances with. It never
// reads anything back from Kafka or Kafka Streams.
package ledger

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
)

// ValueBytes is the size of a transaction's value (and of a balance value
// in the ledger topology's store): two big-endian int64s.
const ValueBytes = 16

// Txn is one transaction: ID is unique within a generator's sequence,
// Amount is in minor units, positive for a deposit and negative for a
// withdrawal.
type Txn struct {
	ID      int64  `json:"id"`
	Account string `json:"account"`
	Amount  int64  `json:"amount"`
}

// Key is the record key: the account id as UTF-8.
func (t Txn) Key() []byte { return []byte(t.Account) }

// Value is the record value the ledger topology reads: the transaction id
// then the amount, each 8 bytes big-endian (kstreams/PROTOCOL.md).
func (t Txn) Value() []byte {
	b := make([]byte, ValueBytes)
	binary.BigEndian.PutUint64(b, uint64(t.ID))
	binary.BigEndian.PutUint64(b[8:], uint64(t.Amount))
	return b
}

// DecodeValue reads a transaction value back into its id and amount.
func DecodeValue(b []byte) (id, amount int64, err error) {
	if len(b) != ValueBytes {
		return 0, 0, fmt.Errorf("ledger: a transaction value has %d bytes, want %d", len(b), ValueBytes)
	}
	return int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint64(b[8:])), nil
}

// AccountName is the id of account i (0-based): "acct-000042".
func AccountName(i int) string { return fmt.Sprintf("acct-%06d", i) }

// Amount bounds, in minor units: deposits 1.00 to 100.00, withdrawals
// 1.00 to 50.00; depositPerMille of every 1000 transactions are deposits.
// generatorStreamID is the PCG stream the sequence draws from.
const (
	minAmount         = 1_00
	maxDeposit        = 100_00
	maxWithdrawal     = 50_00
	depositPerMille   = 700
	generatorStreamID = 0x6c6564676572 // "ledger"
)

// Generator yields a deterministic sequence of transactions: the same seed
// and account count give the same transactions in the same order. IDs run
// 1, 2, 3, ...; accounts are uniform over the accounts.
type Generator struct {
	rng      *rand.Rand
	accounts int
	next     int64
}

// NewGenerator returns the sequence of seed over accounts accounts (at
// least 1).
func NewGenerator(seed uint64, accounts int) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, generatorStreamID)), accounts: max(accounts, 1), next: 1}
}

// Next returns the next transaction.
func (g *Generator) Next() Txn {
	t := Txn{ID: g.next, Account: AccountName(g.rng.IntN(g.accounts))}
	g.next++
	if g.rng.IntN(1000) < depositPerMille {
		t.Amount = minAmount + g.rng.Int64N(maxDeposit-minAmount+1)
	} else {
		t.Amount = -(minAmount + g.rng.Int64N(maxWithdrawal-minAmount+1))
	}
	return t
}

// Sum is an account's balance and transaction count: what the ledger
// topology keeps per account, and what the acknowledged transactions add
// up to.
type Sum struct {
	Balance int64 `json:"balance"`
	Count   int64 `json:"count"`
}

// Book is the ground truth: every acknowledged transaction and, per
// account, the sums of their amounts and their count. It is safe for
// concurrent use (the producer's callbacks add to it).
type Book struct {
	mu    sync.Mutex
	acked []Txn
	sums  map[string]Sum
}

// NewBook returns an empty book.
func NewBook() *Book { return &Book{sums: map[string]Sum{}} }

// Ack records an acknowledged transaction.
func (b *Book) Ack(t Txn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.acked = append(b.acked, t)
	s := b.sums[t.Account]
	s.Balance += t.Amount
	s.Count++
	b.sums[t.Account] = s
}

// Len is how many transactions were acknowledged.
func (b *Book) Len() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return int64(len(b.acked))
}

// Acked returns the acknowledged transactions in the order their
// acknowledgements arrived.
func (b *Book) Acked() []Txn {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Txn(nil), b.acked...)
}

// Sums returns a copy of the per-account sums.
func (b *Book) Sums() map[string]Sum {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]Sum, len(b.sums))
	for k, v := range b.sums {
		out[k] = v
	}
	return out
}

// SumsOf adds up transactions per account, independently of any Book:
// what a check of a Book's sums recomputes.
func SumsOf(txns []Txn) map[string]Sum {
	out := map[string]Sum{}
	for _, t := range txns {
		s := out[t.Account]
		s.Balance += t.Amount
		s.Count++
		out[t.Account] = s
	}
	return out
}

// Accounts returns the accounts of sums, sorted.
func Accounts(sums map[string]Sum) []string {
	out := make([]string, 0, len(sums))
	for a := range sums {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}
