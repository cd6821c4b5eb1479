package ksdriver

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestProcessIDsSortAsJavaUUIDs: java.util.UUID.compareTo compares the two
// halves as signed longs, so an id starting with 8-f sorts before one
// starting with 0-7; the classic assignor's round-robin follows that order.
func TestProcessIDsSortAsJavaUUIDs(t *testing.T) {
	ids := []string{
		"1b802417-58d6-4145-91ad-bbf3619d83f6",
		"ef71b1d6-21ee-4fca-bfc8-cdd240e9e5a7",
		"00816c4b-a2ca-429a-b710-fe97d7f1ef11",
		"80000000-0000-0000-0000-000000000000",
		"1b802417-58d6-4145-01ad-bbf3619d83f6",
	}
	sort.Slice(ids, func(i, j int) bool { return CompareProcessIDs(ids[i], ids[j]) < 0 })
	want := []string{
		"80000000-0000-0000-0000-000000000000",
		"ef71b1d6-21ee-4fca-bfc8-cdd240e9e5a7",
		"00816c4b-a2ca-429a-b710-fe97d7f1ef11",
		"1b802417-58d6-4145-91ad-bbf3619d83f6", // low half negative: before the 01ad one
		"1b802417-58d6-4145-01ad-bbf3619d83f6",
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("order %v, want %v", ids, want)
		}
	}
	if CompareProcessIDs("not-a-uuid", want[0]) <= 0 {
		t.Fatal("a malformed id sorts before a UUID")
	}
}

func TestReadProcessID(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadProcessID(dir, "app"); err == nil {
		t.Fatal("no file, no error")
	}
	os.MkdirAll(filepath.Join(dir, "app"), 0o755)
	os.WriteFile(filepath.Join(dir, "app", ProcessFile), []byte(`{"processId":"00816c4b-a2ca-429a-b710-fe97d7f1ef11"}`), 0o644)
	if id, err := ReadProcessID(dir, "app"); err != nil || id != "00816c4b-a2ca-429a-b710-fe97d7f1ef11" {
		t.Fatalf("id %q err %v", id, err)
	}
}

// TestViewFollowsListenersAndSnapshots: the view's tasks are the last
// snapshot's; restores and standby updates follow their listeners.
func TestViewFollowsListenersAndSnapshots(t *testing.T) {
	var v View
	sp := StorePartition{Store: "s", Topic: "t", Partition: 3}
	for _, e := range []Event{
		&StateChange{To: StateRunning},
		&Tasks{Threads: []ThreadTasks{{Active: []string{"0_1"}, Standby: []string{"0_2"}}, {Active: []string{"0_4"}}}},
		&RestoreStart{StorePartition: sp},
		&StandbyStart{StorePartition: StorePartition{Store: "s", Partition: 2}},
	} {
		if !v.Add(e) {
			t.Fatalf("%T not folded", e)
		}
	}
	if v.State != StateRunning || len(v.Active) != 2 || !v.Standby["0_2"] || !v.Restoring[sp] || len(v.Updating) != 1 {
		t.Fatalf("view %+v", v)
	}
	v.Add(&RestoreEnd{StorePartition: sp})
	if v.Add(&Lags{}) || len(v.Restoring) != 0 {
		t.Fatalf("view %+v", v)
	}
	if p, ok := TaskPartition("0_12"); !ok || p != 12 || TaskName(12) != "0_12" {
		t.Fatal("task names")
	}
}
