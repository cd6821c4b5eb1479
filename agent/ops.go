package agent

import (
	"fmt"
	"sort"
)

// An operation is one kind of command an agent executes. Each has a file
// of its own (op_<name>.go) that registers it once, as franz-go's kfake
// registers a request kind: its name, what it is about (scope), the checks
// of its own payload and what it does, beside the coordinator's call for
// it. Adding an operation is adding one such file; a second registration
// of a name panics.

// scope is what a command is about, and so which of its names must be
// plain path elements, and whether a running process must exist.
type scope int

const (
	// scopeAgent: the agent itself (hello, clock, fill).
	scopeAgent scope = iota
	// scopeFleet: a fleet's directories (remove): Fleet is checked.
	scopeFleet
	// scopeInstance: an instance (start, wipe, ...): Fleet and Instance.
	scopeInstance
	// scopeProcess: a running process of an instance (send, stop, ...):
	// Fleet, Instance, and the process must run on this agent.
	scopeProcess
)

// opDef is a registered operation.
type opDef struct {
	name  string
	scope scope
	// check validates the operation's own payload, after the names of its
	// scope; nil checks nothing more.
	check func(m *Message) error
	// run executes it; p is the process of a scopeProcess command, nil
	// otherwise. A nil run is answered by the read loop itself (clock).
	run func(a *Agent, m *Message, p *agentProc) (*Message, error)
}

// ops are the registered operations, by name.
var ops = map[string]*opDef{}

// registerOp registers an operation; called from an init of its file.
func registerOp(d opDef) {
	if d.name == "" {
		panic("agent: an operation without a name")
	}
	if _, dup := ops[d.name]; dup {
		panic("agent: operation " + d.name + " registered twice")
	}
	ops[d.name] = &d
}

// Ops are the names of the registered operations, sorted.
func Ops() []string {
	out := make([]string, 0, len(ops))
	for name := range ops {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// validate checks m's fields for its operation (the names that become
// path elements, and its payload) before the agent does anything.
func validate(m *Message) error {
	if m.Protocol != ProtocolVersion {
		return versionErr(m.Protocol)
	}
	if err := checkName("run", m.Run); err != nil {
		return err
	}
	if m.N < 0 || m.N > maxProcessN {
		return fmt.Errorf("process number %d is not from 0 to %d", m.N, maxProcessN)
	}
	d := ops[m.Op]
	if d == nil {
		return fmt.Errorf("unknown command %.40q", m.Op)
	}
	if d.scope >= scopeFleet {
		if err := checkName("fleet", m.Fleet); err != nil {
			return err
		}
	}
	if d.scope >= scopeInstance {
		if err := checkName("instance", m.Instance); err != nil {
			return err
		}
	}
	if d.check != nil {
		return d.check(m)
	}
	return nil
}

// execute does what m asks; validate has checked m.
func (a *Agent) execute(m *Message) (*Message, error) {
	d := ops[m.Op]
	var p *agentProc
	if d.scope == scopeProcess {
		var err error
		if p, err = a.proc(m); err != nil {
			return nil, err
		}
	}
	return d.run(a, m, p)
}
