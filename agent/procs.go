package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/ksdriver"
)

// agentProc is one driver process the agent runs.
type agentProc struct {
	key  procKey
	inst *ksdriver.Instance
	dir  string
	// forwarded is closed once every event and the exit record are written.
	forwarded chan struct{}
	// reason, when the agent itself stopped the process, says why.
	reason atomic.Pointer[string]
}

// forward writes every event of p to the events topic, in order, then the
// record of how it ended; then the agent forgets p.
func (a *Agent) forward(p *agentProc) {
	defer close(p.forwarded)
	k := p.key
	rec := Record{Run: k.run, Fleet: k.fleet, Agent: a.cfg.Name, Instance: k.instance, N: k.n}
	key := EventKey(k.run, k.fleet, k.instance)
	ctx := context.WithoutCancel(a.procCtx)
	var last ksdriver.Event
	for i := 0; ; i++ {
		e, err := p.inst.Next(ctx, i)
		if err != nil {
			rec.Event, rec.Exit = nil, exitOf(err, last)
			if why := p.reason.Load(); why != nil {
				rec.Exit = &Exit{Error: fmt.Sprintf("agent %s stopped it: %s (%v)", a.cfg.Name, *why, err)}
			}
			rec.AgentMonoNs = ksdriver.NowMonoNs()
			if serr := a.bus.send(ctx, EventsTopic, key, mustJSON(rec)); serr != nil {
				a.cfg.Logf("agent %s: the exit of %s process %d: %v", a.cfg.Name, k.instance, k.n, serr)
			}
			break
		}
		last = e
		rec.Seq, rec.AgentMonoNs, rec.Event = int64(i), e.Head().RecvMonoNs, EncodeEvent(e)
		a.bus.sendAsync(ctx, EventsTopic, key, mustJSON(rec), func(err error) {
			if err != nil {
				a.cfg.Logf("agent %s: an event of %s process %d was not written: %v", a.cfg.Name, k.instance, k.n, err)
			}
		})
		rec.Seq++
	}
	a.mu.Lock()
	delete(a.procs, k)
	a.mu.Unlock()
}

// exitOf describes a process's end from Next's error past its last event:
// clean is exit status 0, not killed, after a clean stopped event.
func exitOf(err error, last ksdriver.Event) *Exit {
	var ee *ksdriver.ExitError
	if errors.As(err, &ee) && ee.State == "exit status 0" && ee.Killed == "" {
		if s, ok := last.(*ksdriver.Stopped); ok && s.Clean {
			return &Exit{Clean: true}
		}
	}
	return &Exit{Error: err.Error()}
}

// EncodeEvent is an event as the driver's JSON line: an event of a kind
// this build does not know goes as it came.
func EncodeEvent(e ksdriver.Event) json.RawMessage {
	if u, ok := e.(*ksdriver.Unknown); ok && u.Raw != "" {
		if json.Valid([]byte(u.Raw)) {
			return json.RawMessage(u.Raw)
		}
		b, _ := json.Marshal(map[string]any{"ev": "", "instance": u.Instance, "raw": u.Raw})
		return b
	}
	return mustJSON(e)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// clientPrefixes are the prefixes under which Kafka Streams passes a
// client setting to one of its clients (config.StreamsClientPrefixes),
// and none: a setting every client takes.
var clientPrefixes = append([]string{""}, config.StreamsClientPrefixes()...)

// isClientKey says whether key is a connection setting the agent owns:
// bootstrap.servers, security.protocol, sasl.* or ssl.*, under any client
// prefix, or the driver's connection check and secrets file.
func isClientKey(key string) bool {
	if key == ksdriver.PropConnectTimeoutMs || key == ksdriver.PropSecretsFile {
		return true
	}
	for _, pre := range clientPrefixes {
		rest, ok := strings.CutPrefix(key, pre)
		if ok && (rest == "bootstrap.servers" || rest == "security.protocol" || strings.HasPrefix(rest, "sasl.") || strings.HasPrefix(rest, "ssl.")) {
			return true
		}
	}
	return false
}

// processProperties are a process's properties: the coordinator's, but
// every connection setting the agent's own (its brokers, its security).
func (a *Agent) processProperties(in map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		if !isClientKey(k) {
			out[k] = v
		}
	}
	maps.Copy(out, a.client.Plain)
	return out
}

// processClient is how the agent's processes reach the cluster: its
// brokers and, when secured, its security settings (secrets apart), with
// the driver's connection check on.
func processClient(cfg cluster.Config) (cluster.JavaClient, error) {
	jc := cluster.JavaClient{Plain: map[string]string{}, Secret: map[string]string{}}
	if s := cfg.Settings; s != nil {
		var err error
		if jc, err = s.JavaProperties(); err != nil {
			return jc, err
		}
		timeout := cfg.ConnectTimeout
		if timeout <= 0 {
			timeout = cluster.DefaultConnectTimeout
		}
		jc.Plain[ksdriver.PropConnectTimeoutMs] = strconv.FormatInt(timeout.Milliseconds(), 10)
	}
	jc.Plain["bootstrap.servers"] = strings.Join(cfg.Brokers, ",")
	return jc, nil
}

// watchLeases stops the processes of every run whose lease ran out, until
// ctx ends.
func (a *Agent) watchLeases(ctx context.Context) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for run, procs := range a.expiredRuns() {
			a.cfg.Logf("agent %s: run %s's lease expired (no lease or command from it): stopping its %d process(es)", a.cfg.Name, run, len(procs))
			go a.stopProcs(procs, "run "+run+"'s lease expired")
		}
	}
}

// expiredRuns marks the runs whose lease ran out and returns their live
// processes.
func (a *Agent) expiredRuns() map[string][]*agentProc {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string][]*agentProc{}
	for run, l := range a.leases {
		if !l.expired && time.Since(l.seen) > l.ttl {
			l.expired = true
			a.leases[run] = l
			out[run] = nil
			for _, stop := range a.bound[run] { // its model restores, fills and query loads
				stop(nil)
			}
			delete(a.bound, run)
			a.forgetReplies(run)
		}
	}
	// The processes of every expired run, not only of those that expired
	// now: a start under way when its lease ran out registers its process
	// later. Each is stopped once (reason marks it).
	for k, p := range a.procs {
		if a.leases[k.run].expired && p.reason.Load() == nil {
			why := "run " + k.run + "'s lease expired"
			p.reason.Store(&why)
			out[k.run] = append(out[k.run], p)
		}
	}
	for run, ps := range out {
		if len(ps) == 0 {
			delete(out, run)
		}
	}
	return out
}

// stopProcs stops processes at once, each cleanly within StopTimeout or
// killed, and waits until their ends are written.
func (a *Agent) stopProcs(procs []*agentProc, why string) {
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.StopTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, p := range procs {
		p.reason.Store(&why)
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.inst.Stop(ctx)
			<-p.forwarded
		}()
	}
	wg.Wait()
}

// byeWait bounds the bye and the last flush of a shutdown: an agent whose
// broker has gone away still stops well within a pod's grace period.
const byeWait = 5 * time.Second

// shutdown stops every process, waits for the commands under way, says
// bye and flushes.
func (a *Agent) shutdown() {
	a.mu.Lock()
	procs := make([]*agentProc, 0, len(a.procs))
	for _, p := range a.procs {
		procs = append(procs, p)
	}
	a.mu.Unlock()
	if len(procs) > 0 {
		a.cfg.Logf("agent %s: shutting down: stopping %d process(es)", a.cfg.Name, len(procs))
	}
	a.stopProcs(procs, "the agent is shutting down")
	a.stopAll()
	a.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), byeWait)
	defer cancel()
	a.send(ctx, &Message{Type: TypeBye})
	a.bus.flush(ctx)
	a.cfg.Logf("agent %s: stopped", a.cfg.Name)
}
