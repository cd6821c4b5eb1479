package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// An operation is one kind of command an agent executes. Each has a file
// of its own (op_<name>.go) that declares it once, as franz-go's kfake
// registers a request kind: an op value naming it, what it is about
// (scope), its own argument and result types, the checks of its
// arguments and what it does, beside the coordinator's call of it (op.call).
// Adding an operation is adding one such file; a second registration of a
// name panics.

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

// none is the arguments or result of an operation that has none.
type none struct{}

// op declares an operation whose command carries arguments A (in
// Message.Args) and whose reply carries a result R (in Message.Result).
type op[A, R any] struct {
	name  string
	scope scope
	// check validates the arguments of command m, after the names of the
	// scope; nil checks nothing more.
	check func(m *Message, args *A) error
	// run executes the command; p is the process of a scopeProcess
	// command, nil otherwise. A nil run is answered by the read loop
	// itself (clock). A nil result sends none.
	run func(a *Agent, m *Message, args *A, p *agentProc) (*R, error)
}

// register adds o to the registry; called from an init of its file.
func (o op[A, R]) register() {
	d := opDef{name: o.name, scope: o.scope,
		decode: func(m *Message) (any, error) {
			var args A
			if err := decodeStrict(m.Args, &args); err != nil {
				return nil, fmt.Errorf("%s arguments: %w", o.name, err)
			}
			if o.check != nil {
				if err := o.check(m, &args); err != nil {
					return nil, err
				}
			}
			return &args, nil
		}}
	if o.run != nil {
		d.run = func(a *Agent, m *Message, p *agentProc) (*Message, error) {
			r, err := o.run(a, m, m.args.(*A), p)
			if r == nil || err != nil {
				return nil, err // an error's reply carries no result
			}
			return &Message{Result: encodePayload(r)}, err
		}
	}
	registerOp(d)
}

// call sends the command m (its Op set to o's; Fleet, Instance and N as
// its scope needs) with args to agent and returns the reply's result.
func (o op[A, R]) call(ctx context.Context, c *Coordinator, agent string, m *Message, args A) (*R, error) {
	r, err := c.Do(ctx, agent, o.command(m, args))
	if err != nil {
		return nil, err
	}
	return o.result(agent, r)
}

// command sets m's Op and Args to o's with args.
func (o op[A, R]) command(m *Message, args A) *Message {
	m.Op, m.Args = o.name, encodePayload(&args)
	return m
}

// result decodes the result of agent's reply r to an o command.
func (o op[A, R]) result(agent string, r *Message) (*R, error) {
	var out R
	if _, isNone := any(out).(none); !isNone && len(r.Result) == 0 {
		return nil, fmt.Errorf("agent %s: the reply to %s holds no result", agent, o.name)
	}
	if err := decodeStrict(r.Result, &out); err != nil {
		return nil, fmt.Errorf("agent %s: the reply to %s: %w", agent, o.name, err)
	}
	return &out, nil
}

// encodePayload is v's JSON, or nothing for an empty object (the
// arguments or result of an operation without any).
func encodePayload(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // every payload marshals
	}
	if string(b) == "{}" {
		return nil
	}
	return b
}

// decodeStrict decodes a payload into v, refusing a field v does not have
// (a peer of another build, or a forged message): nothing is ignored.
// An absent payload is v's zero value.
func decodeStrict(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("more than one value")
	}
	return nil
}

// opDef is a registered operation, its payload types erased.
type opDef struct {
	name  string
	scope scope
	// decode decodes and checks the arguments of command m (its Args).
	decode func(m *Message) (any, error)
	// run executes it, its arguments in m.args; nil: the read loop answers.
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
	args, err := d.decode(m)
	if err != nil {
		return err
	}
	m.args = args
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
