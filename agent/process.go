package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/restorebench/restorebench/ksdriver"
)

// Timeouts of a remote process's commands: the agent's ksdriver bounds
// each itself (hello 60 s, stop 75 s plus 10 s of SIGTERM); these leave it
// room, and a lost agent ends every wait at once anyway.
const (
	startTimeout   = 3 * time.Minute
	stopTimeout    = 3 * time.Minute
	commandTimeout = 2 * time.Minute
	// exitWait bounds the wait for a process's exit record after its
	// stop or kill was acknowledged (the record is written before).
	exitWait = 30 * time.Second
)

// ProcessSpec is a process to start on an agent: the N-th of instance
// Instance of fleet Fleet (its application.id), with its properties (no
// state.dir, no secrets) and JVM flags.
type ProcessSpec struct {
	Fleet, Instance string
	N               int
	Properties      map[string]string
	JVMFlags        []string
	// KafkaStreamsVersion is the Kafka Streams version the process runs
	// ("" the default): the agent starts the driver built for it.
	KafkaStreamsVersion string
	// NeedBytes is the free space the process needs in the agent's state
	// directory (e.g. the changelog it restores); the agent refuses to
	// start it on a disk with less (DiskFullError). Default 0: unchecked.
	NeedBytes int64
}

// Process is a driver process on an agent, seen from the coordinator: its
// events as they arrive over the events topic, each time moved onto the
// coordinator's clock by the agent's offset, and its commands.
type Process struct {
	c      *Coordinator
	agent  string
	key    procKey
	offset int64
	hello  *ksdriver.Hello
	launch int64

	mu      sync.Mutex
	events  []ksdriver.Event
	notify  chan struct{}
	ended   bool
	endErr  error
	done    chan struct{}
	nextSeq int64
}

// Start starts a process on agent and returns once its hello arrived.
func (c *Coordinator) Start(ctx context.Context, agent string, spec ProcessSpec) (*Process, error) {
	if err := refuseSecrets(spec.Properties); err != nil {
		return nil, err
	}
	p := &Process{c: c, agent: agent, key: procKey{c.cfg.Run, spec.Fleet, spec.Instance, spec.N}, offset: c.Clock(agent).OffsetNs,
		notify: make(chan struct{}), done: make(chan struct{})}
	c.mu.Lock()
	c.procs[p.key] = p
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	r, err := opStart.call(ctx, c, agent, &Message{Fleet: spec.Fleet, Instance: spec.Instance, N: spec.N},
		StartArgs{Properties: spec.Properties, JVMFlags: spec.JVMFlags, KafkaStreamsVersion: spec.KafkaStreamsVersion, NeedBytes: spec.NeedBytes})
	if err != nil {
		p.end(err)
		return nil, err
	}
	p.launch = r.AtMonoNs - p.offset
	e, err := p.Next(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("agent %s: instance %s started but its hello did not arrive: %w", agent, spec.Instance, err)
	}
	h, ok := e.(*ksdriver.Hello)
	if !ok {
		return nil, fmt.Errorf("agent %s: instance %s's first event is %q, not hello", agent, spec.Instance, e.Head().Ev)
	}
	p.hello = h
	return p, nil
}

// refuseSecrets refuses properties that look like secrets: they would
// travel in clear through the control topic. Agents take their processes'
// client security from their own settings.
func refuseSecrets(props map[string]string) error {
	for k := range props {
		l := strings.ToLower(k)
		if strings.Contains(l, "password") || strings.Contains(l, "jaas") || strings.Contains(l, "secret") ||
			strings.HasSuffix(l, "ssl.keystore.key") || strings.HasSuffix(l, "ssl.keystore.certificate.chain") {
			return fmt.Errorf("property %s holds a secret and is not sent to agents: an agent's processes use the agent's own security settings", k)
		}
	}
	return nil
}

// event takes a record of the events topic to its process.
func (c *Coordinator) event(value []byte) {
	var r Record
	if err := json.Unmarshal(value, &r); err != nil || r.Run != c.cfg.Run {
		return
	}
	c.mu.Lock()
	p := c.procs[procKey{r.Run, r.Fleet, r.Instance, r.N}]
	c.mu.Unlock()
	if p == nil || p.agent != r.Agent {
		return
	}
	p.add(&r)
}

// add appends a record's event, on the coordinator's clock, or ends the
// process.
func (p *Process) add(r *Record) {
	p.mu.Lock()
	if p.ended || r.Seq < p.nextSeq {
		p.mu.Unlock()
		return // a duplicate (a producer retry)
	}
	if r.Seq > p.nextSeq {
		p.c.cfg.Logf("agents: %s process %d on %s: events %d to %d missing", p.key.instance, p.key.n, p.agent, p.nextSeq, r.Seq-1)
	}
	p.nextSeq = r.Seq + 1
	p.mu.Unlock()
	if r.Exit != nil {
		p.end(exitError(p.agent, p.key.instance, r.Exit))
		return
	}
	e, err := ksdriver.Parse(r.Event)
	if err != nil {
		e = &ksdriver.Unknown{Raw: string(r.Event)}
	}
	ShiftEvent(e, -p.offset)
	e.Head().RecvMonoNs = r.AgentMonoNs - p.offset
	p.mu.Lock()
	p.events = append(p.events, e)
	close(p.notify)
	p.notify = make(chan struct{})
	p.mu.Unlock()
}

// ShiftEvent moves every clock reading of an event by delta nanoseconds.
func ShiftEvent(e ksdriver.Event, delta int64) {
	h := e.Head()
	if h.MonoNs != 0 {
		h.MonoNs += delta
	}
	if pr, ok := e.(*ksdriver.Processed); ok {
		for i := range pr.Partitions {
			pr.Partitions[i].FirstMonoNs += delta
			pr.Partitions[i].LastMonoNs += delta
		}
	}
}

// ExitError is how a process on an agent ended, as the agent saw it.
type ExitError struct {
	Agent, Instance string
	Clean           bool
	Text            string
}

func (e *ExitError) Error() string {
	if e.Clean {
		return fmt.Sprintf("kafka-streams instance %s on agent %s exited (exit status 0)", e.Instance, e.Agent)
	}
	return fmt.Sprintf("on agent %s: %s", e.Agent, e.Text)
}

func exitError(agent, instance string, x *Exit) error {
	return &ExitError{Agent: agent, Instance: instance, Clean: x.Clean, Text: x.Error}
}

// end ends the process with err (the first end wins).
func (p *Process) end(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended, p.endErr = true, err
	close(p.notify)
	p.notify = make(chan struct{})
	close(p.done)
	p.c.mu.Lock()
	delete(p.c.procs, p.key)
	p.c.mu.Unlock()
}

// ID is the instance the process is of.
func (p *Process) ID() string { return p.key.instance }

// WaitFor is the first event from index from on that match accepts, and
// its index, waiting for it as ksdriver.Instance.WaitFor does; past the
// last event, how the process ended.
func (p *Process) WaitFor(ctx context.Context, from int, match func(ksdriver.Event) bool) (ksdriver.Event, int, error) {
	for i := from; ; i++ {
		e, err := p.Next(ctx, i)
		if err != nil {
			return nil, i, err
		}
		if match(e) {
			return e, i, nil
		}
	}
}

// Agent is the agent the process runs on.
func (p *Process) Agent() string { return p.agent }

// Hello is the process's hello.
func (p *Process) Hello() *ksdriver.Hello { return p.hello }

// LaunchMonoNs is when the agent launched the JVM, on the coordinator's clock.
func (p *Process) LaunchMonoNs() int64 { return p.launch }

// Events are the events received until now.
func (p *Process) Events() []ksdriver.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ksdriver.Event(nil), p.events...)
}

// Len is how many events arrived.
func (p *Process) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.events)
}

// Done is closed once the process ended (or its agent was lost).
func (p *Process) Done() <-chan struct{} { return p.done }

// Next is event i, waiting for it; past the last, how the process ended.
func (p *Process) Next(ctx context.Context, i int) (ksdriver.Event, error) {
	for {
		p.mu.Lock()
		if i < len(p.events) {
			e := p.events[i]
			p.mu.Unlock()
			return e, nil
		}
		if p.ended {
			err := p.endErr
			p.mu.Unlock()
			return nil, err
		}
		ch := p.notify
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// envelope is a command about this process, to which an op adds its own.
func (p *Process) envelope() *Message {
	return &Message{Fleet: p.key.fleet, Instance: p.key.instance, N: p.key.n}
}

// Request sends a driver command and waits for its reply event (or the
// error event that answers instead), as ksdriver.Instance.Request does.
func (p *Process) Request(ctx context.Context, command, replyEv string) (ksdriver.Event, error) {
	from := p.Len()
	cctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	if _, err := opSend.call(cctx, p.c, p.agent, p.envelope(), SendArgs{Line: command}); err != nil {
		return nil, err
	}
	word, _, _ := strings.Cut(strings.TrimSpace(command), " ")
	for i := from; ; i++ {
		e, err := p.Next(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("kafka-streams instance %s on agent %s: waiting for the reply to %q: %w", p.key.instance, p.agent, command, err)
		}
		if er, ok := e.(*ksdriver.Error); ok && (er.Where == "command" || er.Where == word) {
			return nil, er.Err()
		}
		if e.Head().Ev == replyEv {
			return e, nil
		}
	}
}

// Stop stops the process cleanly and waits for its end; nil only for a
// clean stop.
func (p *Process) Stop(ctx context.Context) error {
	if p.isEnded() {
		return p.cleanResult()
	}
	sctx, cancel := context.WithTimeout(ctx, stopTimeout)
	defer cancel()
	_, err := opStop.call(sctx, p.c, p.agent, p.envelope(), none{})
	p.awaitEnd(ctx)
	if err != nil {
		return err
	}
	return p.cleanResult()
}

// cleanResult is nil when the process ended cleanly, else how it ended.
func (p *Process) cleanResult() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ee *ExitError
	if errors.As(p.endErr, &ee) && ee.Clean {
		return nil
	}
	if !p.ended {
		return fmt.Errorf("kafka-streams instance %s on agent %s: no exit record within %s of its stop", p.key.instance, p.agent, exitWait)
	}
	return p.endErr
}

// Kill ends the process at once and waits for its end.
func (p *Process) Kill() { p.KillNow() }

// KillNow kills the process and returns when, on the coordinator's clock
// (now, when the agent could not say).
func (p *Process) KillNow() int64 {
	if p.isEnded() {
		return ksdriver.NowMonoNs()
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	r, err := opKill.call(ctx, p.c, p.agent, p.envelope(), none{})
	p.awaitEnd(ctx)
	if err != nil || r.AtMonoNs == 0 {
		return ksdriver.NowMonoNs()
	}
	return r.AtMonoNs - p.offset
}

func (p *Process) isEnded() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

// awaitEnd waits up to exitWait for the process's exit record.
func (p *Process) awaitEnd(ctx context.Context) {
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	case <-ctx.Done():
	}
}
