package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/runs"
)

// The topics agents and coordinators talk through (created, with one
// partition each so every reader sees one order, when missing).
const (
	// ControlTopic carries announcements, heartbeats, commands, leases and
	// replies: every message keyed by the agent it is from or for.
	ControlTopic = "restorebench-control"
	// EventsTopic carries the driver events of the agents' processes,
	// keyed by run/fleet/instance.
	EventsTopic = "restorebench-events"
)

// Message types on ControlTopic (Message.Type).
const (
	TypeAnnounce  = "announce"  // agent: it is up, with its facts
	TypeHeartbeat = "heartbeat" // agent: still up (every second)
	TypeBye       = "bye"       // agent: it is shutting down
	TypeCommand   = "command"   // coordinator: do Op
	TypeReply     = "reply"     // agent: what came of a command
	TypeLease     = "lease"     // coordinator: the run is still alive
	// TypeReplyPart is one part of a reply too large for one record
	// (maxControlRecord): the reply's encoding, cut into Parts pieces,
	// sent in order before nothing else of that reply.
	TypeReplyPart = "reply_part"
)

// Command operations (Message.Op).
const (
	OpHello     = "hello"      // reply: the agent's facts
	OpClock     = "clock"      // reply: the agent's clock at receipt and reply
	OpStart     = "start"      // start a driver process; reply once it said hello
	OpSend      = "send"       // write Line to a process's stdin
	OpFetch     = "fetch"      // a driver file command (Fetch); reply: Fetched, its file
	OpStop      = "stop"       // stop a process cleanly; reply once it ended
	OpKill      = "kill"       // SIGKILL a process; reply once it ended
	OpWipe      = "wipe"       // delete an instance's state directory
	OpProcessID = "process_id" // Kafka Streams' process id of an instance
	OpRemove    = "remove"     // delete a fleet's directories
	OpDiskUsage = "disk_usage" // bytes under an instance's state directory
	// OpModelRestore runs a model-engine cold restore (Model) in an
	// instance's state directory; reply: Restored.
	OpModelRestore = "model_restore"
	// OpFill writes a fill (FillJob) to its topic; reply: Filled.
	OpFill = "fill"
	// OpQueries starts a query load (QueryJob) from the agent's host
	// against the API layer of one of its processes; reply once it runs.
	OpQueries = "queries"
	// OpQueriesStop marks that load restored, lets it go on for a while
	// and stops it (QueryStop); reply: Queries, its record.
	OpQueriesStop = "queries_stop"
)

// ProtocolVersion is the version of the messages below that this build
// speaks. Every command carries it and a hello reply states the agent's:
// a coordinator and an agent of different versions refuse each other with
// one error naming both (versionErr), rather than misread a field.
// Version 2: signed records (sign.go), and every command validated by the
// agent (validate.go). Version 3: fetch (any file command of the driver)
// in place of balances. Version 4: each operation's arguments and result
// in a payload of its own type (Args, Result; ops.go), decoded strictly.
// Version 5: a model restore carries the settings the model engine reads
// (ModelCase), not the whole config.Case. Version 6: a model restore's
// figures in results.json's schema-4 shape (ModelFigures: its restore
// phase and the model's own figures as sub-records).
const ProtocolVersion = 6

// versionErr says that a peer speaks another protocol version.
func versionErr(theirs int) error {
	return fmt.Errorf("protocol version %d, and this restorebench speaks version %d: "+
		"run the same restorebench release on the coordinator and every agent", theirs, ProtocolVersion)
}

// Message is one record on ControlTopic, JSON-encoded. Which fields are
// set depends on Type and Op (kstreams/PROTOCOL.md, "Agents").
type Message struct {
	Type  string `json:"type"`
	Agent string `json:"agent"`
	// Protocol is the sender's ProtocolVersion: on every command, and on
	// a hello reply (0 from a release before version 2).
	Protocol int `json:"protocol,omitempty"`
	// Run is the coordinator's run id: commands, replies and leases carry
	// it, so two runs on one cluster never cross.
	Run string `json:"run,omitempty"`
	// ID is a command's id, unique within its run; its reply has the same.
	ID string `json:"id,omitempty"`
	Op string `json:"op,omitempty"`
	// Fleet (an application.id), Instance and N (the instance's process
	// number, from 0) name a process.
	Fleet    string `json:"fleet,omitempty"`
	Instance string `json:"instance,omitempty"`
	N        int    `json:"n,omitempty"`
	// Args are a command's arguments, of its operation's own type (each
	// op_<name>.go declares it); none for an operation without any.
	Args json.RawMessage `json:"args,omitempty"`
	// TTLMs is a lease's time to live: past it with no lease or command
	// from the run, the agent stops the run's processes.
	TTLMs int64 `json:"ttl_ms,omitempty"`

	// Reply fields. OK false has Error.
	OK    bool   `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
	// Result is a reply's result, of its operation's own type; none for
	// an operation without any (or on an error).
	Result json.RawMessage `json:"result,omitempty"`
	// Facts and Labels: an announce's.
	Facts  *runs.AgentFacts  `json:"facts,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	// MonoNs is the sender's CLOCK_MONOTONIC when it sent the message.
	MonoNs int64 `json:"mono_ns,omitempty"`
	// Processes is how many driver processes the agent runs (heartbeat).
	Processes int `json:"processes,omitempty"`
	// Refused counts, by reason, the records addressed to the agent that
	// it refused since it started (heartbeat): unsigned, unknown key, bad
	// signature, stale, replayed, invalid.
	Refused map[string]int64 `json:"refused,omitempty"`
	// Part (from 0) of Parts, and its Data, are a reply_part's: a piece of
	// the encoding of the reply with the part's run and id.
	Part  int    `json:"part,omitempty"`
	Parts int    `json:"parts,omitempty"`
	Data  []byte `json:"data,omitempty"`

	// args are the decoded Args of a validated command.
	args any
}

// Encode is the message as its record value.
func (m *Message) Encode() []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // every field marshals
	}
	return b
}

// DecodeMessage reads a ControlTopic record value.
func DecodeMessage(b []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("control message: %w", err)
	}
	if m.Type == "" || m.Agent == "" {
		return nil, fmt.Errorf("control message without a type or agent: %.100q", b)
	}
	return &m, nil
}

// Record is one record on EventsTopic: a driver event of a process on an
// agent, or (Exit set) how the process ended, always its last record.
type Record struct {
	Run      string `json:"run"`
	Fleet    string `json:"fleet"`
	Agent    string `json:"agent"`
	Instance string `json:"instance"`
	N        int    `json:"n"`
	// Seq numbers a process's records from 0, so a gap is seen.
	Seq int64 `json:"seq"`
	// AgentMonoNs is the agent's CLOCK_MONOTONIC when it read the event
	// from the driver (the event's own mono_ns is the JVM's, on the same
	// clock).
	AgentMonoNs int64 `json:"agent_mono_ns"`
	// Event is the driver's event, as the driver's JSON line.
	Event json.RawMessage `json:"event,omitempty"`
	// Exit, on the last record, says how the process ended: "" for a
	// clean stop, else the error.
	Exit *Exit `json:"exit,omitempty"`
}

// Exit is how a process on an agent ended.
type Exit struct {
	Clean bool   `json:"clean"`
	Error string `json:"error,omitempty"`
}

// EventKey is the events topic key of a fleet's instance.
func EventKey(run, fleet, instance string) string {
	return run + "/" + fleet + "/" + instance
}

// checkName refuses a name that cannot be one path element (agents put
// fleets and instances in directories named after them) or one line of a
// log: a newline or other control character in it would forge log lines.
func checkName(what, s string) error {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") || len(s) > 200 {
		return fmt.Errorf("%s %q is not a plain name (no slashes, not . or .., at most 200 bytes)", what, s)
	}
	if termsafe.String(s) != s {
		return fmt.Errorf("%s %q holds a control character or bytes that are not UTF-8", what, s)
	}
	return nil
}

// CheckAgentName refuses an agent name that is not a plain name (see
// checkName): for the flags to check at parse time.
func CheckAgentName(name string) error { return checkName("agent name", name) }

// CheckLabels refuses an agent's label that is not one plain key=value
// pair: an empty key, a ',' or '=' in a key or value (the rule of the
// Helm chart's agents.labels: labels travel as --labels k=v,k=v), or a
// control character (a newline would forge log lines).
func CheckLabels(labels map[string]string) error {
	for k, v := range labels {
		switch {
		case k == "":
			return fmt.Errorf("label %q has no key", k+"="+v)
		case strings.ContainsAny(k+v, ",="):
			return fmt.Errorf("label %q holds a ',' or '=' in its key or value", k+"="+v)
		case termsafe.String(k+v) != k+v:
			return fmt.Errorf("label %q holds a control character or bytes that are not UTF-8", k+"="+v)
		}
	}
	return nil
}
