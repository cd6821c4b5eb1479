package fleet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/ledger"
)

// The ledger's balances as an instance's driver writes them, read the
// same way wherever it ran.

// Balances are the ledger topology's balances of every account of p's
// active tasks: the driver's `balances` file command, run where p runs.
func Balances(ctx context.Context, p Process) (map[string]ledger.Sum, error) {
	b, err := p.Fetch(ctx, "balances")
	if err != nil {
		return nil, err
	}
	return ParseBalances(bytes.NewReader(b), "balances of instance "+p.ID())
}

// ParseBalances reads the driver's balances (kstreams/PROTOCOL.md) from r,
// named name in errors: lines account<TAB>balance<TAB>count. An account
// listed twice is an error: each lives in one task's store.
func ParseBalances(r io.Reader, name string) (map[string]ledger.Sum, error) {
	out := map[string]ledger.Sum{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		if sc.Text() == "" {
			continue
		}
		acct, sum, err := parseBalanceLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if _, dup := out[acct]; dup {
			return nil, fmt.Errorf("%s:%d: account %s listed twice", name, line, acct)
		}
		out[acct] = sum
	}
	return out, sc.Err()
}

func parseBalanceLine(s string) (string, ledger.Sum, error) {
	f := strings.Split(s, "\t")
	if len(f) != 3 {
		return "", ledger.Sum{}, fmt.Errorf("%q: want account, balance and count separated by tabs", s)
	}
	b, err1 := strconv.ParseInt(f[1], 10, 64)
	c, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return "", ledger.Sum{}, fmt.Errorf("%q: balance and count must be integers", s)
	}
	return f[0], ledger.Sum{Balance: b, Count: c}, nil
}
