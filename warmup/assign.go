package warmup

import (
	"context"
	"math"
	"sort"
)

// lagRunning is the lag a client reports for an active task it runs
// (Kafka Streams' Task.LATEST_OFFSET sentinel, -2): always caught up.
const lagRunning = -2

// rebalance is what the assignor sees at one rebalance.
type rebalance struct {
	// clients are the members' indices in process-id order.
	clients []int
	// capacity is each client's stream threads.
	capacity int
	// lag is each client's lag per task ([client][task]): lagRunning for a
	// running active, else end offset minus the offsets its state holds.
	lag [][]int64
	// standbys is num.standby.replicas; budget is max.warmup.replicas;
	// acceptable is acceptable.recovery.lag.
	standbys, budget int
	acceptable       int64
	// ctx, when done, cuts the assignment short: each of its loops is
	// O(tasks²) on a large group, and the simulation it serves stops.
	ctx context.Context
}

// stopped reports whether the simulation this rebalance serves was stopped.
func (r rebalance) stopped() bool { return r.ctx != nil && r.ctx.Err() != nil }

// assignment is the outcome of one rebalance.
type assignment struct {
	// owner is each task's active client.
	owner []int
	// standby and warmup say which client holds which task as a standby
	// ([client][task]); warmups are standbys too.
	standby, warmup [][]bool
	// movements counts the tasks the assignor still wants to move; more
	// than 0 schedules a probing rebalance.
	movements int
}

// hataAssign assigns stateful tasks as Kafka Streams 4.4's
// HighAvailabilityTaskAssignor does: a balanced target (round-robin in
// process-id order, standbys on the least-loaded clients), then every
// active or standby whose target client is not caught up while another
// client is strictly more caught up goes (or stays) on a caught-up client,
// the target getting a warmup while the rebalance's budget lasts.
func hataAssign(r rebalance) assignment {
	tasks := len(r.lag[0])
	a := newAssignment(len(r.lag), tasks)
	for i := 0; i < tasks; i++ {
		a.owner[i] = r.clients[i%len(r.clients)]
	}
	a.placeStandbys(r)
	caught := caughtUp(r)
	budget := r.budget
	a.movements = a.moveActives(r, caught, &budget)
	a.movements += a.moveStandbys(r, caught, &budget)
	return a
}

func newAssignment(clients, tasks int) assignment {
	a := assignment{owner: make([]int, tasks), standby: make([][]bool, clients), warmup: make([][]bool, clients)}
	for c := range a.standby {
		a.standby[c], a.warmup[c] = make([]bool, tasks), make([]bool, tasks)
	}
	return a
}

// load is a client's assigned tasks (active and standby) per thread,
// ClientState.assignedTaskLoad.
func (a assignment) load(c, capacity int) float64 {
	n := 0
	for t, o := range a.owner {
		if o == c {
			n++
		}
		if a.standby[c][t] {
			n++
		}
	}
	return float64(n) / float64(capacity)
}

// holds reports whether c has task t assigned, active or standby.
func (a assignment) holds(c, t int) bool { return a.owner[t] == c || a.standby[c][t] }

// leastLoaded is the first client, by load then process-id order, that ok
// accepts (ConstrainedPrioritySet.poll), or -1.
func (a assignment) leastLoaded(r rebalance, ok func(c int) bool) int {
	best, bestLoad := -1, math.Inf(1)
	for _, c := range r.clients { // process-id order breaks ties
		if !ok(c) {
			continue
		}
		if l := a.load(c, r.capacity); l < bestLoad {
			best, bestLoad = c, l
		}
	}
	return best
}

// placeStandbys gives each task num.standby.replicas standbys on the
// least-loaded clients that do not hold it (DefaultStandbyTaskAssignor).
func (a assignment) placeStandbys(r rebalance) {
	for t := range a.owner {
		if r.stopped() {
			break
		}
		for k := 0; k < r.standbys; k++ {
			c := a.leastLoaded(r, func(c int) bool { return !a.holds(c, t) })
			if c < 0 {
				break
			}
			a.standby[c][t] = true
		}
	}
}

// caughtUp is, per task, which clients are caught up: running it, or
// within acceptable.recovery.lag (every client when that is unbounded).
func caughtUp(r rebalance) [][]bool {
	tasks := len(r.lag[0])
	out := make([][]bool, tasks)
	for t := range out {
		out[t] = make([]bool, len(r.lag))
		for _, c := range r.clients {
			l := r.lag[c][t]
			out[t][c] = l == lagRunning || r.acceptable == math.MaxInt64 || (l >= 0 && l <= r.acceptable)
		}
	}
	return out
}

// movement is a task whose target client is not caught up.
type movement struct {
	task, dest, caughtUp int
}

// needsMove reports whether t on c must move: c is not caught up and some
// client is strictly more caught up (TaskMovement's condition).
func needsMove(r rebalance, caught [][]bool, c, t int) bool {
	if caught[t][c] {
		return false
	}
	most := r.lag[r.byLag(t)[0]][t]
	return most < r.lag[c][t]
}

// byLag lists the clients by their lag for t, then process-id order.
func (r rebalance) byLag(t int) []int {
	out := append([]int(nil), r.clients...)
	sort.SliceStable(out, func(i, j int) bool { return r.lag[out[i]][t] < r.lag[out[j]][t] })
	return out
}

// sortMovements orders movements as TaskMovement's queue does: fewest
// caught-up clients first, then by task.
func sortMovements(ms []movement) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].caughtUp != ms[j].caughtUp {
			return ms[i].caughtUp < ms[j].caughtUp
		}
		return ms[i].task < ms[j].task
	})
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// moveActives keeps every active whose target is not caught up on a
// caught-up client, warming the target up while budget lasts
// (assignActiveTaskMovements); it returns the movements needed.
func (a assignment) moveActives(r rebalance, caught [][]bool, budget *int) int {
	var ms []movement
	for _, c := range r.clients {
		for t, o := range a.owner {
			if o == c && needsMove(r, caught, c, t) {
				ms = append(ms, movement{t, c, countTrue(caught[t])})
			}
		}
	}
	sortMovements(ms)
	for _, m := range ms {
		if r.stopped() {
			break
		}
		t := m.task
		if src := a.leastLoaded(r, func(c int) bool { return caught[t][c] && a.standby[c][t] }); src >= 0 {
			a.swap(t, src, m.dest)
			continue
		}
		src := a.leastLoaded(r, func(c int) bool { return caught[t][c] })
		if src < 0 {
			src = mostCaughtUp(r, t, m.dest, func(int) bool { return true })
			if src >= 0 && a.standby[src][t] {
				a.swap(t, src, m.dest)
				continue
			}
		}
		if src < 0 {
			continue // cannot happen: the movement was needed because such a client exists
		}
		a.owner[t] = src
		if *budget > 0 {
			a.standby[m.dest][t], a.warmup[m.dest][t] = true, true
		}
		*budget--
	}
	return len(ms)
}

// swap makes src (holding a standby of t) the active and dest a standby.
func (a assignment) swap(t, src, dest int) {
	a.standby[src][t] = false
	a.owner[t] = src
	a.standby[dest][t] = true
}

// mostCaughtUp is the first client by lag ahead of dest that ok accepts.
func mostCaughtUp(r rebalance, t, dest int, ok func(int) bool) int {
	for _, c := range r.byLag(t) {
		if c == dest {
			break
		}
		if ok(c) {
			return c
		}
	}
	return -1
}

// moveStandbys does for standbys what moveActives does for actives
// (assignStandbyTaskMovements): a standby whose client is not caught up
// goes to a caught-up (or the most caught-up) client without the task, and
// its client keeps it as a warmup while budget lasts.
func (a assignment) moveStandbys(r rebalance, caught [][]bool, budget *int) int {
	var ms []movement
	for _, c := range r.clients {
		for t := range a.owner {
			if a.standby[c][t] && !a.warmup[c][t] && needsMove(r, caught, c, t) {
				ms = append(ms, movement{t, c, countTrue(caught[t])})
			}
		}
	}
	sortMovements(ms)
	moved := 0
	for _, m := range ms {
		if r.stopped() {
			break
		}
		t := m.task
		free := func(c int) bool { return !a.holds(c, t) }
		src := a.leastLoaded(r, func(c int) bool { return caught[t][c] && free(c) })
		if src < 0 {
			src = mostCaughtUp(r, t, m.dest, free)
		}
		if src < 0 {
			continue
		}
		a.standby[src][t] = true
		if *budget <= 0 {
			a.standby[m.dest][t] = false
		} else {
			a.warmup[m.dest][t] = true
		}
		*budget--
		moved++
	}
	return moved
}
