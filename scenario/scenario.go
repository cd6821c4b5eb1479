package scenario

import (
	"context"
	"fmt"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
	"github.com/restorebench/restorebench/runs"
)

// Scenario runs one request and returns its records, one per measurement
// it makes (a cold restore makes one; a warm-restart sequence one per
// restart), filled in as far as the run got, also on error. On error it
// returns every measurement it finished before the failed step (each
// verified, or carrying its verification's failure in Error) and that
// step's error; the failed step's partial record, if it made one, comes
// last with Error set. A step can fail without a record of its own (the
// write before a warm restart): the finished measurements still stand,
// and the bench keeps them, also when the run is interrupted.
type Scenario interface {
	Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error)
}

// oneMeasurement is a scenario that makes one measurement per request.
type oneMeasurement interface {
	Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) (runs.Restore, error)
}

// single adapts a one-measurement scenario to Scenario.
type single struct{ s oneMeasurement }

func (s single) Run(ctx context.Context, env *fleet.Env, t fleet.Target, req fleet.Request) ([]runs.Restore, error) {
	rec, err := s.s.Run(ctx, env, t, req)
	return []runs.Restore{rec}, err
}

// runner is one entry of the runner table: a scenario on an engine.
type runner struct {
	scenario config.Scenario
	engine   config.Engine
}

// runners is the runner table, filled by Register from each runner file's
// init (cold.go registers ColdModel, cold_kstreams.go ColdKafkaStreams,
// scenario/failover FailoverKafkaStreams, ...).
var runners = map[runner]Scenario{}

// Register adds the runner of scenario sc on engine e; it is exported for
// the scenarios with a package of their own (scenario/failover), which
// scenario/all links in. It panics, when the program starts, unless
// config registers sc and names e among its engines
// (config.ScenarioDef.Engines), or when sc already has a runner on e: the
// runner table and config's scenario registry cannot disagree.
func Register(sc config.Scenario, e config.Engine, s Scenario) {
	def, ok := config.ScenarioDefOf(sc)
	switch {
	case !ok:
		panic(fmt.Sprintf("scenario: register %s on %s: config registers no such scenario", sc, e))
	case !def.RunsOn(e):
		panic(fmt.Sprintf("scenario: register %s on %s: config's scenario %s names only the engines %v", sc, e, sc, def.Engines))
	case runners[runner{sc, e}] != nil:
		panic(fmt.Sprintf("scenario: register %s on %s: registered twice", sc, e))
	}
	runners[runner{sc, e}] = s
}

// For returns the scenario a case asks for on its engine.
func For(c config.Case) (Scenario, error) {
	if s := runners[runner{c.Scenario, c.Engine}]; s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("case %s: scenario %s is not available on the %s engine", c.Name, c.Scenario, c.Engine)
}

// CheckBroker says, before anything runs, whether a case can run on this
// broker: a scenario whose descriptor needs a real broker
// (config.BrokerReal: the failover scenario's ledger topology has Kafka
// Streams create its own changelog topic, which the embedded broker, kfake,
// refuses) is refused on the embedded one.
func CheckBroker(c config.Case, embedded bool) error {
	if def, ok := config.ScenarioDefOf(c.Scenario); ok && embedded && def.Broker == config.BrokerReal {
		return fmt.Errorf("case %s: the %s scenario needs a real broker (%s): make kafka-up, then --brokers 127.0.0.1:19092", c.Name, c.Scenario, def.BrokerWhy)
	}
	return nil
}
