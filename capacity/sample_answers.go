package capacity

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// SampledTasks are the restores of a sample's partitions, each alone at
// its full size: seconds to ready by engine and partition, and the host
// of each partition's restores (an agent's when one restored it: plan
// --measure --agents).
type SampledTasks struct {
	Singles   map[config.Engine]map[int32][]float64
	TaskHosts map[config.Engine]map[int32]TaskHost
	// Together is, by engine, the sampled partitions restored together by
	// one instance (the first such set in the inputs), which checks the
	// composition on the user's own tasks; none without one.
	Together map[config.Engine]*Together
	Obs      []Obs
}

// TaskHost is the host a sampled task's restores ran on, and the agent
// that ran them ("" for the run's own host).
type TaskHost struct {
	runs.Host
	Agent string
}

// Text names the host: "agent a on host-a (4 CPUs)", or "host-a (4 CPUs)".
func (h TaskHost) Text() string {
	t := fmt.Sprintf("%s (%s)", h.Hostname, Plural(h.CPUs, "CPU"))
	if h.Agent != "" {
		return "agent " + h.Agent + " on " + t
	}
	return t
}

// taskHost is where o's restore ran: the agent's host as the run recorded
// its facts when an agent restored it (the model engine's restore, or a
// kafka-streams restore's instance), else the run's host.
func taskHost(o Obs) TaskHost {
	agent, hostname := o.Restore.RestoredOn()
	if agent == "" {
		return TaskHost{Host: o.Run.Results.Host}
	}
	h := TaskHost{Agent: agent, Host: runs.Host{Hostname: hostname}}
	for _, a := range o.Run.Results.Agents {
		if a.Name == agent {
			f := a.Facts
			h.OS, h.Arch, h.CPUs, h.MemoryBytes = f.OS, f.Arch, f.CPUs, f.MemoryBytes
			if h.Hostname == "" {
				h.Hostname = f.Hostname
			}
		}
	}
	return h
}

// sampledTasks collects from obs the restores of one partition of the
// sample's topic alone, and those of two or more sampled partitions
// together.
func sampledTasks(s *Sample, obs []Obs) SampledTasks {
	st := SampledTasks{Singles: map[config.Engine]map[int32][]float64{}, TaskHosts: map[config.Engine]map[int32]TaskHost{},
		Together: map[config.Engine]*Together{}}
	for _, o := range obs {
		r := o.Restore
		if r.Topic != s.Topic || len(r.RestoredPartitions) == 0 || !r.IsCold() {
			continue
		}
		e := runs.EngineOf(r.Params)
		if len(r.RestoredPartitions) > 1 {
			st.addTogether(s, e, o)
			continue
		}
		if st.Singles[e] == nil {
			st.Singles[e], st.TaskHosts[e] = map[int32][]float64{}, map[int32]TaskHost{}
		}
		p := r.RestoredPartitions[0]
		st.Singles[e][p] = append(st.Singles[e][p], o.Seconds)
		h := taskHost(o)
		st.TaskHosts[e][p] = h
		st.Obs = append(st.Obs, o)
	}
	return st
}

// addTogether adds o, a restore of several partitions of the sample's
// topic together, to engine e's Together when they are all sampled ones
// and the same set (and thread count) as its first.
func (st *SampledTasks) addTogether(s *Sample, e config.Engine, o Obs) {
	r := o.Restore
	for _, p := range r.RestoredPartitions {
		if !slices.Contains(s.Sampled, p) {
			return
		}
	}
	ps := slices.Sorted(slices.Values(r.RestoredPartitions))
	threads := max(1, r.Params.Threads)
	tg := st.Together[e]
	if tg == nil {
		tg = &Together{Partitions: ps, Threads: threads, Host: taskHost(o)}
		st.Together[e] = tg
	}
	if !slices.Equal(tg.Partitions, ps) || tg.Threads != threads {
		return
	}
	tg.Seconds = append(tg.Seconds, o.Seconds)
	tg.Obs = append(tg.Obs, o)
}

// sampled is what a sample's restores say, derived once per Analysis for
// the answers and the standby's recovery alike: the sampled tasks, the
// engine the answers rest on, every task's time, and the composition
// series among the inputs.
type sampled struct {
	tasks  SampledTasks
	engine config.Engine
	times  []TaskTime
	comps  []*Composition
}

// The per-task and per-instance answers of a sampled changelog.
func init() {
	RegisterEvidence(EvidenceDef{Name: "sample", Derive: func(a *Analysis) (any, error) { return sampledOf(a), nil }})
	registerAnswerer(answerer{order: 15, answer: sampleAnswers, scenarios: []config.Scenario{config.ScenarioCold}})
}

// sampledOf reads a's sample from its restores; nil without a sample.
func sampledOf(a *Analysis) *sampled {
	s := a.Options.Sample
	if s == nil {
		return nil
	}
	st := sampledTasks(s, a.Obs)
	engine := SampledEngine(st.Singles)
	return &sampled{tasks: st, engine: engine, times: taskTimes(s, st.Singles[engine]), comps: compositionsOf(a.Obs)}
}

// slowest is the slowest measured task and the host it restored on, whose
// composition every composed answer takes.
func (sm *sampled) slowest() (TaskTime, TaskHost) {
	largest := sm.times[0]
	for _, t := range sm.times {
		if t.Measured && (!largest.Measured || t.Value > largest.Value) {
			largest = t
		}
	}
	return largest, sm.tasks.TaskHosts[sm.engine][largest.Partition]
}

// recordBytes is the key+value bytes a record of the sampled tasks, as
// their restores on the sampled engine read them; 0 when none did.
func (sm *sampled) recordBytes() float64 {
	var bytes, records float64
	for _, o := range sm.tasks.Obs {
		if runs.EngineOf(o.Restore.Params) == sm.engine && o.Restore.Records > 0 {
			bytes, records = bytes+float64(o.Restore.Bytes), records+float64(o.Restore.Records)
		}
	}
	if records == 0 {
		return 0
	}
	return bytes / records
}

// recordsUnlike is how far apart a composition series' record size and
// the user's may be before the answer says so: twice (the compose
// profile's 80 B records against 500 B ones are 6.2× apart).
const recordsUnlike = 2

// unlikeRecords is the line that says comp was measured on records of
// another size than the sampled tasks' (recordsUnlike or more apart), ""
// when they are alike or either is unknown.
func (sm *sampled) unlikeRecords(comp *Composition) string {
	mine := sm.recordBytes()
	apart := recordsApart(comp.RecordBytes, mine)
	if math.IsInf(apart, 1) || apart < recordsUnlike {
		return ""
	}
	return fmt.Sprintf("UNLIKE: the composition was measured on records of %s, the sampled tasks hold records of %s (%.1f× apart): "+
		"run the compose profile with its fill's key_bytes and value_size adding up to your %s and give both runs with --from (the "+
		"series nearest your records is taken)", FormatBytes(comp.RecordBytes), FormatBytes(mine), apart, FormatBytes(mine))
}

// sampled is what the sample's restores say; nil without a sample.
func (a *Analysis) sampled() *sampled {
	ev, _ := evidenceAs[*sampled](a, "sample")
	return ev
}

// sampleAnswers answer, for a changelog known task by task (Options.Sample)
// whose sampled partitions were restored alone, how long its largest task
// and one instance take to restore cold: the task as measured, the
// instance composed from its tasks' own times through the host's measured
// composition. Nothing without a sample.
func sampleAnswers(a *Analysis) ([]Answer, []Unanswered) {
	s, d, sm := a.Options.Sample, a.Options.Deployment, a.sampled()
	if sm == nil {
		return nil, nil
	}
	st, engine, times := sm.tasks, sm.engine, sm.times
	if len(times) == 0 {
		return nil, []Unanswered{{Question: "Cold restore of the sampled tasks", Reason: fmt.Sprintf("no verified restore of a "+
			"sampled partition of %s alone in the inputs (plan --from-topic --measure restores them)", s.Topic)}}
	}
	largest, slowestHost := sm.slowest()
	hosts := st.TaskHosts[engine]
	host := slowestHost.Host
	hostText := fmt.Sprintf("on %s, %s", slowestHost.Text(), engine)
	out := []Answer{{
		ID:       "cold_restore_task",
		Question: fmt.Sprintf("Cold restore of the slowest sampled task (partition %d of %s, restored alone at its full size)", largest.Partition, s.Topic),
		Value:    TimeValue(largest.Estimate),
		Checks:   checks(largest.Estimate, a.Options.RTOs),
		Inputs: []string{fmt.Sprintf("partition %d restored %s %s", largest.Partition, Plural(len(st.Singles[engine][largest.Partition]), "time"), hostText),
			fmt.Sprintf("interval %s–%s: the range of those restores", FormatSeconds(largest.Lo), FormatSeconds(largest.Hi)), sampleText(s, times),
			hostsText(hosts, engine)},
		Sources: RunLabels(st.Obs),
		Figure:  figureOf(largest.Estimate, UnitSeconds),
	}}
	instances := d.Instances
	if instances <= 0 {
		instances = 1
	}
	perInstance := (len(s.Tasks) + instances - 1) / instances
	threads := a.Options.Threads
	comp, one := CompositionFor(sm.comps, engine, threads, host.Hostname, sm.recordBytes())
	tg := st.Together[engine]
	inst := checkComposed(times, perInstance, threads, comp, one, tg)
	inputs := []string{fmt.Sprintf("%d partitions over %s: %s an instance, the %d largest for the slowest", len(s.Tasks),
		Plural(instances, "instance"), Plural(perInstance, "task"), perInstance), sampleText(s, times)}
	if comp != nil {
		inputs = append(inputs, "composed as measured "+comp.Label()+": "+comp.Summary())
		if inst.TaskFixedOwn && inst.Check == nil {
			inputs = append(inputs, fmt.Sprintf("a task pays %s alone however large: the line through the sampled tasks' sizes and "+
				"times (k tasks' fixed part scaled alike)", FormatSeconds(inst.TaskFixed)))
		}
		if one != nil && one != comp {
			inputs = append(inputs, "a task alone priced by the one-thread series: "+one.Summary())
		}
		if unlike := sm.unlikeRecords(comp); unlike != "" {
			inputs = append(inputs, unlike)
		}
		if unlike := unlikeComposition(comp, hosts); unlike != "" {
			inputs = append(inputs, fmt.Sprintf("UNLIKE: the composition was measured on %s (%s), the tasks restored on %s (%s)", comp.Host,
				Plural(comp.CPUs, "CPU"), unlike, engine))
		}
	}
	if u := unlikeHosts(hosts); u != "" {
		inputs = append(inputs, u)
	}
	intervalWhy := "the sampled restores' ranges and the composition's own error"
	if inst.Check != nil {
		inputs = append(inputs, inst.Check.Text())
		if h := tg.Host; h.Hostname != slowestHost.Hostname || h.CPUs != slowestHost.CPUs {
			inputs = append(inputs, fmt.Sprintf("UNLIKE: the tasks restored together on %s, the slowest alone on %s: the check "+
				"compares what two hosts measured", h.Text(), slowestHost.Text()))
		}
		intervalWhy += ", the together restores' range and the series' move over its sizes"
	} else if tg != nil {
		inputs = append(inputs, togetherUnusedText(tg, threads, comp))
	}
	inputs = append(inputs, fmt.Sprintf("interval %s–%s: %s", FormatSeconds(inst.Lo), FormatSeconds(inst.Hi), intervalWhy))
	if inst.Beyond > 1.0001 {
		inputs = append(inputs, fmt.Sprintf("extrapolated %.1f×: %s", inst.Beyond, composedBeyondText(inst, comp)))
	}
	ans := Answer{
		ID: "cold_restore_instance",
		Question: fmt.Sprintf("Cold restore of one instance (%s on %s, composed from its tasks' own restores)", Plural(perInstance, "task"),
			Plural(threads, "thread")),
		Value:        TimeValue(inst.Estimate),
		Checks:       checks(inst.Estimate, a.Options.RTOs),
		Extrapolated: inst.Extrapolated,
		Inputs:       inputs,
		Sources:      RunLabels(append(append(append([]Obs(nil), st.Obs...), togetherObs(inst.Check)...), compositionObs(comp, one)...)),
		Figure:       figureOf(inst.Estimate, UnitSeconds),
	}
	if inst.Unverified != "" {
		ans.Inputs = append(ans.Inputs, "INCONCLUSIVE: "+inst.Unverified)
		for i := range ans.Checks {
			ans.Checks[i].Inconclusive, ans.Checks[i].Why = true, inst.Unverified
		}
	}
	out = append(out, ans)
	if d.Instances > 0 || len(a.Options.RTOs) > 0 {
		out = append(out, sampledInstancesNeeded(a, s, times, threads, comp, one, tg)...)
	}
	return out, nil
}

// sampledInstancesNeeded is, per objective, the fewest instances whose
// composed cold restore (of their largest tasks) meets it at the upper
// end of its interval; none when even one task a instance misses it.
func sampledInstancesNeeded(a *Analysis, s *Sample, times []TaskTime, threads int, comp, one *Composition, tg *Together) []Answer {
	var out []Answer
	for _, rto := range a.Options.RTOs {
		obj := rto.Seconds()
		q := "Instances needed for an instance's tasks to restore within " + FormatRTO(rto)
		n := 0
		var at Composed
		for i := 1; i <= len(s.Tasks); i++ {
			at = checkComposed(times, (len(s.Tasks)+i-1)/i, threads, comp, one, tg)
			if at.Hi <= obj && at.Value <= obj {
				n = i
				break
			}
		}
		ans := Answer{ID: "instances_needed", RTO: rto, Question: q, Sources: RunLabels(append(togetherObs(at.Check), compositionObs(comp, one)...))}
		if n == 0 {
			ans.Value = fmt.Sprintf("none: one instance a task (%s) does not restore within %s at the top of its interval; more partitions are needed",
				FormatSeconds(at.Hi), FormatRTO(rto))
			out = append(out, ans)
			continue
		}
		ans.Figure, ans.Value = countFigure(n, at.Estimate), fmt.Sprint(n)
		ans.Inputs = []string{fmt.Sprintf("%s an instance restore in %s (%s–%s), composed from the sampled tasks", Plural((len(s.Tasks)+n-1)/n, "task"),
			FormatSeconds(at.Value), FormatSeconds(at.Lo), FormatSeconds(at.Hi))}
		if at.Unverified != "" {
			ans.Value = "INCONCLUSIVE (" + ans.Value + " if the tasks compose as taken)"
			ans.Inputs = append(ans.Inputs, at.Unverified)
		} else if at.Wide() {
			ans.Value = "INCONCLUSIVE (" + ans.Value + ")"
			ans.Inputs = append(ans.Inputs, fmt.Sprintf("%.0f× beyond what the composition measured", at.Beyond))
		}
		out = append(out, ans)
	}
	return out
}

// hostsText names the host each sampled task's figure came from: "the
// sampled tasks restored on agent a on host-a (4 CPUs): partition 3;
// agent b on host-b (4 CPUs): partition 0 (model)".
func hostsText(hosts map[int32]TaskHost, engine config.Engine) string {
	byHost := map[string][]string{}
	for _, p := range slices.Sorted(maps.Keys(hosts)) {
		t := hosts[p].Text()
		byHost[t] = append(byHost[t], fmt.Sprint(p))
	}
	var parts []string
	for _, t := range slices.Sorted(maps.Keys(byHost)) {
		parts = append(parts, fmt.Sprintf("%s: %s %s", t, partitionWord(len(byHost[t])), strings.Join(byHost[t], ", ")))
	}
	return fmt.Sprintf("the sampled tasks restored on %s (%s)", strings.Join(parts, "; "), engine)
}

// unlikeHosts is an "UNLIKE" line when the sampled tasks' hosts differ
// in CPUs or in the disk under their stores (where both recorded one):
// their times then differ by host as well as by size. "" when alike.
func unlikeHosts(hosts map[int32]TaskHost) string {
	ps := slices.Sorted(maps.Keys(hosts))
	for _, p := range ps[min(1, len(ps)):] {
		a, b := hosts[ps[0]], hosts[p]
		if a.CPUs != b.CPUs || diskText(a.Disk) != diskText(b.Disk) {
			return fmt.Sprintf("UNLIKE: the sampled tasks restored on unlike hosts (partition %d on %s%s, partition %d on %s%s): "+
				"their times differ by host as well as by size, and a task's figure is its host's", ps[0], a.Text(), diskText(a.Disk),
				p, b.Text(), diskText(b.Disk))
		}
	}
	return ""
}

// unlikeComposition names the sampled tasks' hosts that differ from the
// one the composition was measured on (by name or CPUs); "" when none do.
func unlikeComposition(comp *Composition, hosts map[int32]TaskHost) string {
	var unlike []string
	seen := map[string]bool{}
	for _, p := range slices.Sorted(maps.Keys(hosts)) {
		h := hosts[p]
		if (h.Hostname != comp.Host || h.CPUs != comp.CPUs) && !seen[h.Text()] {
			seen[h.Text()] = true
			unlike = append(unlike, h.Text())
		}
	}
	return strings.Join(unlike, ", ")
}

// diskText is a recorded disk as the UNLIKE line names it: ", disk
// /dev/nvme0n1p2 ext4"; "" when not recorded (an agent's record says none).
func diskText(d *runs.Disk) string {
	if d == nil || d.Device == "" {
		return ""
	}
	return ", disk " + strings.TrimSpace(d.Device+" "+d.Filesystem)
}

// partitionWord is "partition" or "partitions" for n of them.
func partitionWord(n int) string {
	if n == 1 {
		return "partition"
	}
	return "partitions"
}

// sampleText says how the tasks were priced: "2 of 16 tasks restored at
// full size (partitions 3, 9), 14 priced between them by their log
// segments' size, none outside the sizes sampled".
func sampleText(s *Sample, times []TaskTime) string {
	var measured []string
	outside := 0
	for _, t := range times {
		if t.Measured {
			measured = append(measured, fmt.Sprint(t.Partition))
		} else if t.Extrapolated {
			outside++
		}
	}
	text := fmt.Sprintf("%d of %d tasks restored at full size (partitions %s), %d priced between them by their %s' size",
		len(measured), len(times), strings.Join(measured, ", "), len(times)-len(measured), s.SizeSource)
	if outside > 0 {
		return text + fmt.Sprintf(", %d of them outside the sizes sampled (scaled in proportion)", outside)
	}
	return text + ", none outside the sizes sampled"
}

// composedBeyondText says how far a composed time lies beyond what was
// measured: the task count past the composition's, or a task past the
// sizes sampled.
func composedBeyondText(c Composed, comp *Composition) string {
	if comp != nil && len(c.Tasks) > comp.MaxTasks {
		return fmt.Sprintf("%d tasks together, where the composition measured at most %d", len(c.Tasks), comp.MaxTasks)
	}
	return "tasks outside the sizes sampled"
}

// togetherObs are the restores a composition check rests on; none
// without one.
func togetherObs(c *CompositionCheck) []Obs {
	if c == nil {
		return nil
	}
	return c.Together.Obs
}

// togetherUnusedText says why a restore of the sampled tasks together did
// not check the composition: another thread count, or no composition.
func togetherUnusedText(tg *Together, threads int, comp *Composition) string {
	why := "no composition series to check"
	if comp != nil && tg.Threads != threads {
		why = fmt.Sprintf("it ran %s, the instance has %s", Plural(tg.Threads, "thread"), Plural(threads, "thread"))
	}
	return fmt.Sprintf("partitions %s restored together (%s) did not check the composition: %s", FormatPartitions(tg.Partitions),
		Plural(len(tg.Seconds), "restore"), why)
}

// compositionObs are the restores the compositions rest on.
func compositionObs(cs ...*Composition) []Obs {
	var out []Obs
	seen := map[*Composition]bool{}
	for _, c := range cs {
		if c != nil && !seen[c] {
			seen[c] = true
			out = append(out, c.Obs...)
		}
	}
	return out
}

// sampledThreadRestore is the cold restore of one thread's tasks when
// the deployment's changelog was sampled and the host's composition for one
// thread holds for them: its tasks largest tasks composed
// (composeInstance), a line saying so, the interval's source and the
// restores it rests on; ok is false otherwise (no sample, no composition,
// or tasks larger than it measured), and the rate prices it.
func (a *Analysis) sampledThreadRestore(tasks int) (e Estimate, basis, interval string, sources []Obs, ok bool) {
	sm := a.sampled()
	if sm == nil {
		return Estimate{}, "", "", nil, false
	}
	if len(sm.times) == 0 {
		return Estimate{}, "", "", nil, false
	}
	_, host := sm.slowest()
	comp, one := CompositionFor(sm.comps, sm.engine, 1, host.Hostname, sm.recordBytes())
	if comp == nil {
		return Estimate{}, "", "", nil, false
	}
	c := checkComposed(sm.times, tasks, 1, comp, one, sm.tasks.Together[sm.engine])
	if c.Unverified != "" {
		return Estimate{}, "", "", nil, false
	}
	basis = fmt.Sprintf("the thread's %s composed from the sampled tasks' own restores (%s) as measured %s",
		Plural(len(c.Tasks), "largest task"), sampleText(a.Options.Sample, sm.times), comp.Label())
	interval = "the sampled restores' ranges and the composition's own error"
	if c.Check != nil {
		basis += "; " + c.Check.Text()
		interval += ", the together restores' range and the series' move over its sizes"
	}
	return c.Estimate, basis, interval, append(append(append([]Obs(nil), sm.tasks.Obs...), togetherObs(c.Check)...), compositionObs(comp, one)...), true
}
