package agent

import (
	"context"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
)

func init() {
	registerOp(opDef{name: OpFetch, scope: scopeProcess, check: checkFetch,
		run: func(a *Agent, m *Message, p *agentProc) (*Message, error) { return p.fetch(a.procCtx, m.Fetch) }})
}

// checkFetch allows only the driver's file commands, without their path
// (ksdriver.ParseFileCommand): the agent chooses where the file goes.
func checkFetch(m *Message) error {
	_, err := ksdriver.ParseFileCommand(m.Fetch)
	return err
}

// fetch has the driver run the file command line into a file of the
// process's own directory and returns the file's bytes (a reply larger
// than one control record goes in parts).
func (p *agentProc) fetch(ctx context.Context, line string) (*Message, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	b, err := p.inst.FileCommand(ctx, line, filepath.Join(p.dir, "fetch.out"))
	if err != nil {
		return nil, err
	}
	return &Message{Fetched: b}, nil
}

// Fetch has the process run the driver's file command line (ksdriver's
// file commands, without their path: "balances", "entries 3") on its
// agent and returns the file it wrote.
func (p *Process) Fetch(ctx context.Context, line string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout+time.Minute)
	defer cancel()
	r, err := p.command(ctx, OpFetch, &Message{Fetch: line})
	if err != nil {
		return nil, err
	}
	return r.Fetched, nil
}
