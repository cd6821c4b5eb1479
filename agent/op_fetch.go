package agent

import (
	"context"
	"path/filepath"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
)

func init() {
	opFetch.register()
}

// opFetch has a process's driver run a file command and returns the file.
var opFetch = op[FetchArgs, Fetched]{name: OpFetch, scope: scopeProcess, check: checkFetch,
	run: func(a *Agent, _ *Message, args *FetchArgs, p *agentProc) (*Fetched, error) {
		return p.fetch(a.procCtx, args.Line)
	}}

// FetchArgs are a fetch's arguments.
type FetchArgs struct {
	// Line is the driver's file command without its path ("balances",
	// "entries 3").
	Line string `json:"line"`
}

// Fetched is a fetch reply's result: the file the command wrote.
type Fetched struct {
	Data []byte `json:"data"`
}

// checkFetch allows only the driver's file commands, without their path
// (ksdriver.ParseFileCommand): the agent chooses where the file goes.
func checkFetch(_ *Message, args *FetchArgs) error {
	_, err := ksdriver.ParseFileCommand(args.Line)
	return err
}

// fetch has the driver run the file command line into a file of the
// process's own directory and returns the file's bytes (a reply larger
// than one control record goes in parts).
func (p *agentProc) fetch(ctx context.Context, line string) (*Fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	b, err := p.inst.FileCommand(ctx, line, filepath.Join(p.dir, "fetch.out"))
	if err != nil {
		return nil, err
	}
	return &Fetched{Data: b}, nil
}

// Fetch has the process run the driver's file command line (ksdriver's
// file commands, without their path: "balances", "entries 3") on its
// agent and returns the file it wrote.
func (p *Process) Fetch(ctx context.Context, line string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout+time.Minute)
	defer cancel()
	r, err := opFetch.call(ctx, p.c, p.agent, p.envelope(), FetchArgs{Line: line})
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}
