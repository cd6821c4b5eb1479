package audit

import (
	"encoding/binary"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// wire builds byte vectors by hand, field by field, as Kafka Streams'
// DataOutputStream and message format write them.
type wire []byte

func (w wire) i8(v int8) wire   { return append(w, byte(v)) }
func (w wire) i16(v int16) wire { return binary.BigEndian.AppendUint16(w, uint16(v)) }
func (w wire) i32(v int32) wire { return binary.BigEndian.AppendUint32(w, uint32(v)) }
func (w wire) i64(v int64) wire { return binary.BigEndian.AppendUint64(w, uint64(v)) }

// utf is DataOutputStream.writeUTF.
func (w wire) utf(s string) wire { return append(w.i16(int16(len(s))), s...) }

// chars is writeInt(length) + writeChars: a named topology.
func (w wire) chars(s string) wire {
	u := utf16.Encode([]rune(s))
	w = w.i32(int32(len(u)))
	for _, c := range u {
		w = w.i16(int16(c))
	}
	return w
}

// bytes is the message format's bytes field; str its string field.
func (w wire) bytes(s string) wire { return append(w.i32(int32(len(s))), s...) }
func (w wire) str(s string) wire   { return append(w.i16(int16(len(s))), s...) }

// task writes a TaskId of version v (a named topology from 10).
func (w wire) task(v int32, sub, p int32, topo string) wire {
	w = w.i32(sub).i32(p)
	if v >= 10 {
		w = w.chars(topo)
	}
	return w
}

// assignmentVector is an AssignmentInfo of version v: active 1_0 (twice:
// two input partitions), 0_2; standby 1_1 over app-rep/1; hosts a:1 active
// app-rep/0, b:2 standby app-rep/1; error code 0; next rebalance 12345.
func assignmentVector(v int32) []byte {
	w := wire{}.i32(v).i32(11)
	w = w.i32(3).task(v, 1, 0, "").task(v, 1, 0, "").task(v, 0, 2, "")
	w = w.i32(1).task(v, 1, 1, "").i32(1).utf("app-rep").i32(1)
	// topic dictionary: 0 → app-rep
	w = w.i32(1).i32(0).utf("app-rep")
	w = w.i32(1).utf("a").i32(1).i32(1).i32(0).i32(0)
	w = w.i32(1).utf("b").i32(2).i32(1).i32(0).i32(1)
	return w.i32(0).i64(12345)
}

func TestDecodeAssignmentVersions(t *testing.T) {
	for _, v := range []int32{7, 8, 9, 10, 11} {
		a, err := DecodeAssignment(assignmentVector(v))
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		want := &Assignment{
			Version: v, CommonlySupportedVersion: 11,
			Active:          []TaskID{{1, 0, ""}, {1, 0, ""}, {0, 2, ""}},
			Standby:         []StandbyTask{{Task: TaskID{1, 1, ""}, Partitions: []TopicPartition{{"app-rep", 1}}}},
			ActiveByHost:    []HostPartitions{{"a", 1, []TopicPartition{{"app-rep", 0}}}},
			StandbyByHost:   []HostPartitions{{"b", 2, []TopicPartition{{"app-rep", 1}}}},
			NextRebalanceMs: 12345,
		}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("version %d:\n got %+v\nwant %+v", v, a, want)
		}
		if got := a.ActiveTasks(); !reflect.DeepEqual(got, []TaskID{{1, 0, ""}, {0, 2, ""}}) {
			t.Errorf("version %d: distinct active tasks %v", v, got)
		}
	}
}

func TestDecodeAssignmentNamedTopology(t *testing.T) {
	w := wire{}.i32(11).i32(11).i32(1).task(11, 3, 4, "orders-é").i32(0).i32(0).i32(0).i32(0).i32(0).i64(noRebalance)
	a, err := DecodeAssignment(w)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Active[0].String(); got != "orders-é__3_4" {
		t.Errorf("task %q, want orders-é__3_4", got)
	}
	if a.NextRebalanceMs != noRebalance {
		t.Errorf("next rebalance %d", a.NextRebalanceMs)
	}
}

// subscriptionVector is a SubscriptionInfo of version v: process id
// 00..0f, endpoint host:7070, offset sums 1_0 running, 1_1 at 500, 0_3
// unknown; unique field 7 (8+), error code 0 (9+), client tag zone=a (11).
func subscriptionVector(v int32) []byte {
	w := wire{}.i32(v).i32(11)
	for i := range 16 {
		w = append(w, byte(i))
	}
	w = w.bytes("host:7070")
	if v >= 10 {
		w = w.i32(3)
		w = w.i32(1).i32(0).i64(OffsetSumRunning).i16(-1) // null named topology
		w = w.i32(1).i32(1).i64(500).str("")
		w = w.i32(0).i32(3).i64(OffsetSumUnknown).i16(-1)
	} else {
		w = w.i32(2)
		w = w.i32(1).i32(2).i32(0).i64(OffsetSumRunning).i32(1).i64(500)
		w = w.i32(0).i32(1).i32(3).i64(OffsetSumUnknown)
	}
	if v >= 8 {
		w = w.i8(7)
	}
	if v >= 9 {
		w = w.i32(0)
	}
	if v >= 11 {
		w = w.i32(1).bytes("zone").bytes("a")
	}
	return w
}

func TestDecodeSubscriptionVersions(t *testing.T) {
	for _, v := range []int32{7, 8, 9, 10, 11} {
		s, err := DecodeSubscription(subscriptionVector(v))
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if got := s.ProcessIDString(); got != "00010203-0405-0607-0809-0a0b0c0d0e0f" {
			t.Errorf("version %d: process id %s", v, got)
		}
		if s.UserEndpoint != "host:7070" || s.LatestSupportedVersion != 11 {
			t.Errorf("version %d: endpoint %q latest %d", v, s.UserEndpoint, s.LatestSupportedVersion)
		}
		want := map[TaskID]int64{{1, 0, ""}: OffsetSumRunning, {1, 1, ""}: 500, {0, 3, ""}: OffsetSumUnknown}
		if !reflect.DeepEqual(s.OffsetSums, want) {
			t.Errorf("version %d: offset sums %v", v, s.OffsetSums)
		}
		if v >= 8 && s.UniqueField != 7 {
			t.Errorf("version %d: unique field %d", v, s.UniqueField)
		}
		if v >= 11 && s.ClientTags["zone"] != "a" {
			t.Errorf("version %d: client tags %v", v, s.ClientTags)
		}
	}
}

func TestDecodeRefusesOtherVersions(t *testing.T) {
	for _, v := range []int32{1, 6, 12} {
		_, err := DecodeAssignment(wire{}.i32(v).i32(v))
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "AssignmentInfo version "+itoa(v)) {
			t.Errorf("assignment version %d: %v", v, err)
		}
		_, err = DecodeSubscription(wire{}.i32(v).i32(v))
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "SubscriptionInfo version "+itoa(v)) {
			t.Errorf("subscription version %d: %v", v, err)
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	full := assignmentVector(11)
	for cut := 0; cut < len(full); cut++ {
		if _, err := DecodeAssignment(full[:cut]); err == nil {
			t.Fatalf("assignment cut at %d of %d decoded", cut, len(full))
		}
	}
	if _, err := DecodeAssignment(append(full, 0)); err == nil || !strings.Contains(err.Error(), "left over") {
		t.Errorf("trailing byte: %v", err)
	}
	sub := subscriptionVector(11)
	for cut := 0; cut < len(sub); cut++ {
		if _, err := DecodeSubscription(sub[:cut]); err == nil {
			t.Fatalf("subscription cut at %d of %d decoded", cut, len(sub))
		}
	}
	// A huge count fails at once rather than looping.
	if _, err := DecodeAssignment(wire{}.i32(11).i32(11).i32(1 << 30)); err == nil || !strings.Contains(err.Error(), "count") {
		t.Errorf("huge count: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(assignmentVector(11))
	f.Add(subscriptionVector(11))
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeAssignment(b)
		DecodeSubscription(b)
	})
}

func itoa(v int32) string { return strconv.Itoa(int(v)) }
