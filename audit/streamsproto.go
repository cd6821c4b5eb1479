package audit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The classic protocol's Kafka Streams userdata, decoded from the format
// Kafka Streams defines (AssignmentInfo, SubscriptionInfoData): big-endian
// integers, strings as Java's DataOutputStream writes them.
//
// Kafka Streams 2.6 up to 4.4 (the latest protocol version is 11, unchanged
// since 3.0) send version 11 unless `upgrade.from` holds them to an older
// one; versions 7 to 11 are decoded here, the ones that carry task offset
// sums. Older versions are refused with an error naming the version.

// Assignment and subscription versions decoded.
const (
	MinVersion = 7
	MaxVersion = 11
	// namedTopologyVersion is the first version whose task ids carry a
	// named topology (empty for an ordinary application).
	namedTopologyVersion = 10
)

// ErrVersion is wrapped by the errors for a version not decoded.
var ErrVersion = errors.New("protocol version not supported")

// Offset sums with a meaning of their own (Kafka Streams' Task.LATEST_OFFSET
// and SubscriptionInfo's UNKNOWN_OFFSET_SUM).
const (
	// OffsetSumRunning is sent for a task the member runs as an active,
	// running task: it is caught up by definition.
	OffsetSumRunning = -2
	// OffsetSumUnknown is sent for a task whose offsets are not known.
	OffsetSumUnknown = -3
)

// TaskID is a Kafka Streams task: a subtopology and a partition (and a
// named topology, empty for an ordinary application).
type TaskID struct {
	Subtopology int32
	Partition   int32
	Topology    string
}

// String is Kafka Streams' own form: "1_2", or "name__1_2".
func (t TaskID) String() string {
	s := strconv.Itoa(int(t.Subtopology)) + "_" + strconv.Itoa(int(t.Partition))
	if t.Topology != "" {
		return t.Topology + "__" + s
	}
	return s
}

// Less orders tasks by topology, subtopology, partition.
func (t TaskID) Less(o TaskID) bool {
	if t.Topology != o.Topology {
		return t.Topology < o.Topology
	}
	if t.Subtopology != o.Subtopology {
		return t.Subtopology < o.Subtopology
	}
	return t.Partition < o.Partition
}

// TopicPartition is a topic's partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// HostPartitions are the partitions the application's instance at an
// application.server endpoint holds.
type HostPartitions struct {
	Host       string
	Port       int32
	Partitions []TopicPartition
}

// StandbyTask is a standby task and the input partitions it stands for.
type StandbyTask struct {
	Task       TaskID
	Partitions []TopicPartition
}

// Assignment is a member's AssignmentInfo: what the group leader gave it.
type Assignment struct {
	Version, CommonlySupportedVersion int32
	// Active holds one task per assigned partition, in the order of the
	// member's assigned partitions sorted by topic and partition (a task
	// appears once for each of its input partitions).
	Active  []TaskID
	Standby []StandbyTask
	// ActiveByHost and StandbyByHost are every instance's partitions by
	// application.server endpoint (empty without application.server).
	ActiveByHost, StandbyByHost []HostPartitions
	ErrCode                     int32
	// NextRebalanceMs is when the member is to rejoin (a probing
	// rebalance), Long.MAX_VALUE for none.
	NextRebalanceMs int64
	// Sources are the topics each active task reads, from the consumer
	// assignment's partitions beside Active (SetSources); nil when not
	// set.
	Sources map[TaskID][]string
}

// SetSources pairs the member's assigned partitions, sorted by topic and
// partition as Kafka Streams pairs them with Active, with the active
// tasks; false when their counts differ (then Sources stays nil).
func (a *Assignment) SetSources(partitions []TopicPartition) bool {
	ps := slices.Clone(partitions)
	slices.SortFunc(ps, func(x, y TopicPartition) int {
		if c := strings.Compare(x.Topic, y.Topic); c != 0 {
			return c
		}
		return int(x.Partition) - int(y.Partition)
	})
	if len(ps) != len(a.Active) {
		return false
	}
	a.Sources = map[TaskID][]string{}
	for i, t := range a.Active {
		if !slices.Contains(a.Sources[t], ps[i].Topic) {
			a.Sources[t] = append(a.Sources[t], ps[i].Topic)
		}
	}
	return true
}

// ActiveTasks are the distinct active tasks, in order.
func (a *Assignment) ActiveTasks() []TaskID {
	var out []TaskID
	seen := map[TaskID]bool{}
	for _, t := range a.Active {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Subscription is a member's SubscriptionInfo: what it sent when it joined.
type Subscription struct {
	Version, LatestSupportedVersion int32
	// ProcessID is the Kafka Streams instance's process id: every stream
	// thread of one KafkaStreams client sends the same one.
	ProcessID [16]byte
	// UserEndpoint is application.server ("" when not set).
	UserEndpoint string
	// OffsetSums are the tasks the instance has state of (running, standby,
	// or a state directory left on disk), each with the sum of its
	// changelog offsets: OffsetSumRunning for a running active task.
	OffsetSums  map[TaskID]int64
	UniqueField int8
	ErrorCode   int32
	ClientTags  map[string]string
}

// ProcessIDString is the process id as a UUID string.
func (s *Subscription) ProcessIDString() string {
	b := s.ProcessID
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// DecodeAssignment decodes a member's assignment userdata.
func DecodeAssignment(b []byte) (*Assignment, error) {
	r := &reader{b: b}
	a := &Assignment{Version: r.int32()}
	if r.err != nil {
		return nil, fmt.Errorf("AssignmentInfo: %w", r.err)
	}
	if a.Version < MinVersion || a.Version > MaxVersion {
		return nil, fmt.Errorf("AssignmentInfo version %d: %w (this tool decodes versions %d to %d, which Kafka Streams 2.6 to 4.4 send)",
			a.Version, ErrVersion, MinVersion, MaxVersion)
	}
	a.CommonlySupportedVersion = r.int32()
	for range r.count() {
		a.Active = append(a.Active, r.task(a.Version))
	}
	for range r.count() {
		s := StandbyTask{Task: r.task(a.Version)}
		for range r.count() {
			s.Partitions = append(s.Partitions, TopicPartition{Topic: r.utf(), Partition: r.int32()})
		}
		a.Standby = append(a.Standby, s)
	}
	dict := map[int32]string{}
	for range r.count() {
		i := r.int32()
		dict[i] = r.utf()
	}
	hosts := func() []HostPartitions {
		var out []HostPartitions
		for range r.count() {
			h := HostPartitions{Host: r.utf(), Port: r.int32()}
			for range r.count() {
				i := r.int32()
				name, ok := dict[i]
				if !ok && r.err == nil {
					r.err = fmt.Errorf("topic index %d is not in the topic dictionary", i)
				}
				h.Partitions = append(h.Partitions, TopicPartition{Topic: name, Partition: r.int32()})
			}
			out = append(out, h)
		}
		return out
	}
	a.ActiveByHost = hosts()
	a.StandbyByHost = hosts()
	a.ErrCode = r.int32()
	a.NextRebalanceMs = r.int64()
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("AssignmentInfo version %d: %w", a.Version, err)
	}
	return a, nil
}

// DecodeSubscription decodes a member's subscription userdata.
func DecodeSubscription(b []byte) (*Subscription, error) {
	r := &reader{b: b}
	s := &Subscription{Version: r.int32()}
	if r.err != nil {
		return nil, fmt.Errorf("SubscriptionInfo: %w", r.err)
	}
	if s.Version < MinVersion || s.Version > MaxVersion {
		return nil, fmt.Errorf("SubscriptionInfo version %d: %w (this tool decodes versions %d to %d, which Kafka Streams 2.6 to 4.4 send)",
			s.Version, ErrVersion, MinVersion, MaxVersion)
	}
	s.LatestSupportedVersion = r.int32()
	copy(s.ProcessID[:], r.bytes(16))
	s.UserEndpoint = string(r.lenBytes())
	s.OffsetSums = map[TaskID]int64{}
	for range r.count() {
		sub := r.int32()
		if s.Version >= namedTopologyVersion {
			t := TaskID{Subtopology: sub, Partition: r.int32()}
			sum := r.int64()
			t.Topology = r.nullableString()
			s.OffsetSums[t] = sum
			continue
		}
		for range r.count() {
			p := r.int32()
			s.OffsetSums[TaskID{Subtopology: sub, Partition: p}] = r.int64()
		}
	}
	if s.Version >= 8 {
		s.UniqueField = int8(r.byte())
	}
	if s.Version >= 9 {
		s.ErrorCode = r.int32()
	}
	if s.Version >= 11 {
		s.ClientTags = map[string]string{}
		for range r.count() {
			k := string(r.lenBytes())
			s.ClientTags[k] = string(r.lenBytes())
		}
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("SubscriptionInfo version %d: %w", s.Version, err)
	}
	return s, nil
}

// reader reads big-endian fields, keeping the first error; every read
// after it returns zero values.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("truncated at byte %d: %d more wanted, %d left", r.off, n, len(r.b)-r.off)
		return nil
	}
	out := r.b[r.off : r.off+n]
	r.off += n
	return out
}

func (r *reader) byte() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) int16() int16 {
	if b := r.bytes(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) int32() int32 {
	if b := r.bytes(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) int64() int64 {
	if b := r.bytes(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// count is an array or map length: never negative, and never more
// entries than bytes left (each entry takes at least one), so a corrupt
// length cannot make a loop run long.
func (r *reader) count() int {
	n := r.int32()
	if r.err != nil {
		return 0
	}
	if n < 0 || int(n) > len(r.b)-r.off {
		r.err = fmt.Errorf("count %d at byte %d is past the %d bytes left", n, r.off-4, len(r.b)-r.off)
		return 0
	}
	return int(n)
}

// utf is DataOutputStream.writeUTF's string: an unsigned 16-bit length
// and modified UTF-8 (the same bytes as UTF-8 for the names Kafka allows).
func (r *reader) utf() string {
	n := r.int16()
	return string(r.bytes(int(uint16(n))))
}

// lenBytes is the message format's bytes: a 32-bit length (-1 null).
func (r *reader) lenBytes() []byte {
	n := r.int32()
	if n == -1 {
		return nil
	}
	return r.bytes(int(n))
}

// nullableString is the message format's string: a 16-bit length (-1
// null) and UTF-8.
func (r *reader) nullableString() string {
	n := r.int16()
	if n == -1 {
		return ""
	}
	return string(r.bytes(int(n)))
}

// task is a TaskId as ConsumerProtocolUtils writes it: subtopology,
// partition, and from version 10 the named topology as a character count
// and UTF-16 characters.
func (r *reader) task(version int32) TaskID {
	t := TaskID{Subtopology: r.int32(), Partition: r.int32()}
	if version >= namedTopologyVersion {
		n := r.int32()
		if n < 0 || int64(n)*2 > int64(len(r.b)-r.off) {
			if r.err == nil {
				r.err = fmt.Errorf("named topology of %d characters at byte %d is past the bytes left", n, r.off-4)
			}
			return t
		}
		u := make([]uint16, n)
		for i := range u {
			u[i] = uint16(r.int16())
		}
		t.Topology = string(utf16.Decode(u))
	}
	return t
}

func (r *reader) done() error {
	if r.err != nil {
		return r.err
	}
	if r.off != len(r.b) {
		return fmt.Errorf("%d bytes left over after the last field", len(r.b)-r.off)
	}
	return nil
}

// noRebalance is Long.MAX_VALUE: no probing rebalance scheduled.
const noRebalance = math.MaxInt64
