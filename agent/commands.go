package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// command executes a command once: a repeated command id (a coordinator
// resending while the reply was under way) is answered with the first
// execution's reply, or, while that still runs, not at all. A clock
// command is answered at once, from the read loop, so that its times are
// the agent's at receipt and at reply with nothing in between.
func (a *Agent) command(ctx context.Context, m *Message, recv int64) {
	if err := checkName("run", m.Run); err != nil || m.ID == "" || len(m.ID) > 64 {
		a.refuse("a command without a run and id", fmt.Errorf("run %.40q, id %.40q", m.Run, m.ID))
		return
	}
	key := m.Run + "/" + m.ID
	a.mu.Lock()
	l, known := a.leases[m.Run]
	reply, seen := a.replies[key]
	expired := known && l.expired
	busy := !seen && a.inFlight >= maxInFlight
	if !seen && !busy && !expired {
		a.replies[key] = nil
		a.inFlight++
	}
	a.mu.Unlock()
	switch {
	case seen && reply != nil:
		a.reply(ctx, reply)
		return
	case seen:
		return
	case expired:
		// Not kept: the run's replies were forgotten when its lease
		// expired, and each later command of it is refused alike.
		a.reply(ctx, replyTo(m, nil, fmt.Errorf("run %s's lease expired: its processes were stopped", m.Run)))
		return
	case busy:
		// Not kept: the coordinator's resend is tried again.
		a.refuse("a command", fmt.Errorf("%d commands are executing already", maxInFlight))
		return
	}
	if err := validate(m); err != nil {
		a.refuse("a "+m.Op+" command", err)
		a.finish(ctx, key, m, nil, fmt.Errorf("agent %s refused it: %w", a.cfg.Name, err))
		return
	}
	if err := a.lease(m.Run, 0); err != nil {
		a.finish(ctx, key, m, nil, err)
		return
	}
	if m.Op == OpClock {
		a.finish(ctx, key, m, &Message{Result: encodePayload(&Clocked{RecvMonoNs: recv})}, nil)
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		out, err := a.execute(m)
		a.finish(ctx, key, m, out, err)
	}()
}

// finish makes, keeps and sends the reply to m; the reply to a command
// that ran on while its run's lease expired is sent but not kept (the
// run's replies were forgotten at the expiry).
func (a *Agent) finish(ctx context.Context, key string, m *Message, out *Message, err error) {
	out = replyTo(m, out, err)
	size := replySize(out)
	a.mu.Lock()
	if a.leases[m.Run].expired {
		a.inFlight--
	} else {
		a.keep(key, out, size)
	}
	a.mu.Unlock()
	a.reply(ctx, out)
}

// replyTo is the reply to command m: out (nil: one without a result)
// addressed as m, saying err.
func replyTo(m, out *Message, err error) *Message {
	if out == nil {
		out = &Message{}
	}
	out.Type, out.Run, out.ID, out.Op = TypeReply, m.Run, m.ID, m.Op
	out.Fleet, out.Instance, out.N = m.Fleet, m.Instance, m.N
	out.Protocol = ProtocolVersion
	out.OK = err == nil
	if err != nil {
		out.Error = err.Error()
	}
	return out
}

// keep keeps out, of size bytes, as the reply to the command key, which
// no longer runs, forgetting the oldest kept replies past maxReplies of
// them or past maxReplyBytes (the newest is always kept). The caller
// holds a.mu.
func (a *Agent) keep(key string, out *Message, size int) {
	a.replies[key] = out
	a.inFlight--
	a.done = append(a.done, keptReply{key, size})
	a.doneBytes += size
	for len(a.done) > maxReplies || (a.doneBytes > maxReplyBytes && len(a.done) > 1) {
		old := a.done[0]
		delete(a.replies, old.key)
		a.doneBytes -= old.bytes
		a.done = a.done[1:]
	}
}

// forgetReplies forgets every reply kept for run's commands, and their
// bytes: the run's lease expired, its later commands are refused, so
// their replies need not be kept for repeats (a fetched file can be
// large), nor count against the bytes of the replies kept for other runs.
// The caller holds a.mu.
func (a *Agent) forgetReplies(run string) {
	ofRun := func(key string) bool { return strings.HasPrefix(key, run+"/") }
	for key := range a.replies {
		if ofRun(key) {
			delete(a.replies, key)
		}
	}
	a.done = slices.DeleteFunc(a.done, func(k keptReply) bool {
		if ofRun(k.key) {
			a.doneBytes -= k.bytes
			return true
		}
		return false
	})
}

// keptReply is a kept reply's command key and how many bytes the reply
// holds.
type keptReply struct {
	key   string
	bytes int
}

// replySize is about how many bytes a kept reply holds: its encoding's
// (a small reply's is a few hundred bytes).
func replySize(m *Message) int { return len(m.Encode()) }

// reply sends a copy of out, the kept reply, stamped now: a repeated
// command may be answered while the first reply is still being sent.
func (a *Agent) reply(ctx context.Context, out *Message) {
	c := *out
	if err := a.sendReply(ctx, &c); err != nil && ctx.Err() == nil {
		a.cfg.Logf("agent %s: reply to %s %s: %v", a.cfg.Name, out.Op, out.ID, err)
	}
}

// instDir is where an instance keeps its state and its processes'
// directories on this agent.
func (a *Agent) instDir(run, fleet, instance string) string {
	return filepath.Join(a.cfg.StateDir, run, fleet, instance)
}

func (a *Agent) stateDir(run, fleet, instance string) string {
	return filepath.Join(a.instDir(run, fleet, instance), "state")
}

// removeOwn removes the directory parts name under the agent's state dir
// (a run's, a fleet's or an instance's state), refusing when any of them
// is a symbolic link: removing through it would delete what the agent did
// not create, elsewhere on the host. One not there is nothing to remove.
func (a *Agent) removeOwn(parts ...string) error {
	p := a.cfg.StateDir
	for _, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link, not a directory agent %s made; refusing to remove through it", p, a.cfg.Name)
		}
	}
	return os.RemoveAll(p)
}

// proc is the process m names.
func (a *Agent) proc(m *Message) (*agentProc, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.procs[procKey{m.Run, m.Fleet, m.Instance, m.N}]
	if p == nil {
		return nil, fmt.Errorf("no process %d of instance %s of %s runs on agent %s", m.N, m.Instance, m.Fleet, a.cfg.Name)
	}
	return p, nil
}
