package audit

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/internal/units"
	"github.com/restorebench/restorebench/topicshape"
	"github.com/restorebench/restorebench/warmup"
)

// Schema names the JSON document's version.
const Schema = "restorebench.audit/v1"

// Handover is the seconds from the survivors learning of the rebalance
// to their running the dead instance's tasks, restore aside: the rejoin,
// the assignment and the tasks' start. Not read from the application:
// ASSUMED, as measured in restorebench's own SIGKILL runs on one host
// (testdata/results/failover: 0.2–0.7 s from the survivor's rebalance to
// a promoted standby's first record, median 0.4 s).
var Handover = capacity.SecondsFigure(0.5, 0.2, 1.5)

// Closing is the seconds a cleanly stopped instance takes to close before
// its member stops heartbeating (classic protocol) or leaves the group
// (streams protocol): Kafka Streams' last commit, its stores flushed, its
// clients closed. Not read from the application: ASSUMED. Measured here
// (integration/audit_test.go, a 1 s heartbeat): 1.17 s from a SIGTERM to
// the survivors' rebalance on the streams protocol, the close and the
// survivors' next heartbeat together; on the classic protocol a restart
// took up to 1.5 s longer than the session's wait and the handover.
var Closing = capacity.SecondsFigure(0.5, 0.1, 1.5)

// Report is what an audit saw and what it answers.
type Report struct {
	Schema      string `json:"schema"`
	Application string `json:"application_id"`
	// Group is the consumer group as described; nil when it could not be.
	Group      *Group      `json:"group"`
	Changelogs []Changelog `json:"changelogs"`
	Instances  []*Instance `json:"instances"`
	// MostCostly is the process id of the instance whose loss costs most
	// (the longest recovery with a rate, else the most state to restore).
	MostCostly string `json:"most_costly_instance,omitempty"`
	// Rate describes the restore rate the times come from, "" without one;
	// RateMissing says why there are no times.
	Rate        string `json:"rate,omitempty"`
	RateMissing string `json:"rate_missing,omitempty"`
	// DetectionSeconds is session.timeout.ms, DetectionAssumed when it is
	// Kafka's default, not the application's configuration.
	DetectionSeconds float64 `json:"failure_detection_seconds"`
	DetectionAssumed bool    `json:"failure_detection_assumed"`
	// HeartbeatSeconds is heartbeat.interval.ms (the group's on the
	// streams protocol), HeartbeatAssumed when it is the default: the dead
	// member's last heartbeat lies up to one interval before its death, and
	// the survivors hear of the rebalance up to one interval after it is
	// detected, so detection and rejoin take session ± heartbeat.
	HeartbeatSeconds float64 `json:"heartbeat_interval_seconds"`
	HeartbeatAssumed bool    `json:"heartbeat_interval_assumed"`
	// Handover is the rejoin, assignment and the tasks' start after that
	// (Handover, ASSUMED). Its JSON is {"seconds", "seconds_lo",
	// "seconds_hi"} under "handover", as Closing's under "closing"
	// (Report.MarshalJSON).
	Handover capacity.Figure `json:"-"`
	// Closing is a clean stop's close before the member stops
	// heartbeating or leaves, in a restart's time (Closing, ASSUMED).
	Closing capacity.Figure `json:"-"`
	// WriteRecordsPerSecond is the records a second the application wrote
	// to its changelogs while audit read them (end offsets at the start
	// and the end of the read, WriteWindowSeconds apart); nil when not
	// measured.
	WriteRecordsPerSecond *float64 `json:"changelog_write_records_per_second"`
	WriteWindowSeconds    float64  `json:"changelog_write_window_seconds"`
	// IfOneAdded is what adding one instance now costs: the warmup model's
	// prediction over the state and settings read.
	IfOneAdded *ScaleOut `json:"if_one_instance_added"`
	// AcceptableRecoveryLag is the records a copy may be behind and count
	// as caught up.
	AcceptableRecoveryLag int64 `json:"acceptable_recovery_lag_records"`
	// Assumptions are what the answers rest on without having seen it;
	// Unseen what could not be read at all.
	Assumptions []string `json:"assumptions"`
	Unseen      []string `json:"unseen"`
	// SourceTopics are the topics the group's active tasks read (no
	// changelog or repartition topic), their records and sizes: a store
	// logged to its source topic restores from it.
	SourceTopics []Changelog `json:"source_topics,omitempty"`
	// Ambiguous are changelog topics that may be another application's
	// (its id extends this one's) and were not counted; Inconclusive,
	// when set, says why the answer cannot be taken as complete and how
	// to decide.
	Ambiguous    []string `json:"ambiguous_changelogs,omitempty"`
	Inconclusive string   `json:"inconclusive,omitempty"`

	// endsListed is when Read listed the changelogs' end offsets, the
	// start of the write-rate window.
	endsListed time.Time
	// ambiguous maps each changelog read that another application may own
	// to that application's id; topologyRead says the group's topology
	// (streams protocol) named the changelogs, which decides them.
	ambiguous    map[string]string
	topologyRead bool
	// unseenState are the stateful subtopologies (offset sums or standbys
	// reported) no changelog or source topic was found for.
	unseenState map[int32]bool
}

// Group is the application's consumer group as it is now.
type Group struct {
	State        string `json:"state"`
	ProtocolType string `json:"protocol_type"`
	Protocol     string `json:"protocol"`
	// Type is the group's type as ListGroups names it (classic, consumer,
	// streams), "" when the broker does not say.
	Type    string   `json:"type,omitempty"`
	Members []Member `json:"members"`
	// AssignmentVersions and SubscriptionVersions are the userdata
	// versions decoded.
	AssignmentVersions   []int32 `json:"assignment_versions"`
	SubscriptionVersions []int32 `json:"subscription_versions"`
	// SessionTimeoutMs and HeartbeatIntervalMs are the group's own
	// streams.session.timeout.ms and streams.heartbeat.interval.ms (the
	// group's configuration, else the broker's group.streams.* defaults,
	// as DescribeConfigs returns them) on the streams protocol; nil on the
	// classic protocol, where they are the clients' settings, or when the
	// group's configuration could not be read.
	SessionTimeoutMs    *int64 `json:"session_timeout_ms,omitempty"`
	HeartbeatIntervalMs *int64 `json:"heartbeat_interval_ms,omitempty"`
	// Config is every streams.* setting of the group as DescribeConfigs
	// gives it (streams protocol only): num.standby.replicas,
	// acceptable.recovery.lag and the warm-ups are the group's there,
	// not the clients'.
	Config map[string]string `json:"config,omitempty"`
}

// OnStreamsProtocol says the group is on the streams protocol (KIP-1071).
func (r *Report) OnStreamsProtocol() bool { return r.Group != nil && r.Group.Type == "streams" }

// Member is one group member: a stream thread's consumer.
type Member struct {
	MemberID   string `json:"member_id"`
	InstanceID string `json:"group_instance_id,omitempty"`
	ClientID   string `json:"client_id"`
	Host       string `json:"client_host"`
	ProcessID  string `json:"process_id,omitempty"`
	// Error says why its userdata could not be decoded.
	Error        string        `json:"error,omitempty"`
	Assignment   *Assignment   `json:"-"`
	Subscription *Subscription `json:"-"`
}

// Changelog is one of the application's changelog topics.
type Changelog struct {
	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
	// Records is end − start offsets over the partitions (compaction gaps
	// and transaction markers counted); PartitionRecords per partition,
	// EndOffsets each partition's end offset now.
	Records          int64   `json:"records"`
	PartitionRecords []int64 `json:"partition_records"`
	EndOffsets       []int64 `json:"end_offsets"`
	// DiskBytes is the log segments' bytes on the brokers, one replica of
	// each partition (the largest), nil when the brokers do not report it.
	DiskBytes          *int64  `json:"disk_bytes"`
	PartitionDiskBytes []int64 `json:"partition_disk_bytes,omitempty"`
	// Shape is what a read of the topic found, nil when not read
	// (ShapeNote says why, or what the read was).
	Shape     *topicshape.Shape `json:"shape,omitempty"`
	ShapeNote string            `json:"shape_note,omitempty"`
	// Subtopology is the subtopology whose tasks write this changelog (a
	// task (s, p) writes its partition p), nil when it could not be told;
	// MappingNote says how it was found.
	Subtopology *int32 `json:"subtopology"`
	MappingNote string `json:"mapping_note,omitempty"`
}

// BytesPerRecord is the key+value bytes a record: the shape's when read,
// else the disk bytes a record, else 0.
func (c *Changelog) BytesPerRecord() float64 {
	if c.Shape != nil && c.Shape.Records > 0 {
		return c.Shape.BytesPerRecord()
	}
	if c.DiskBytes != nil && c.Records > 0 {
		return float64(*c.DiskBytes) / float64(c.Records)
	}
	return 0
}

// partitionBytes is the state bytes of partition p: its records times the
// bytes a record.
func (c *Changelog) partitionBytes(p int32, records int64) float64 {
	if int(p) >= len(c.PartitionRecords) {
		return 0
	}
	return float64(records) * c.BytesPerRecord()
}

// Instance is one Kafka Streams client: the group members sharing a
// process id.
type Instance struct {
	ProcessID string   `json:"process_id"`
	ClientIDs []string `json:"client_ids"`
	Hosts     []string `json:"client_hosts"`
	Endpoint  string   `json:"user_endpoint,omitempty"`
	Threads   int      `json:"threads"`
	Active    []string `json:"active_tasks"`
	Standby   []string `json:"standby_tasks"`
	// ActiveStateBytes and StandbyStateBytes are the key+value bytes of
	// the changelog partitions of its stateful tasks; the records beside.
	ActiveStateBytes    float64 `json:"active_state_bytes"`
	ActiveStateRecords  int64   `json:"active_state_records"`
	StandbyStateBytes   float64 `json:"standby_state_bytes"`
	StandbyStateRecords int64   `json:"standby_state_records"`
	// UnseenStateTasks are its active tasks that hold state (they reported
	// offsets or have standbys) whose changelog was not seen: their state
	// is unknown, not zero.
	UnseenStateTasks []string `json:"unseen_state_tasks,omitempty"`
	// Copies are the tasks it holds state of without running them active
	// (standbys, warmups, state left on disk), each with how far behind.
	Copies []Copy `json:"state_copies"`
	// IfItFails is what its loss costs.
	IfItFails *Failure `json:"if_it_fails"`
	// IfRestartedWithState is what a clean restart on its own state dir
	// costs (a rolling deploy with persistent volumes), IfRestartedEmpty a
	// restart on an empty state dir (ephemeral storage). Their Detection
	// is the wait for the group to rebalance: a stopping Kafka Streams
	// client does not leave a classic group, so the rebalance its return
	// starts completes only when its old member's session expires.
	IfRestartedWithState *Failure `json:"if_restarted_with_state"`
	IfRestartedEmpty     *Failure `json:"if_restarted_on_empty_disk"`

	active, standby []TaskID
	sub             *Subscription
	// static says a member of it has a group.instance.id.
	static bool
	// sources are the topics its active tasks read, when known.
	sources map[TaskID][]string
}

// Copy is a task's state an instance keeps besides its active tasks.
type Copy struct {
	Task string `json:"task"`
	// LagRecords is the changelog end offsets now minus the offsets it
	// reported when it last joined (an upper bound: it has caught up
	// since); nil when it reported none.
	LagRecords *int64 `json:"lag_records"`
	CaughtUp   bool   `json:"caught_up"`
	Standby    bool   `json:"standby"`
}

// Failure is what an instance's loss costs: its active tasks move to the
// others, each restored from the best copy another instance holds, or
// cold.
type Failure struct {
	// TakenOverWarm are the tasks a caught-up copy elsewhere takes over;
	// Restored those restored, fully (no copy) or from a copy's lag.
	TakenOverWarm []string `json:"taken_over_warm"`
	Restored      []string `json:"restored"`
	// Unknown are moved tasks with state whose changelog was not seen:
	// what they restore is not known, and no time is given.
	Unknown []string `json:"restore_unknown,omitempty"`
	// RestoreRecords and RestoreBytes are what the others restore.
	RestoreRecords int64   `json:"restore_records"`
	RestoreBytes   float64 `json:"restore_bytes"`
	// ThreadBytes is the most any one surviving stream thread restores
	// (tasks spread over the survivors' threads, largest first).
	ThreadBytes float64 `json:"largest_thread_restore_bytes"`
	// Detection is the time from the death to the survivors' rejoining:
	// session timeout, less up to one heartbeat interval (the last
	// heartbeat came before the death), plus the last of the survivors'
	// members hearing of the rebalance within one interval; its value is
	// the expectation over both. Its JSON is {"seconds", "seconds_lo",
	// "seconds_hi"} under "detection", null when nil (Failure.MarshalJSON).
	Detection *capacity.Figure `json:"-"`
	// Restore is that thread's restore time without the rate's fixed
	// start (the handover holds the tasks' start in a running instance),
	// with how far outside the runs' sizes it lies; nil without a rate.
	// Total adds detection and handover; with nothing to restore it needs
	// no rate. Their JSON is restore_seconds (_lo, _hi) and total_seconds
	// (_lo, _hi), null when nil.
	Restore *capacity.Figure `json:"-"`
	Total   *capacity.Figure `json:"-"`
	// Note says what the figure could not include.
	Note string `json:"note,omitempty"`
}

// Options tune what the answers assume.
type Options struct {
	// AcceptableRecoveryLag is acceptable.recovery.lag (default
	// warmup.DefaultAcceptableRecoveryLag).
	AcceptableRecoveryLag int64
	// SessionTimeout is session.timeout.ms; SessionTimeoutAssumed says it
	// is the default, not the application's.
	SessionTimeout        time.Duration
	SessionTimeoutAssumed bool
	// HeartbeatInterval is heartbeat.interval.ms (default
	// warmup.DefaultHeartbeatInterval, said ASSUMED).
	HeartbeatInterval time.Duration
	// MaxWarmupReplicas is max.warmup.replicas and ProbingInterval
	// probing.rebalance.interval.ms (defaults 2 and 10 minutes, said
	// ASSUMED), for the scale-out answer on the classic protocol.
	MaxWarmupReplicas int
	ProbingInterval   time.Duration
	// TopologyOptimization is the application's topology.optimization
	// (--streams-config; default none): all or reuse.ktable.source.topics
	// log a builder.table() store to its source topic, not a changelog.
	TopologyOptimization string
	// Runs are measured restores the times come from (capacity.LoadRuns);
	// none: no times.
	Runs []*capacity.Run
	// Case picks the runs' configuration (capacity.Options.Case).
	Case string
}

// instances groups the decoded members by process id.
func instances(g *Group) []*Instance {
	byID := map[string]*Instance{}
	var out []*Instance
	for _, m := range g.Members {
		if m.Subscription == nil || m.Assignment == nil {
			continue
		}
		id := m.ProcessID
		in := byID[id]
		if in == nil {
			in = &Instance{ProcessID: id, Endpoint: m.Subscription.UserEndpoint, sub: &Subscription{OffsetSums: map[TaskID]int64{}}}
			byID[id] = in
			out = append(out, in)
		}
		in.Threads++
		in.static = in.static || m.InstanceID != ""
		in.ClientIDs = append(in.ClientIDs, m.ClientID)
		if !slices.Contains(in.Hosts, m.Host) {
			in.Hosts = append(in.Hosts, m.Host)
		}
		in.active = append(in.active, m.Assignment.ActiveTasks()...)
		for t, ts := range m.Assignment.Sources {
			if in.sources == nil {
				in.sources = map[TaskID][]string{}
			}
			in.sources[t] = ts
		}
		for _, s := range m.Assignment.Standby {
			in.standby = append(in.standby, s.Task)
		}
		// Every thread of a process sends the same offset sums.
		for t, o := range m.Subscription.OffsetSums {
			in.sub.OffsetSums[t] = o
		}
	}
	for _, in := range out {
		sortTasks(in.active)
		sortTasks(in.standby)
		in.active, in.standby = slices.Compact(in.active), slices.Compact(in.standby)
		in.Active, in.Standby = taskStrings(in.active), taskStrings(in.standby)
		sort.Strings(in.ClientIDs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ProcessID < out[j].ProcessID })
	return out
}

func sortTasks(ts []TaskID) { slices.SortFunc(ts, func(a, b TaskID) int { return cmpTask(a, b) }) }

func cmpTask(a, b TaskID) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

func taskStrings(ts []TaskID) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.String())
	}
	return out
}

// mapChangelogs sets each changelog's subtopology where the group tells
// it: the classic protocol names no changelog, so a changelog is matched
// to the stateful subtopology (one with offset sums or standby tasks)
// whose task count equals its partition count, and is left unmapped when
// none or several match. It returns the assumptions made.
func mapChangelogs(cls []Changelog, ins []*Instance) []string {
	count := map[int32]int32{} // subtopology → partitions seen
	stateful := map[int32]bool{}
	note := func(t TaskID) { count[t.Subtopology] = max(count[t.Subtopology], t.Partition+1) }
	for _, in := range ins {
		for _, t := range in.active {
			note(t)
		}
		for _, t := range in.standby {
			note(t)
			stateful[t.Subtopology] = true
		}
		for t := range in.sub.OffsetSums {
			stateful[t.Subtopology] = true
		}
	}
	var out []string
	for i := range cls {
		c := &cls[i]
		if c.Subtopology != nil {
			continue // the group's own topology said it
		}
		var cands, any []int32
		for s, n := range count {
			if int(n) != c.Partitions {
				continue
			}
			any = append(any, s)
			if stateful[s] {
				cands = append(cands, s)
			}
		}
		slices.Sort(cands)
		slices.Sort(any)
		how := "the only stateful subtopology (one with standby tasks or changelog offsets) of " + fmt.Sprint(c.Partitions) + " tasks"
		// The DSL names a grouped aggregation's repartition topic after
		// its store, as it names the changelog: APP-S-repartition feeds
		// the subtopology that writes APP-S-changelog.
		repartition := strings.TrimSuffix(c.Topic, "-changelog") + "-repartition"
		if byName := readers(ins, repartition); len(byName) == 1 && int(count[byName[0]]) == c.Partitions {
			cands, how = byName, "the subtopology that reads "+repartition+", the DSL's name for the repartition topic of the same store"
		}
		if len(cands) == 0 && len(stateful) == 0 && len(any) == 1 {
			cands, how = any, "the only subtopology of "+fmt.Sprint(c.Partitions)+" tasks (no member reported which subtopologies are stateful)"
		}
		switch len(cands) {
		case 1:
			s := cands[0]
			c.Subtopology = &s
			c.MappingNote = fmt.Sprintf("ASSUMED subtopology %d: %s; the classic protocol does not say which changelog a subtopology writes", s, how)
			out = append(out, fmt.Sprintf("%s is written by subtopology %d (%s)", c.Topic, s, how))
		case 0:
			c.MappingNote = fmt.Sprintf("no stateful subtopology of %d tasks: its state is attributed to no instance", c.Partitions)
			out = append(out, c.Topic+": "+c.MappingNote)
		default:
			c.MappingNote = fmt.Sprintf("subtopologies %v all have %d tasks: which one writes it cannot be told from the classic protocol; "+
				"its state is attributed to no instance", cands, c.Partitions)
			out = append(out, c.Topic+": "+c.MappingNote)
		}
	}
	return out
}

// readers are the subtopologies whose active tasks read topic, sorted.
func readers(ins []*Instance, topic string) []int32 {
	var out []int32
	for _, in := range ins {
		for t, ts := range in.sources {
			if slices.Contains(ts, topic) && !slices.Contains(out, t.Subtopology) {
				out = append(out, t.Subtopology)
			}
		}
	}
	slices.Sort(out)
	return out
}

// taskState is the records and bytes of task t's changelog partitions.
func taskState(cls []Changelog, t TaskID) (records int64, bytes float64, endSum int64, known bool) {
	for i := range cls {
		c := &cls[i]
		if c.Subtopology == nil || *c.Subtopology != t.Subtopology || int(t.Partition) >= len(c.PartitionRecords) {
			continue
		}
		n := c.PartitionRecords[t.Partition]
		records += n
		bytes += c.partitionBytes(t.Partition, n)
		endSum += c.EndOffsets[t.Partition]
		known = true
	}
	return records, bytes, endSum, known
}

// Answer fills in each instance's state and what its loss costs, and the
// report's assumptions, from the group and changelogs read.
func Answer(r *Report, o Options) {
	o = o.withDefaults(r)
	r.AcceptableRecoveryLag = o.AcceptableRecoveryLag
	r.Handover, r.Closing = Handover, Closing
	r.Assumptions = append(r.Assumptions, fmt.Sprintf("after the survivors hear of the rebalance, %s (%s-%s) until they run the tasks, restore aside: "+
		"the rejoin, the assignment and the tasks' start, ASSUMED (measured in restorebench's own SIGKILL runs on one host)",
		units.Seconds(Handover.Value), units.Seconds(Handover.Lo), units.Seconds(Handover.Hi)))
	setDetection(r, o)
	if r.Group == nil {
		return
	}
	ins := instances(r.Group)
	r.Instances = ins
	r.Assumptions = append(r.Assumptions, sharedHosts(ins)...)
	r.Assumptions = append(r.Assumptions, mapChangelogs(r.Changelogs, ins)...)
	r.Assumptions = append(r.Assumptions, sourceTables(r, ins, o)...)
	if len(ins) > 0 && !r.OnStreamsProtocol() {
		r.Assumptions = append(r.Assumptions, standbyLagsAssumed)
	}
	for _, in := range ins {
		setState(r.Changelogs, r.unseenState, in, o.AcceptableRecoveryLag)
	}
	rate := restoreRate(r, ins, o)
	for _, in := range ins {
		in.IfItFails = failure(r, ins, in, o, rate, lost)
		in.IfRestartedWithState = failure(r, ins, in, o, rate, restartedWithState)
		in.IfRestartedEmpty = failure(r, ins, in, o, rate, restartedEmpty)
	}
	// An inconclusive audit, or one whose losses restore state it could
	// not see, names no most costly instance: what it left out may decide.
	unknown := slices.ContainsFunc(ins, func(in *Instance) bool { return len(in.IfItFails.Unknown) > 0 })
	if worst := mostCostly(ins); worst != nil && len(ins) > 1 && r.Inconclusive == "" && !unknown {
		r.MostCostly = worst.ProcessID
	}
	// The rate is named where an answer restores at it.
	if rate != nil && slices.ContainsFunc(ins, func(in *Instance) bool {
		return slices.ContainsFunc([]*Failure{in.IfItFails, in.IfRestartedWithState, in.IfRestartedEmpty}, restoresTimed)
	}) {
		r.Rate = rateText(rate)
	}
	r.IfOneAdded = scaleOut(r, ins, o, rate)
}

// standbyLagsAssumed says what the classic protocol's standby lags are:
// measured from offsets reported at the last join, so upper bounds.
const standbyLagsAssumed = "standby lags are changelog end offsets now minus the offsets each instance reported when it last joined " +
	"the group: upper bounds, as a standby keeps catching up between rebalances"

// withDefaults is o with the defaults of what it leaves unset
// (acceptable.recovery.lag; session.timeout.ms, said assumed) and, on the
// streams protocol, the group's own acceptable.recovery.lag, which decides
// there rather than the clients'.
func (o Options) withDefaults(r *Report) Options {
	if o.AcceptableRecoveryLag <= 0 {
		o.AcceptableRecoveryLag = warmup.DefaultAcceptableRecoveryLag
	}
	// On the streams protocol the group's setting decides, not the
	// clients'.
	if r.OnStreamsProtocol() {
		if n, err := strconv.ParseInt(r.Group.Config["streams.acceptable.recovery.lag"], 10, 64); err == nil && n >= 0 {
			o.AcceptableRecoveryLag = n
		}
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout, o.SessionTimeoutAssumed = warmup.DefaultSessionTimeout, true
	}
	return o
}

// The assumptions of failure detection's settings when they could not be
// read: on the streams protocol the broker's defaults (the group's
// configuration unread), on the classic protocol Kafka's client defaults
// (no --streams-config). Each takes the default assumed.
const (
	streamsSessionAssumed = "failure detection takes group.streams.session.timeout.ms = %s, the broker's default: " +
		"ASSUMED (the group's configuration could not be read)"
	streamsHeartbeatAssumed = "members heartbeat every group.streams.heartbeat.interval.ms = %s, the broker's default: " +
		"ASSUMED (the group's configuration could not be read)"
	classicSessionAssumed = "failure detection takes session.timeout.ms = %s, Kafka's default: " +
		"ASSUMED (give --streams-config with the application's properties)"
	classicHeartbeatAssumed = "members heartbeat every heartbeat.interval.ms = %s, Kafka's default: " +
		"ASSUMED (give --streams-config with the application's properties)"
)

// setDetection sets r's session timeout and heartbeat interval, the terms
// of failure detection: the group's own on the streams protocol, else the
// clients' from o, each its default (said assumed) when not known.
func setDetection(r *Report, o Options) {
	switch g := r.Group; {
	case r.OnStreamsProtocol():
		// The client's session.timeout.ms does not apply: the group's does.
		r.DetectionSeconds, r.DetectionAssumed = warmup.DefaultSessionTimeout.Seconds(), true
		r.HeartbeatSeconds, r.HeartbeatAssumed = warmup.DefaultStreamsGroupHeartbeatInterval.Seconds(), true
		if g.SessionTimeoutMs != nil {
			r.DetectionSeconds, r.DetectionAssumed = float64(*g.SessionTimeoutMs)/1000, false
		} else {
			r.Assumptions = append(r.Assumptions, fmt.Sprintf(streamsSessionAssumed, warmup.DefaultSessionTimeout))
		}
		if g.HeartbeatIntervalMs != nil {
			r.HeartbeatSeconds, r.HeartbeatAssumed = float64(*g.HeartbeatIntervalMs)/1000, false
		} else {
			r.Assumptions = append(r.Assumptions, fmt.Sprintf(streamsHeartbeatAssumed, warmup.DefaultStreamsGroupHeartbeatInterval))
		}
	default:
		r.DetectionSeconds, r.DetectionAssumed = o.SessionTimeout.Seconds(), o.SessionTimeoutAssumed
		if r.DetectionAssumed {
			r.Assumptions = append(r.Assumptions, fmt.Sprintf(classicSessionAssumed, o.SessionTimeout))
		}
		r.HeartbeatSeconds = o.HeartbeatInterval.Seconds()
		if o.HeartbeatInterval <= 0 {
			r.HeartbeatSeconds, r.HeartbeatAssumed = warmup.DefaultHeartbeatInterval.Seconds(), true
			r.Assumptions = append(r.Assumptions, fmt.Sprintf(classicHeartbeatAssumed, warmup.DefaultHeartbeatInterval))
		}
	}
	// A heartbeat interval past the session timeout is refused by the
	// consumer; it is bounded here so that detection's low end stays >= 0.
	r.HeartbeatSeconds = min(r.HeartbeatSeconds, r.DetectionSeconds)
}

// setState sets in's active and standby state (records and bytes of its
// tasks' changelog partitions) and its copies, each with its lag and
// whether that is within acceptable.recovery.lag (lagLimit), and its
// active tasks of the stateful subtopologies whose changelog was not seen
// (unseen).
func setState(cls []Changelog, unseen map[int32]bool, in *Instance, lagLimit int64) {
	in.UnseenStateTasks = nil
	for _, t := range in.active {
		rec, b, _, known := taskState(cls, t)
		in.ActiveStateRecords += rec
		in.ActiveStateBytes += b
		if !known && unseen[t.Subtopology] {
			in.UnseenStateTasks = append(in.UnseenStateTasks, t.String())
		}
	}
	for _, t := range in.standby {
		rec, b, _, _ := taskState(cls, t)
		in.StandbyStateRecords += rec
		in.StandbyStateBytes += b
	}
	in.Copies = nil
	for _, t := range copiesOf(in) {
		c := Copy{Task: t.String(), Standby: slices.Contains(in.standby, t)}
		if lag, ok := lagOf(cls, in, t); ok {
			c.LagRecords = &lag
			c.CaughtUp = lag <= lagLimit
		}
		in.Copies = append(in.Copies, c)
	}
}

// restoreRate is the one restore rate for every answer: the runs' rate at
// the state's shape, which neither the instance nor what it restores
// changes. Without one it is nil and r.RateMissing says why, when known.
func restoreRate(r *Report, ins []*Instance, o Options) *capacity.Rate {
	var rate *capacity.Rate
	if len(o.Runs) == 0 {
		r.RateMissing = "restore times need --from RUN (results of restorebench runs); state sizes and tasks only"
	} else if len(ins) > 0 {
		sh := stateShapeOf(r.Changelogs)
		a := capacity.Analyze(o.Runs, capacity.Options{Case: o.Case, Deployment: capacity.Deployment{
			BytesPerRecord: sh.bytesPerRecord, RecordsPerKey: sh.recordsPerKey, TombstoneShare: sh.tombstoneShare}})
		if rate = a.Rate; rate == nil && a.RateErr != nil {
			r.RateMissing = a.RateErr.Error()
		}
	}
	return rate
}

// mostCostly is the instance whose loss costs most: the longest total
// time where both have one, else the most bytes a thread restores, then
// the most bytes restored; nil without instances.
func mostCostly(ins []*Instance) *Instance {
	var worst *Instance
	for _, in := range ins {
		f, w := in.IfItFails, (*Failure)(nil)
		if worst != nil {
			w = worst.IfItFails
		}
		switch {
		case worst == nil:
			worst = in
		case f.Total != nil && w.Total != nil && f.Total.Value != w.Total.Value:
			if f.Total.Value > w.Total.Value {
				worst = in
			}
		case f.ThreadBytes > w.ThreadBytes || f.ThreadBytes == w.ThreadBytes && f.RestoreBytes > w.RestoreBytes:
			worst = in
		}
	}
	return worst
}

// copiesOf are the tasks in has state of besides its active ones, sorted.
func copiesOf(in *Instance) []TaskID {
	var out []TaskID
	for t := range in.sub.OffsetSums {
		if !slices.Contains(in.active, t) {
			out = append(out, t)
		}
	}
	for _, t := range in.standby {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	sortTasks(out)
	return out
}

// lagOf is how far in's copy of t is behind its changelogs' end offsets,
// from the offset sum it reported; false when it reported none (or the
// task's changelogs are not known).
func lagOf(cls []Changelog, in *Instance, t TaskID) (int64, bool) {
	sum, ok := in.sub.OffsetSums[t]
	if !ok || sum < 0 && sum != OffsetSumRunning {
		return 0, false
	}
	_, _, end, known := taskState(cls, t)
	if !known {
		return 0, false
	}
	if sum == OffsetSumRunning {
		return 0, true
	}
	return max(0, end-sum), true
}

// failure is what in's loss costs: each of its active stateful tasks goes
// to the survivor with the least lag (Kafka Streams' high-availability
// assignor: a caught-up copy first, else the most caught-up one), which
// restores that lag, or the whole partition without any copy.
func failure(r *Report, ins []*Instance, in *Instance, o Options, rt *capacity.Rate, how event) *Failure {
	f := &Failure{}
	// On the streams protocol a closing member leaves the group: its tasks
	// move to the others at once, as when it is lost but without waiting
	// for its session, and the answer is the same with its state kept or
	// not (it gets tasks back later, through the assignor).
	leaves := how != lost && r.OnStreamsProtocol()
	if leaves {
		f.note(leavesGroupNote)
		how = lost
	}
	threads := survivingThreads(ins, in, how)
	tasks := in.active
	if how == restartedWithState {
		tasks = nil // its tasks come back to it, their stores and checkpoints kept
	}
	jobs := f.moveTasks(r, ins, in, tasks, o.AcceptableRecoveryLag)
	if threads == 0 && how == lost {
		f.note("no other instance: its tasks wait for it, or a new one, to restart")
		return f
	}
	f.ThreadBytes = largestThreadLoad(jobs, threads)
	if len(f.Unknown) > 0 {
		f.note(fmt.Sprintf(unknownRestoreNote, strings.Join(f.Unknown, " ")))
		return f
	}
	switch {
	case leaves:
		f.afterClose(r.Closing, leaveNotice(r.HeartbeatSeconds, threads))
	case how == lost:
		f.Detection = detection(r.DetectionSeconds, r.HeartbeatSeconds, threads)
	case in.static:
		f.note("static membership (group.instance.id): no rebalance when it is back within the session timeout, so its own start decides, which is not known here")
	default:
		f.afterClose(r.Closing, restartWait(r.DetectionSeconds, r.HeartbeatSeconds))
	}
	if how == restartedWithState {
		f.note(keptStateNote)
	}
	if f.Detection == nil {
		return f
	}
	fixed := f.fixedTime(r.Handover, rt, how)
	if len(jobs) == 0 {
		f.setTimes(capacity.SecondsFigure(0, 0, 0), fixed)
		return f
	}
	f.timeRestore(fixed, o, rt)
	return f
}

// leavesGroupNote says how a clean stop differs on the streams protocol:
// the member leaves, its tasks move at once and come back untimed.
const leavesGroupNote = "on the streams protocol a closing member leaves the group: its tasks move to the others at their next heartbeat " +
	"(a caught-up copy takes over, else they restore there) and come back to it later, which is not timed here"

// keptStateNote says what a restart on its own state dir restores: nothing
// after a clean stop, and after a crash what the Kafka Streams version and
// its settings leave unflushed or uncheckpointed.
const keptStateNote = "a clean stop (SIGTERM) keeps its stores and checkpoints: nothing to restore; " +
	"after a crash (SIGKILL, an OOM kill) under exactly-once its stores restore in full, as on an empty disk, " +
	"on every Kafka Streams version measured (3.9.1 to 4.4.0); with enable.transactional.statestores (4.4) and " +
	"under at-least-once from 4.3 each store restores what was written since it last flushed " +
	"(the whole store if it is smaller than its memtables, 16 MB by default), before 4.3 since its last checkpoint"

// survivingThreads is the stream threads in's tasks can go to: every
// other instance's (at least one each), and its own when it restarts on
// an empty disk.
func survivingThreads(ins []*Instance, in *Instance, how event) int {
	threads := 0
	for _, other := range ins {
		if other != in || how == restartedEmpty {
			threads += max(other.Threads, 1)
		}
	}
	return threads
}

// moveTasks hands each of tasks (in's) whose changelogs are known to the
// other instance with the least lag: a copy within lagLimit takes it over
// warm, else it is restored from that copy's lag or in full. It returns
// the bytes each restored task restores, and notes where a lag is an
// upper bound or could not be seen.
func (f *Failure) moveTasks(r *Report, ins []*Instance, in *Instance, tasks []TaskID, lagLimit int64) []float64 {
	var jobs []float64 // the bytes each restored task restores
	var fromLag, unknownLag int
	for _, t := range tasks {
		records, bytes, _, known := taskState(r.Changelogs, t)
		if !known {
			if r.unseenState[t.Subtopology] {
				f.Unknown = append(f.Unknown, t.String())
			}
			continue
		}
		best, unreported := leastLag(r.Changelogs, ins, in, t)
		if best < 0 && unreported {
			unknownLag++
		}
		switch {
		case best >= 0 && best <= lagLimit:
			f.TakenOverWarm = append(f.TakenOverWarm, t.String())
			continue
		case best >= 0 && records > 0:
			bytes *= float64(min(best, records)) / float64(records)
			records = min(best, records)
			fromLag++
		}
		f.Restored = append(f.Restored, t.String())
		f.RestoreRecords += records
		f.RestoreBytes += bytes
		jobs = append(jobs, bytes)
	}
	if fromLag > 0 {
		f.note(fmt.Sprintf("%d task(s) restore a copy's lag as of the last rebalance, an upper bound", fromLag))
	}
	if unknownLag > 0 {
		if r.OnStreamsProtocol() {
			f.note(fmt.Sprintf(unreportedLagStreams, unknownLag))
		} else {
			f.note(fmt.Sprintf(unreportedLagClassic, unknownLag))
		}
	}
	return jobs
}

// The notes on tasks restored in full because the lag of their copy is
// not known: the streams protocol reports none, and on the classic
// protocol a standby without state when it last joined reported none.
const (
	unreportedLagStreams = "%d task(s) have a standby or warm-up whose lag the streams protocol does not report: " +
		"restored in full here, the worst case"
	unreportedLagClassic = "%d task(s) have a standby that reported no offsets at the last rebalance (it had no state then): " +
		"restored in full here, the worst case"
)

// leastLag is the least lag of a copy of t on an instance other than in,
// -1 when none reported one; unreported says a standby of t elsewhere
// reported no lag.
func leastLag(cls []Changelog, ins []*Instance, in *Instance, t TaskID) (best int64, unreported bool) {
	best = -1
	for _, other := range ins {
		if other == in {
			continue
		}
		if lag, ok := lagOf(cls, other, t); ok && (best < 0 || lag < best) {
			best = lag
		} else if !ok && slices.Contains(other.standby, t) {
			unreported = true
		}
	}
	return best, unreported
}

// largestThreadLoad spreads the restores' bytes (jobs, sorted here) over
// threads stream threads, largest first, each to the least loaded, and is
// the most any one thread restores.
func largestThreadLoad(jobs []float64, threads int) float64 {
	slices.SortFunc(jobs, func(a, b float64) int { return cmp.Compare(b, a) })
	load := make([]float64, threads)
	for _, b := range jobs {
		k := 0
		for i := range load {
			if load[i] < load[k] {
				k = i
			}
		}
		load[k] += b
	}
	var most float64
	for _, l := range load {
		most = max(most, l)
	}
	return most
}

// fixedTime is the time before f's restores start: its detection, the
// handover and, for a restarted client (a new one), a cold restore's
// fixed start as measured, which it notes.
func (f *Failure) fixedTime(handover capacity.Figure, rt *capacity.Rate, how event) capacity.Figure {
	fixed := f.Detection.Add(handover)
	if how != lost && rt != nil && rt.Overhead > 0 {
		// A restarted client is a new one: it pays a cold restore's fixed
		// start (its stores opened, its clients created), as measured.
		fixed = fixed.Add(capacity.SecondsFigure(rt.Overhead, rt.Overhead, rt.Overhead))
		f.note(fmt.Sprintf("a restarted client pays a cold restore's fixed start, %s in the --from runs", units.Seconds(rt.Overhead)))
	}
	return fixed
}

// timeRestore sets f's restore time, its largest thread's bytes at rate
// rt, and its total after fixed; without runs or a rate it notes why
// there is no time.
func (f *Failure) timeRestore(fixed capacity.Figure, o Options, rt *capacity.Rate) {
	if len(o.Runs) == 0 {
		f.note("times need --from RUN")
		return
	}
	if rt == nil {
		f.note("no restore rate in the --from runs")
		return
	}
	// The survivors run already: a cold restore's fixed start (the
	// client's start, its first rebalance) is not paid again; the
	// handover holds the tasks' start.
	running := *rt
	running.Overhead = 0
	e := running.Seconds(f.ThreadBytes)
	restore := capacity.Figure{Estimate: e, Unit: capacity.UnitSeconds}
	if !e.HasInterval() {
		// No spread measured: the interval is the value alone.
		restore.Lo, restore.Hi = e.Value, e.Value
	}
	f.setTimes(restore, fixed.Add(restore))
	switch {
	case e.Extrapolated && e.Below:
		f.note(fmt.Sprintf("extrapolated: %.3g× below the sizes measured", e.Beyond))
	case e.Extrapolated:
		f.note(fmt.Sprintf("extrapolated: %.3g× beyond the sizes measured", e.Beyond))
	}
}

// sharedHosts says which instances run on one host (their members'
// client host): their restores and starts compete for its cores, which
// the per-thread restore rate does not know.
func sharedHosts(ins []*Instance) []string {
	by := map[string]int{}
	var hosts []string
	for _, in := range ins {
		for _, h := range in.Hosts {
			if by[h] == 0 {
				hosts = append(hosts, h)
			}
			by[h]++
		}
	}
	var out []string
	for _, h := range hosts {
		if by[h] > 1 {
			out = append(out, fmt.Sprintf("%d instances run on host %s: their restores (and a restarting instance's start) share its cores, "+
				"while each stream thread's restore is taken at the rate measured with a core to itself; on a host with fewer cores than "+
				"restoring threads the times are longer", by[h], h))
		}
	}
	return out
}

// event is what happens to the instance an answer is about.
type event int

const (
	// lost: it dies (SIGKILL, a lost host) and does not come back.
	lost event = iota
	// restartedWithState: it stops cleanly and starts again on its state.
	restartedWithState
	// restartedEmpty: it stops and starts again on an empty state dir.
	restartedEmpty
)

// restartWait is how long the tasks of an instance that stopped cleanly
// and starts again wait for the rebalance that hands them out, on the
// classic protocol with dynamic members: Kafka Streams' consumer does not
// leave the group on close, so the rebalance its new member's join starts
// completes when the old member's session expires, s after its last
// heartbeat, which came up to hb before the member stopped heartbeating
// at the end of its close (s − U·hb, Closing before it). That holds
// when the instance is back within it; a slower start decides instead.
func restartWait(s, hb float64) capacity.Figure {
	return capacity.SecondsFigure(s-hb/2, s-hb, s)
}

// afterClose sets f's wait for the rebalance of a clean stop: the stop's
// close, then wait, and says so.
func (f *Failure) afterClose(closing, wait capacity.Figure) {
	d := closing.Add(wait)
	f.Detection = &d
	f.note(fmt.Sprintf("the stop's close (its last commit, its clients closed) %s (%s-%s), ASSUMED, comes first",
		units.Seconds(closing.Value), units.Seconds(closing.Lo), units.Seconds(closing.Hi)))
}

// RestartTerms says what a restart's time is made of on r's protocol,
// for the terminal and the report alike.
func (r *Report) RestartTerms() string {
	if r.OnStreamsProtocol() {
		return "the stop's close, then the closing member leaves the group and the survivors hear of it at their next heartbeat " +
			"(up to one heartbeat interval), then the handover and what they restore"
	}
	return "the stop's close, then the wait for the old member's session to expire (the session timeout less up to one heartbeat " +
		"interval: Kafka Streams does not leave the group on close), then the handover and what is restored; an instance slower " +
		"to start than that wait decides instead"
}

// leaveNotice is the time from a member's leaving the group (a clean close
// on the streams protocol) until the survivors, whose members stream
// threads heartbeat every hb seconds, have all heard of the new
// assignment: the latest of members uniform draws in [0, hb], expected
// hb·members/(members+1). Measured here: 1.17 s from a SIGTERM to the
// survivors' rebalance at hb = 1 s, the close itself included.
func leaveNotice(hb float64, members int) capacity.Figure {
	m := float64(max(members, 1))
	return capacity.SecondsFigure(hb*m/(m+1), 0, hb)
}

// detection is the time from an instance's death to the survivors'
// rejoining, for a group with session timeout s and heartbeat interval hb
// (seconds) whose survivors run members stream threads: the planner's one
// model of it (capacity.FailureDetection).
func detection(s, hb float64, members int) *capacity.Figure {
	d := capacity.FailureDetection(s, hb, members)
	return &d
}

// restoresTimed says f restores something and has a time for it: it
// rests on the restore rate.
func restoresTimed(f *Failure) bool {
	return f != nil && len(f.Restored) > 0 && f.Restore != nil
}

// stateShape is the changelog shape restore times are taken at.
type stateShape struct {
	bytesPerRecord, recordsPerKey, tombstoneShare float64
}

// stateShapeOf is the shape of the stateful changelog (one written by a
// known subtopology, its shape read) with the most bytes a record; zero
// when none was read.
func stateShapeOf(cls []Changelog) stateShape {
	var sh stateShape
	for i := range cls {
		c := &cls[i]
		if c.Subtopology != nil && c.Shape != nil && c.Shape.Records > 0 && c.BytesPerRecord() > sh.bytesPerRecord {
			sh = stateShape{c.BytesPerRecord(), c.Shape.RecordsPerKey, c.Shape.TombstoneShare()}
		}
	}
	return sh
}

// setTimes sets the restore's figure and the total's.
func (f *Failure) setTimes(restore, total capacity.Figure) {
	f.Restore, f.Total = &restore, &total
}

// note adds to what the figure could not include.
func (f *Failure) note(s string) {
	if f.Note != "" {
		f.Note += "; "
	}
	f.Note += s
}

// standbys is the most standby copies any task has.
func standbys(ins []*Instance) int {
	n := map[TaskID]int{}
	most := 0
	for _, in := range ins {
		for _, t := range in.standby {
			n[t]++
			most = max(most, n[t])
		}
	}
	return most
}

// rateText names the rate the times come from.
func rateText(r *capacity.Rate) string {
	s := fmt.Sprintf("%.1f MB/s a stream thread", r.PerThread/1e6)
	if r.Overhead > 0 {
		s += fmt.Sprintf(" after %.2f s fixed", r.Overhead)
	}
	if r.Setup != nil {
		s += " (" + r.Setup.Label() + ")"
	}
	return s
}
