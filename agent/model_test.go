package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/testkafka"
	"github.com/restorebench/restorebench/loadgen"
	"github.com/restorebench/restorebench/measure"
	"github.com/restorebench/restorebench/runs"
)

// fakeModel is a model restorer that counts its calls, notes whether its
// state directory was empty, and replies with a record whose series is
// large enough (about 2.4 MB encoded) that the reply must go in parts.
type fakeModel struct {
	calls    atomic.Int32
	dirEmpty atomic.Bool
	block    chan struct{} // when set, each call waits until it is closed or ctx ends
}

func (f *fakeModel) restore(ctx context.Context, job ModelJob) (*ModelRestored, error) {
	f.calls.Add(1)
	ents, _ := os.ReadDir(job.StateDir)
	f.dirEmpty.Store(len(ents) == 0)
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	rec := runs.Restore{Records: 1234, Phase: &runs.RestorePhase{Seconds: 1.5, TotalSeconds: 1.5, PeakRSSBytes: 7 << 20}}
	for i := range 60000 {
		rec.Series = append(rec.Series, measure.Point{T: float64(i), Records: int64(i) * 1000})
	}
	states := []loadgen.PartitionState{{Partition: 0, Keys: 3, LiveBytes: 30}, {Partition: 1, Keys: 4, LiveBytes: 40}}
	return &ModelRestored{Figures: ModelFiguresOf(rec), States: states}, nil
}

func modelJob() ModelRestore {
	c := config.DefaultCase()
	c.Name = "cold"
	return ModelRestore{Case: ModelCaseOf(c), Repeat: 1, Topic: "t", AppID: "app", StoreName: "s", Start: map[int32]int64{0: 0, 1: 0}, End: map[int32]int64{0: 5, 1: 6}}
}

// TestModelRestoreOnAgent: the agent runs the restore into the instance's
// emptied state directory under its own --state-dir and the coordinator
// gets the whole record back, though its reply is larger than a control
// record and so came in parts.
func TestModelRestoreOnAgent(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	f := &fakeModel{}
	ta := startAgentWith(t, cfg, "a1", time.Second, f.restore)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runm"})
	state := filepath.Join(ta.dir, "runm", "app", "i0", "state")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(state, "left-by-an-earlier-repeat"), []byte("x"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := co.ModelRestore(ctx, "a1", "app", "i0", modelJob())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(mustJSON(got)); n <= maxControlRecord {
		t.Fatalf("the reply is %d bytes: too small to test parts", n)
	}
	if got.StateDir != state || !f.dirEmpty.Load() {
		t.Fatalf("restored into %s (empty before: %v), want the emptied %s", got.StateDir, f.dirEmpty.Load(), state)
	}
	if got.Figures.Records != 1234 || len(got.Figures.Series) != 60000 || got.Figures.Series[59999].Records != 59999000 || len(got.States) != 2 || got.States[1].Keys != 4 {
		t.Fatalf("reply: %d records, %d points, states %+v", got.Figures.Records, len(got.Figures.Series), got.States)
	}
}

// TestModelRestoreIdempotent sends one model_restore three times with one
// id: the agent restores once, and the repeat after it finished gets the
// same reply.
func TestModelRestoreIdempotent(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	f := &fakeModel{block: make(chan struct{})}
	startAgentWith(t, cfg, "a1", time.Second, f.restore)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runi"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	job := modelJob()
	m := withArgs(&Message{Type: TypeCommand, Protocol: ProtocolVersion, Agent: "a1", Run: "runi", ID: "dup", Op: OpModelRestore, Fleet: "app", Instance: "i0"}, job)
	ch := make(chan reply, 4)
	await := func() ModelRestored {
		select {
		case r := <-ch:
			if r.err != nil || !r.m.OK || len(r.m.Result) == 0 {
				t.Fatalf("reply %+v, %v", r.m, r.err)
			}
			return resultOf[ModelRestored](t, r.m)
		case <-ctx.Done():
			t.Fatal("no reply")
		}
		return ModelRestored{}
	}
	co.mu.Lock()
	co.pending["dup"] = &pending{agent: "a1", ch: ch}
	co.mu.Unlock()
	for range 2 {
		if err := co.bus.send(ctx, ControlTopic, "a1", m.Encode()); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // both copies read while the first runs
	close(f.block)
	first := await()
	co.mu.Lock()
	co.pending["dup"] = &pending{agent: "a1", ch: ch}
	co.mu.Unlock()
	if err := co.bus.send(ctx, ControlTopic, "a1", m.Encode()); err != nil {
		t.Fatal(err)
	}
	again := await()
	if n := f.calls.Load(); n != 1 {
		t.Fatalf("%d restores for one command id, want 1", n)
	}
	if again.Figures.Records != first.Figures.Records || len(again.Figures.Series) != len(first.Figures.Series) {
		t.Fatalf("the repeat's reply differs: %+v", again.Figures)
	}
}

// TestModelRestoreAgentLost: an agent that goes silent mid-restore (its
// connection to the brokers gone) ends the coordinator's wait with the
// error naming it, the one a kafka-streams instance's loss gives.
func TestModelRestoreAgentLost(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	f := &fakeModel{block: make(chan struct{})}
	var ta *testAgent
	ta = startAgentWith(t, cfg, "gone", time.Second, func(ctx context.Context, job ModelJob) (*ModelRestored, error) {
		ta.a.bus.close() // no heartbeat, no reply from now on
		return f.restore(ctx, job)
	})
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"gone"}, Run: "runl", HeartbeatTimeout: 1500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := co.ModelRestore(ctx, "gone", "app", "i0", modelJob())
	if !errors.Is(err, ErrAgentLost) || !strings.Contains(err.Error(), "agent gone lost: it stopped heartbeating") {
		t.Fatalf("a model restore on an agent lost mid-restore: %v", err)
	}
	if f.calls.Load() != 1 {
		t.Fatalf("%d restores started", f.calls.Load())
	}
}

// TestModelRestoreWithoutEngine: an agent without the model engine says
// so instead of replying with nothing.
func TestModelRestoreWithoutEngine(t *testing.T) {
	cfg, _ := testkafka.Embedded(t)
	startAgent(t, cfg, "a1", time.Second)
	co := openCoordinator(t, cfg, CoordinatorConfig{Agents: []string{"a1"}, Run: "runn"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := co.ModelRestore(ctx, "a1", "app", "i0", modelJob()); err == nil || !strings.Contains(err.Error(), "runs no model-engine restores") {
		t.Fatalf("a model restore on an agent without the engine: %v", err)
	}
}
