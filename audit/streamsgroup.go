package audit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// streamsGroupLagsUnseen says what StreamsGroupDescribe does not tell.
const streamsGroupLagsUnseen = "the streams protocol (KIP-1071) reports the members' task offsets only in their heartbeats, not in " +
	"StreamsGroupDescribe: how far each standby or warm-up copy is behind cannot be seen (counted here as restoring in full, the worst case)"

// readStreamsGroup describes a group on the streams protocol with
// StreamsGroupDescribe (a describe request to the group's coordinator):
// its members (process id, client id, host, endpoint), their active,
// standby and warm-up tasks, and its topology's changelogs by
// subtopology, which set the changelogs' subtopologies.
func readStreamsGroup(ctx context.Context, cl *kgo.Client, adm *kadm.Client, app string, r *Report) error {
	d, err := describeStreamsGroup(ctx, cl, adm, app)
	if err != nil {
		return err
	}
	g := &Group{State: d.State, ProtocolType: "streams", Type: "streams"}
	r.Group = g
	if d.Topology != nil {
		mapTopologyChangelogs(r, d.Topology)
		r.topologyRead = true
	} else {
		r.Unseen = append(r.Unseen, "the group's topology is not initialized: which subtopology writes which changelog cannot be seen")
	}
	var bad []string
	for _, m := range d.Members {
		g.Members = append(g.Members, streamsMember(m, &bad))
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		r.Unseen = append(r.Unseen, fmt.Sprintf("tasks of subtopologies %v, whose ids are not numbers, are left out", slices.Compact(bad)))
	}
	r.Unseen = append(r.Unseen, streamsGroupLagsUnseen)
	if err := readStreamsGroupConfig(ctx, cl, app, g); err != nil {
		r.Unseen = append(r.Unseen, "the group's configuration (streams.session.timeout.ms, streams.heartbeat.interval.ms): "+err.Error())
	}
	if len(d.Members) == 0 {
		return fmt.Errorf("the group has no members (state %s): no instance runs, so no assignment can be seen", d.State)
	}
	return nil
}

// describeStreamsGroup finds app's group coordinator and asks it with
// StreamsGroupDescribe for the group, failing on any error it answers.
func describeStreamsGroup(ctx context.Context, cl *kgo.Client, adm *kadm.Client, app string) (kmsg.StreamsGroupDescribeResponseGroup, error) {
	var d kmsg.StreamsGroupDescribeResponseGroup
	co := adm.FindGroupCoordinators(ctx, app)
	c, ok := co[app]
	if !ok || c.Err != nil {
		err := errors.New("no answer")
		if ok {
			err = c.Err
		}
		return d, fmt.Errorf("finding the group's coordinator: %w", err)
	}
	req := kmsg.NewPtrStreamsGroupDescribeRequest()
	req.Groups = []string{app}
	resp, err := req.RequestWith(ctx, cl.Broker(int(c.NodeID)))
	if err != nil {
		return d, fmt.Errorf("StreamsGroupDescribe: %w", err)
	}
	if len(resp.Groups) != 1 {
		return d, fmt.Errorf("StreamsGroupDescribe answered %d groups", len(resp.Groups))
	}
	d = resp.Groups[0]
	if err := kerr.ErrorForCode(d.ErrorCode); err != nil {
		return d, fmt.Errorf("StreamsGroupDescribe: %w", err)
	}
	return d, nil
}

// mapTopologyChangelogs sets the subtopology of each of r's changelogs
// the group's topology names as a subtopology's state changelog.
func mapTopologyChangelogs(r *Report, topo *kmsg.StreamsGroupDescribeResponseGroupTopology) {
	for _, s := range topo.Subtopologies {
		id, err := strconv.ParseInt(s.SubtopologyID, 10, 32)
		if err != nil {
			r.Unseen = append(r.Unseen, fmt.Sprintf("subtopology %q is not a number: its changelogs are attributed to no instance", s.SubtopologyID))
			continue
		}
		for _, t := range s.StateChangelogTopics {
			for i := range r.Changelogs {
				if c := &r.Changelogs[i]; c.Topic == t.Topic {
					sub := int32(id)
					c.Subtopology = &sub
					c.MappingNote = fmt.Sprintf("subtopology %d, from the group's topology (StreamsGroupDescribe)", sub)
				}
			}
		}
	}
}

// streamsMember is the streams group's member m: its ids, host and
// endpoint, its active tasks, and its standby and warm-up tasks as the
// copies it keeps. It reports no offsets (the protocol does not describe
// them). The subtopology ids that are not numbers are added to bad.
func streamsMember(m kmsg.StreamsGroupDescribeResponseGroupMember, bad *[]string) Member {
	mem := Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, ProcessID: m.ProcessID}
	if m.InstanceID != nil {
		mem.InstanceID = *m.InstanceID
	}
	sub := &Subscription{OffsetSums: map[TaskID]int64{}}
	if e := m.UserEndpoint; e != nil {
		sub.UserEndpoint = e.Host + ":" + strconv.Itoa(int(e.Port))
	}
	a := &Assignment{Active: taskIDs(m.Assignment.ActiveTasks, bad)}
	for _, t := range append(taskIDs(m.Assignment.StandbyTasks, bad), taskIDs(m.Assignment.WarmupTasks, bad)...) {
		a.Standby = append(a.Standby, StandbyTask{Task: t})
	}
	mem.Assignment, mem.Subscription = a, sub
	return mem
}

// taskIDs are the tasks the group's ids name; a subtopology id that is
// not a number is added to bad, its tasks left out.
func taskIDs(ids []kmsg.TaskIDs, bad *[]string) []TaskID {
	var out []TaskID
	for _, t := range ids {
		s, err := strconv.ParseInt(t.SubtopologyID, 10, 32)
		if err != nil {
			*bad = append(*bad, t.SubtopologyID)
			continue
		}
		for _, p := range t.Partitions {
			out = append(out, TaskID{Subtopology: int32(s), Partition: p})
		}
	}
	return out
}

// readStreamsGroupConfig reads the group's configuration with
// DescribeConfigs on the group (a describe: nothing is altered): every
// streams.* setting into g.Config, and streams.session.timeout.ms and
// streams.heartbeat.interval.ms, which on the streams protocol decide
// failure detection (not the clients' session.timeout.ms), into their
// fields. A group that never had its own settings answers with the
// broker's group.streams.* values.
func readStreamsGroupConfig(ctx context.Context, cl *kgo.Client, app string, g *Group) error {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, app
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("DescribeConfigs: %w", err)
	}
	if len(resp.Resources) != 1 {
		return fmt.Errorf("DescribeConfigs answered %d resources", len(resp.Resources))
	}
	rr := resp.Resources[0]
	if err := kerr.ErrorForCode(rr.ErrorCode); err != nil {
		return fmt.Errorf("DescribeConfigs: %w", err)
	}
	ms := func(name, v string) (*int64, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s = %q is not a positive whole number", name, v)
		}
		return &n, nil
	}
	for _, c := range rr.Configs {
		if c.Value == nil || !strings.HasPrefix(c.Name, "streams.") {
			continue
		}
		if g.Config == nil {
			g.Config = map[string]string{}
		}
		g.Config[c.Name] = *c.Value
		switch c.Name {
		case "streams.session.timeout.ms":
			if g.SessionTimeoutMs, err = ms(c.Name, *c.Value); err != nil {
				return err
			}
		case "streams.heartbeat.interval.ms":
			if g.HeartbeatIntervalMs, err = ms(c.Name, *c.Value); err != nil {
				return err
			}
		}
	}
	if g.SessionTimeoutMs == nil || g.HeartbeatIntervalMs == nil {
		return errors.New("DescribeConfigs named no streams.session.timeout.ms or streams.heartbeat.interval.ms")
	}
	return nil
}
