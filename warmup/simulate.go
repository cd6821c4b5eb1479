package warmup

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// maxRounds bounds a simulation whose warmups never catch up (a restore
// rate below the write rate).
const maxRounds = 10_000

// eps is the lag, in offsets, that counts as none.
const eps = 1e-6

// minStep is the shortest step progress takes, in seconds: it bounds the
// steps of a simulation whose events crowd together.
const minStep = 1e-3

// Round is one rebalance of the prediction.
type Round struct {
	// Seconds is when the assignor ran, from the new instances' start.
	Seconds float64 `json:"seconds"`
	// Kind is "first" (the new instances' join), "probing" (a probing
	// rebalance, probing.rebalance.interval.ms after the last one) or
	// "follow-up" (the cooperative rebalance right after one that revoked
	// actives: it hands them over and, assigning with a fresh warmup
	// budget, may move more tasks whose warmups caught up meanwhile).
	Kind string `json:"kind"`
	// Probing is true for a probing rebalance.
	Probing bool `json:"probing"`
	// Warmups are the warmup replicas assigned ("0_3@4": task 0_3 warming
	// up on client 4).
	Warmups []string `json:"warmups,omitempty"`
	// Moved counts the actives this round gave a new owner; Revoked those
	// it took from their owner for the follow-up to hand over.
	Moved   int `json:"moved"`
	Revoked int `json:"revoked"`
	// Pending counts the movements the assignor still wanted (0 ends the
	// warmup phase: no probing rebalance follows).
	Pending int `json:"pending"`
}

// TaskPlan is one task's predicted timeline; times are seconds from the new
// instances' start, -1 when it does not apply.
type TaskPlan struct {
	Task int `json:"task"`
	// From and To are its active client before and after.
	From int `json:"from"`
	To   int `json:"to"`
	// WarmupStart is when a warmup for it started on To; CaughtUp when that
	// warmup came within acceptable.recovery.lag.
	WarmupStart float64 `json:"warmup_start"`
	CaughtUp    float64 `json:"caught_up"`
	// Moved is when To became its active owner, Running when To had
	// restored what it lacked and ran it.
	Moved   float64 `json:"moved"`
	Running float64 `json:"running"`
	// DownSeconds is how long it was not processed: from its revocation
	// until its new owner had restored it.
	DownSeconds float64 `json:"down_seconds"`
}

// sim is one simulation under way.
type sim struct {
	// ctx stops the simulation early when done.
	ctx context.Context
	in  Inputs
	w   float64 // records a second per task
	// logStart is each task's changelog log start: what a client with no
	// state adds to its lag (positions count from the log start).
	logStart []float64
	members  []int // clients in the group, in process-id order
	end      []float64
	pos      [][]float64 // [client][task] offsets its state holds; -1: none
	owner    []int
	running  []bool
	standby  [][]bool
	warmup   [][]bool
	now      float64
	plans    []TaskPlan
	rounds   []Round
	// warmStart is when each client's warmup of each task first began.
	warmStart [][]float64
	caughtAt  [][]float64
	// revokedAt is when each task was last revoked from its owner.
	revokedAt []float64
}

// noOwner is the owner of a task revoked and not yet handed over.
const noOwner = -1

// newSim sets up the group before the scale-out: the Before clients run
// their tasks, caught up; order is every client in process-id order.
func newSim(in Inputs, order []int) *sim {
	tasks := len(in.TaskOffsets)
	s := &sim{ctx: context.Background(), in: in, w: in.writePerTask(), end: make([]float64, tasks), owner: make([]int, tasks), running: make([]bool, tasks),
		revokedAt: make([]float64, tasks), logStart: make([]float64, tasks)}
	for t, n := range in.TaskLogStart {
		s.logStart[t] = float64(n)
	}
	s.pos, s.standby, s.warmup = grid(in.After, tasks, -1), boolGrid(in.After, tasks), boolGrid(in.After, tasks)
	s.warmStart, s.caughtAt = grid(in.After, tasks, -1), grid(in.After, tasks, -1)
	before := filter(order, func(c int) bool { return c < in.Before })
	for t := range s.owner {
		s.end[t] = float64(in.TaskOffsets[t])
		o := before[t%len(before)]
		if len(in.Initial) > 0 {
			o = in.Initial[t]
		}
		s.owner[t], s.running[t], s.pos[o][t] = o, true, s.end[t]
	}
	s.members = order
	s.plans = make([]TaskPlan, tasks)
	for t := range s.plans {
		s.plans[t] = TaskPlan{Task: t, From: s.owner[t], WarmupStart: -1, CaughtUp: -1, Moved: -1, Running: -1}
	}
	return s
}

func grid(rows, cols int, v float64) [][]float64 {
	out := make([][]float64, rows)
	for i := range out {
		out[i] = make([]float64, cols)
		for j := range out[i] {
			out[i][j] = v
		}
	}
	return out
}

func boolGrid(rows, cols int) [][]bool {
	out := make([][]bool, rows)
	for i := range out {
		out[i] = make([]bool, cols)
	}
	return out
}

func filter(xs []int, keep func(int) bool) []int {
	var out []int
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// lag is client c's lag for task t as the assignor computes it.
func (s *sim) lag(c, t int) int64 {
	if s.owner[t] == c && s.running[t] {
		return lagRunning
	}
	if s.pos[c][t] < 0 {
		// No state: an offset sum of 0 against the absolute end.
		return int64(math.Ceil(s.logStart[t] + s.end[t] - eps))
	}
	return int64(math.Ceil(max(s.end[t]-s.pos[c][t], 0) - eps))
}

// rebalanceNow is the assignor's view of the group now.
func (s *sim) rebalanceNow() rebalance {
	r := rebalance{ctx: s.ctx, clients: s.members, capacity: s.in.Threads, standbys: s.in.Standbys,
		budget: s.in.MaxWarmupReplicas, acceptable: s.in.AcceptableRecoveryLag}
	r.lag = make([][]int64, s.in.After)
	for c := range r.lag {
		r.lag[c] = make([]int64, len(s.end))
		for t := range s.end {
			r.lag[c][t] = s.lag(c, t)
		}
	}
	return r
}

// revoke takes from their owners the actives the assignment gives to
// another client (cooperative rebalancing hands them over in a follow-up
// rebalance) and returns how many, and from which clients.
func (s *sim) revoke(a assignment) (n int, from map[int]bool) {
	from = map[int]bool{}
	for t, o := range a.owner {
		if s.owner[t] != noOwner && o != s.owner[t] {
			from[s.owner[t]] = true
			s.owner[t], s.running[t], s.revokedAt[t] = noOwner, false, s.now
			n++
		}
	}
	return n, from
}

// apply makes an assignment current: a task without an owner goes to its
// assigned client and restores from the state that client holds;
// standbys and warmups update from theirs.
func (s *sim) apply(a assignment) (moved int) {
	for t, o := range a.owner {
		if s.owner[t] == noOwner {
			moved++
			s.owner[t], s.running[t] = o, false
			s.plans[t].Moved = s.now
			s.pos[o][t] = max(s.pos[o][t], 0)
		}
	}
	s.applyStandbys(a)
	return moved
}

// applyStandbys makes an assignment's standbys and warmups current.
func (s *sim) applyStandbys(a assignment) {
	for c := range a.standby {
		for t, sb := range a.standby[c] {
			s.standby[c][t], s.warmup[c][t] = sb, a.warmup[c][t]
			if sb {
				s.pos[c][t] = max(s.pos[c][t], 0)
			}
			if a.warmup[c][t] && s.warmStart[c][t] < 0 {
				s.warmStart[c][t] = s.now
			}
		}
	}
}

// work is one task a thread updates: an active restoring, or a standby.
type work struct {
	c, t   int
	active bool
}

// threadWork lists, per thread of every member, what it updates: restoring
// actives if it has any (standbys wait while actives restore), else its
// standbys. Tasks spread over a client's threads in task order.
func (s *sim) threadWork() [][]work {
	var out [][]work
	for _, c := range s.members {
		threads := make([][]work, s.in.Threads)
		ai, si := 0, 0
		for t := range s.end {
			if s.owner[t] == c {
				if !s.running[t] {
					threads[ai%len(threads)] = append(threads[ai%len(threads)], work{c, t, true})
				}
				ai++
			} else if s.standby[c][t] {
				threads[si%len(threads)] = append(threads[si%len(threads)], work{c, t, false})
				si++
			}
		}
		for _, th := range threads {
			if hasActive(th) {
				th = filterWork(th, func(w work) bool { return w.active })
			}
			out = append(out, th)
		}
	}
	return out
}

func hasActive(ws []work) bool {
	for _, w := range ws {
		if w.active {
			return true
		}
	}
	return false
}

func filterWork(ws []work, keep func(work) bool) []work {
	var out []work
	for _, w := range ws {
		if keep(w) {
			out = append(out, w)
		}
	}
	return out
}

// rates shares a thread's restore rate among its work, water-filling: a
// caught-up standby needs only the write rate, the rest share what is left.
func (s *sim) rates(th []work) []float64 {
	out := make([]float64, len(th))
	left, open := s.in.RestoreRate, len(th)
	done := make([]bool, len(th))
	for changed := true; changed && open > 0; {
		changed = false
		share := left / float64(open)
		for i, w := range th {
			if !done[i] && s.gap(w) <= eps && s.w < share {
				out[i], done[i] = s.w, true
				left -= s.w
				open--
				changed = true
			}
		}
	}
	for i := range th {
		if !done[i] {
			out[i] = left / float64(max(open, 1))
		}
	}
	return out
}

// gap is how far a piece of work is behind the end of its changelog.
func (s *sim) gap(w work) float64 { return max(s.end[w.t]-s.pos[w.c][w.t], 0) }

// progress advances the simulation by d seconds: running actives follow
// their changelogs, restores and standbys close their gaps at their share
// of the thread's rate, and the changelogs grow at the write rate.
func (s *sim) progress(d float64) { s.progressUntil(d, func() bool { return false }) }

// progressUntil is progress that stops early, at the end of the step in
// which done became true.
func (s *sim) progressUntil(d float64, done func() bool) {
	for s.settle(); d > eps && !done() && s.ctx.Err() == nil; s.settle() {
		step := s.step(d)
		s.now += step
		d -= step
	}
}

// step advances by d seconds at most, stopping at the first restore or
// standby that closes its gap (the rates change there), and returns the
// time advanced.
func (s *sim) step(d float64) float64 {
	type flow struct {
		w    work
		rate float64
	}
	var flows []flow
	step := d
	for _, th := range s.threadWork() {
		for i, r := range s.rates(th) {
			flows = append(flows, flow{th[i], r})
			if g, net := s.gap(th[i]), r-s.w; g > eps && net > 0 {
				step = min(step, g/net)
			}
		}
	}
	step = max(step, minStep)
	for _, f := range flows {
		s.advance(f.w, f.rate, step)
	}
	for t := range s.end {
		s.end[t] += s.w * step
		if s.running[t] {
			s.pos[s.owner[t]][t] = s.end[t]
		}
	}
	return step
}

// advance moves one piece of work rate*step offsets ahead (never past the
// end it will have then) and notes a warmup's catching up.
func (s *sim) advance(w work, rate, step float64) {
	before := s.end[w.t] - s.pos[w.c][w.t]
	s.pos[w.c][w.t] = min(s.pos[w.c][w.t]+rate*step, s.end[w.t]+s.w*step)
	after := s.end[w.t] + s.w*step - s.pos[w.c][w.t]
	arl := float64(s.in.AcceptableRecoveryLag)
	if !w.active && s.warmup[w.c][w.t] && s.caughtAt[w.c][w.t] < 0 && after <= arl {
		at := s.now
		if before > arl && before > after {
			at += step * (before - arl) / (before - after)
		}
		s.caughtAt[w.c][w.t] = at
	}
}

// settle marks restored actives running.
func (s *sim) settle() {
	for t := range s.end {
		if !s.running[t] && s.owner[t] != noOwner && s.end[t]-s.pos[s.owner[t]][t] <= eps*10 {
			s.running[t] = true
			s.plans[t].Running = s.now
		}
	}
}

// allRunning reports whether every active runs.
func (s *sim) allRunning() bool {
	for _, r := range s.running {
		if !r {
			return false
		}
	}
	return true
}

// tail runs the simulation until every active runs (the restores after
// the last rebalance); false if that never happens.
func (s *sim) tail() bool {
	for i := 0; i < maxRounds && !s.allRunning() && s.ctx.Err() == nil; i++ {
		s.progressUntil(max(s.in.ProbingIntervalSeconds, 1), s.allRunning)
	}
	return s.allRunning()
}

// warmupNames lists an assignment's warmups as "task@client".
func warmupNames(a assignment) []string {
	var out []string
	for c := range a.warmup {
		for t, w := range a.warmup[c] {
			if w {
				out = append(out, fmt.Sprintf("0_%d@%d", t, c))
			}
		}
	}
	sort.Strings(out)
	return out
}

// runClassic plays the classic protocol's rebalances: the first with every
// new instance; after one that revokes actives, the cooperative follow-up
// FollowUpSeconds later, which hands them over and assigns again (with a
// fresh warmup budget, so it may revoke more); otherwise, while the
// assignor still wants to move tasks, a probing rebalance
// ProbingIntervalSeconds later. Then the last restores.
//
// The assignor sees each member's lags as of the member's JoinGroup, which
// comes when a heartbeat tells it of the rebalance: on average half a
// heartbeat interval (FollowUpSeconds/2) before the assignment. A member
// that gave up actives rejoins at once instead (that is what starts the
// follow-up), so in the follow-up the assignor sees its lags as they were
// right after the previous assignment: a warmup given to that member then
// has not started and cannot be caught up yet, and waits for the next
// probing rebalance (as measured: KIP-441 moves fewer tasks per probing
// round than warmups allow when warmups land on the revoking members).
func (s *sim) runClassic() (converged bool) {
	next, kind := s.in.StartupSeconds, "first"
	joined := s.in.FollowUpSeconds / 2
	var rejoined *rebalance // the revoking members' lags as they rejoined
	var revokers map[int]bool
	for round := 0; round < maxRounds && s.ctx.Err() == nil; round++ {
		s.progress(next - joined - s.now)
		view := s.rebalanceNow()
		if rejoined != nil {
			for c := range revokers {
				view.lag[c] = rejoined.lag[c]
			}
		}
		s.progress(next - s.now)
		at := s.now
		a := hataAssign(view)
		s.progress(min(s.in.RebalanceSeconds, s.in.ProbingIntervalSeconds))
		moved := s.apply(a)
		revoked, from := s.revoke(a)
		rejoined, revokers = nil, nil
		if revoked > 0 {
			v := s.rebalanceNow()
			rejoined, revokers = &v, from
		}
		s.rounds = append(s.rounds, Round{Seconds: at, Kind: kind, Probing: kind == "probing", Warmups: warmupNames(a),
			Moved: moved, Revoked: revoked, Pending: a.movements})
		switch {
		case revoked > 0:
			next, kind = at+s.in.FollowUpSeconds, "follow-up"
		case a.movements == 0:
			return s.tail()
		default:
			next, kind = at+s.in.ProbingIntervalSeconds, "probing"
		}
	}
	return false
}

// movesActives reports whether an assignment gives any task a new owner.
func movesActives(owner, next []int) bool {
	for t := range owner {
		if owner[t] != next[t] {
			return true
		}
	}
	return false
}

// runStreams plays the streams protocol in 4.4: the broker's sticky
// assignor (previous owners keep tasks up to an even share, the rest go to
// the least-loaded members), no warmups; moved tasks are revoked, handed
// over FollowUpSeconds later, and restored from scratch.
func (s *sim) runStreams() bool {
	s.progress(s.in.StartupSeconds)
	at := s.now
	a := stickyAssign(s.owner, s.in.After)
	s.progress(s.in.RebalanceSeconds)
	revoked, _ := s.revoke(a)
	s.rounds = append(s.rounds, Round{Seconds: at, Kind: "first", Revoked: revoked})
	s.progress(s.in.FollowUpSeconds)
	moved := s.apply(a)
	s.rounds = append(s.rounds, Round{Seconds: at + s.in.FollowUpSeconds, Kind: "follow-up", Moved: moved})
	return s.tail()
}

// stickyAssign is the streams protocol's sticky active assignment: every
// member gets floor or ceil of tasks/members; a previous owner keeps its
// lowest tasks up to that, the others go to the least-loaded members.
func stickyAssign(owner []int, members int) assignment {
	a := newAssignment(members, len(owner))
	quota := (len(owner) + members - 1) / members
	count := make([]int, members)
	var loose []int
	for t, o := range owner {
		if count[o] < quota {
			a.owner[t] = o
			count[o]++
		} else {
			loose = append(loose, t)
		}
	}
	for _, t := range loose {
		best := 0
		for c := range count {
			if count[c] < count[best] {
				best = c
			}
		}
		a.owner[t] = best
		count[best]++
	}
	return a
}

// finishPlans fills in each task's final owner and its warmup's times.
func (s *sim) finishPlans() {
	for t := range s.plans {
		p := &s.plans[t]
		p.To = s.owner[t]
		if p.To == p.From {
			p.Moved, p.Running = -1, -1
			continue
		}
		p.WarmupStart, p.CaughtUp = s.warmStart[p.To][t], s.caughtAt[p.To][t]
		if p.Running >= 0 && p.Moved >= 0 {
			p.DownSeconds = p.Running - s.revokedAt[t]
		}
	}
}
