package scenario

import (
	"slices"
	"sync"
	"time"
)

// queryTargets are the API layers a kafka-streams query load asks: any
// instance in turn (config.AskAny, a round-robin load balancer) or the
// key's owner (config.AskOwner, a client routing by the metadata).
type queryTargets interface {
	// any are the API layers lookups go to in turn (none: no instance
	// to ask now).
	any() []string
	// owner is the API layer of the instance that held partition p's
	// active copy when the client last saw one ("" when none ever did).
	owner(p int32) string
}

// fixedTargets is one instance's API layer, asked for every key: a cold
// restore's or warm restart's instance, or a failover's survivor whose
// ownership the fleet follows.
type fixedTargets struct {
	addr  string
	owned func(p int32) string // nil: addr owns every key
}

func (t fixedTargets) any() []string { return []string{t.addr} }

func (t fixedTargets) owner(p int32) string {
	if t.owned == nil {
		return t.addr
	}
	return t.owned(p)
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
	f *fleet

	mu       sync.Mutex
	drained  map[*proc]bool
	at       time.Time
	addrs    []string
	owners   map[int32]string
	lastSeen map[int32]string
}

// newFleetTargets follows f's instances.
func newFleetTargets(f *fleet) *fleetTargets {
	return &fleetTargets{f: f, drained: map[*proc]bool{}, owners: map[int32]string{}, lastSeen: map[int32]string{}}
}

// drain takes p out of rotation (its lookups stop at once).
func (t *fleetTargets) drain(p *proc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drained[p] = true
	t.at = time.Time{}
}

func (t *fleetTargets) any() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refresh()
	return t.addrs
}

func (t *fleetTargets) owner(p int32) string {
	t.mu.Lock()
	defer t.mu.Unlock()
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
	for _, p := range t.f.liveProcs() {
		addr := apiAddrOf(p.inst)
		if addr == "" || t.drained[p] {
			continue
		}
		t.addrs = append(t.addrs, addr)
		for _, task := range latestTasks(p.inst.Events()).active {
			if part, err := taskPartition(task); err == nil {
				t.owners[part], t.lastSeen[part] = addr, addr
			}
		}
	}
	slices.Sort(t.addrs)
}
