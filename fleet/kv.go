package fleet

import (
	"context"
	"maps"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/ksdriver"
)

// fleetDriverProperties are the driver settings of a kv fleet's instances:
// the task, processed-record, lag and process pollers the timelines are
// built from.
var fleetDriverProperties = map[string]string{
	ksdriver.PropTasksIntervalMs:     "100",
	ksdriver.PropProcessedIntervalMs: "100",
	ksdriver.PropLagsIntervalMs:      "1000",
	ksdriver.PropProcessIntervalMs:   "1000",
}

// OpenFleet does what every kv fleet scenario (scale-out, rolling
// restarts, standbys) does first: checks the target and the broker,
// creates the kv topology's input topic and builds the fleet of the
// target's application on the local host, with the case's Kafka Streams
// properties, the application's and the driver's pollers. It returns the
// changelog's offsets, also when a later step failed (their zero value
// when reading them did).
func OpenFleet(ctx context.Context, env *Env, t Target, req Request) (f *Fleet, input string, offsets cluster.TopicOffsets, err error) {
	if err = CheckKafkaStreamsTarget(env, t); err != nil {
		return nil, "", offsets, err
	}
	if offsets, err = env.Offsets(ctx, t.Topic); err != nil {
		return nil, "", offsets, err
	}
	if err = CheckBrokerForKafkaStreams(ctx, env.Cluster, t.Topic); err != nil {
		return nil, "", offsets, err
	}
	if input, err = EnsureInputTopic(ctx, env, t, int32(len(offsets.End))); err != nil {
		return nil, "", offsets, err
	}
	props, err := InstanceProperties(env, t, req, input)
	if err != nil {
		return nil, "", offsets, err
	}
	if err := AddKindProperties(props, req); err != nil { // a window or session store's
		return nil, "", offsets, err
	}
	maps.Copy(props, fleetDriverProperties)
	delete(props, "state.dir") // each instance has its own
	host, err := NewHost(env, req, req.StateDir, t.AppID, Layout{})
	if err != nil {
		return nil, "", offsets, err
	}
	return NewFleet(env, t, req, props, host), input, offsets, nil
}
