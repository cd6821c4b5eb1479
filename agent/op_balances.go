package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
)

func init() {
	registerOp(opDef{name: OpBalances, scope: scopeProcess, run: func(a *Agent, _ *Message, p *agentProc) (*Message, error) { return p.balances(a.procCtx) }})
}

// maxBalancesBytes bounds a balances reply: it must fit one record under
// Kafka's default message.max.bytes (1 MiB) with room to spare.
const maxBalancesBytes = 900 << 10

// balances has the driver write the ledger's balances and returns them.
func (p *agentProc) balances(ctx context.Context) (*Message, error) {
	path := filepath.Join(p.dir, "balances.tsv")
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := p.inst.Request(ctx, "balances "+path, ksdriver.EvBalances); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) > maxBalancesBytes {
		return nil, fmt.Errorf("balances of %d bytes do not fit one control record (at most %d)", len(b), maxBalancesBytes)
	}
	return &Message{Balances: string(b)}, nil
}

// BalancesTSV are the ledger's balances as the driver writes them.
func (p *Process) BalancesTSV(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout+time.Minute)
	defer cancel()
	r, err := p.command(ctx, OpBalances, &Message{})
	if err != nil {
		return "", err
	}
	return r.Balances, nil
}
