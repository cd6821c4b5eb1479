package queryload

import (
	"slices"
	"sync"
	"time"

	"github.com/restorebench/restorebench/fleet"
)

// queryTargets are the API layers a kafka-streams query load asks: any
// instance in turn (config.AskAny, a round-robin load balancer) or the
// key's owner (config.AskOwner, a client routing by the metadata).
type queryTargets interface {
	// any are the API layers lookups go to in turn (none: no instance
	// to ask now).
	any() []string
	// Owner is the API layer of the instance that held partition p's
	// active copy when the client last saw one ("" when none ever did).
	Owner(p int32) string
}

// FixedTargets is one instance's API layer, asked for every key: a cold
// restore's or warm restart's instance, or a failover's survivor whose
// ownership the fleet follows.
type FixedTargets struct {
	Addr  string
	Owned func(p int32) string // nil: addr owns every key
}

func (t FixedTargets) any() []string { return []string{t.Addr} }

func (t FixedTargets) Owner(p int32) string {
	if t.Owned == nil {
		return t.Addr
	}
	return t.Owned(p)
}

// fleetTargetsRefresh is how often fleetTargets reads the instances'
// events again: the addresses and owners a client sees are at most this
// old, as a client's metadata is a moment behind the group's.
const fleetTargetsRefresh = 50 * time.Millisecond

// fleetTargets are a fleet's live instances' API layers, but those taken
// out of rotation before they stop (drain), as a load balancer's health
// check takes a stopping instance out; owners by the instances' latest
// task lists (metadataForLocalThreads, what queryMetadataForKey's
// activeHost reflects), each partition's last known owner kept while no
// live instance lists it active (a client's stale metadata).
type fleetTargets struct {
	f *fleet.Fleet

	Mu       sync.Mutex
	drained  map[*fleet.Proc]bool
	at       time.Time
	addrs    []string
	owners   map[int32]string
	lastSeen map[int32]string
}

// NewFleetTargets follows f's instances.
func NewFleetTargets(f *fleet.Fleet) *fleetTargets {
	return &fleetTargets{f: f, drained: map[*fleet.Proc]bool{}, owners: map[int32]string{}, lastSeen: map[int32]string{}}
}

// Drain takes p out of rotation (its lookups stop at once).
func (t *fleetTargets) Drain(p *fleet.Proc) {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	t.drained[p] = true
	t.at = time.Time{}
}

func (t *fleetTargets) any() []string {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	t.refresh()
	return t.addrs
}

func (t *fleetTargets) Owner(p int32) string {
	t.Mu.Lock()
	defer t.Mu.Unlock()
	t.refresh()
	if a, ok := t.owners[p]; ok {
		return a
	}
	return t.lastSeen[p]
}

// refresh reads the live instances' addresses and tasks when the last
// read is older than fleetTargetsRefresh; t.mu must be held.
func (t *fleetTargets) refresh() {
	if time.Since(t.at) < fleetTargetsRefresh {
		return
	}
	t.at = time.Now()
	t.addrs, t.owners = nil, map[int32]string{}
	for _, p := range t.f.LiveProcs() {
		addr := fleet.APIAddrOf(p.Inst)
		if addr == "" || t.drained[p] {
			continue
		}
		t.addrs = append(t.addrs, addr)
		for _, task := range fleet.LatestTasks(p.Inst.Events()).Active {
			if part, err := fleet.TaskPartition(task); err == nil {
				t.owners[part], t.lastSeen[part] = addr, addr
			}
		}
	}
	slices.Sort(t.addrs)
}
