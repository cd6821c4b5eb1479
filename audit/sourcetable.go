package audit

import (
	"fmt"
	"slices"
	"strings"
)

// unknownRestoreNote says why a loss has no figure: tasks with state
// whose changelog was not seen; it takes the tasks.
const unknownRestoreNote = "task(s) %s hold state whose changelog was not seen (no APP-*-changelog of theirs; a store logged to its " +
	"source topic, as topology.optimization=all or reuse.ktable.source.topics makes every builder.table(), restores from that " +
	"topic): what they restore is unknown, so no time"

// sourceTables finds the stateful subtopologies (a task reported offsets,
// or has a standby) that no changelog was mapped to. One whose active
// tasks read a single source topic of as many partitions as it has tasks
// is taken as a source table restoring from that topic: the topic is
// added to r.Changelogs, said ASSUMED. The others are left in
// r.unseenState, their state unknown rather than zero. It returns the
// assumptions made.
func sourceTables(r *Report, ins []*Instance, o Options) []string {
	var out []string
	if optimizesSourceTables(o.TopologyOptimization) {
		out = append(out, fmt.Sprintf("topology.optimization=%s (--streams-config): a builder.table() store has no changelog "+
			"and restores from its source topic", o.TopologyOptimization))
	}
	mapped := map[int32]bool{}
	for _, c := range r.Changelogs {
		if c.Subtopology != nil {
			mapped[*c.Subtopology] = true
		}
	}
	r.unseenState = map[int32]bool{}
	for _, s := range statefulSubtopologies(ins) {
		if mapped[s] {
			continue
		}
		if c, ok := sourceTableOf(r, ins, s); ok {
			r.Changelogs = append(r.Changelogs, c)
			out = append(out, c.Topic+": "+c.MappingNote)
			continue
		}
		r.unseenState[s] = true
		out = append(out, fmt.Sprintf("subtopology %d holds state (its tasks reported offsets or have standbys) but no changelog "+
			"of it was seen, nor a single source topic it reads: its state and restores are unknown (a source table restores "+
			"from its source topic)", s))
	}
	return out
}

// optimizesSourceTables says topology.optimization v logs source tables
// to their source topics (all, or a list naming reuse.ktable.source.topics).
func optimizesSourceTables(v string) bool {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p == "all" || p == "reuse.ktable.source.topics" {
			return true
		}
	}
	return false
}

// statefulSubtopologies are the subtopologies some task of which an
// instance reported offsets for or holds as a standby, sorted.
func statefulSubtopologies(ins []*Instance) []int32 {
	var out []int32
	add := func(t TaskID) {
		if !slices.Contains(out, t.Subtopology) {
			out = append(out, t.Subtopology)
		}
	}
	for _, in := range ins {
		for t := range in.sub.OffsetSums {
			add(t)
		}
		for _, t := range in.standby {
			add(t)
		}
	}
	slices.Sort(out)
	return out
}

// sourceTableOf is subtopology s's source topic as the changelog its
// store restores from, when its active tasks read exactly one topic of
// r.SourceTopics and that topic has as many partitions as s has tasks.
func sourceTableOf(r *Report, ins []*Instance, s int32) (Changelog, bool) {
	var topics []string
	tasks := int32(0)
	for _, in := range ins {
		for t, ts := range in.sources {
			if t.Subtopology != s {
				continue
			}
			tasks = max(tasks, t.Partition+1)
			for _, topic := range ts {
				if !slices.Contains(topics, topic) {
					topics = append(topics, topic)
				}
			}
		}
	}
	if len(topics) != 1 {
		return Changelog{}, false
	}
	i := slices.IndexFunc(r.SourceTopics, func(c Changelog) bool { return c.Topic == topics[0] })
	if i < 0 || r.SourceTopics[i].Partitions != int(tasks) {
		return Changelog{}, false
	}
	c := r.SourceTopics[i]
	c.Subtopology = &s
	c.MappingNote = fmt.Sprintf("ASSUMED source table of subtopology %d: it holds state but has no changelog, so its store is "+
		"logged to the topic it reads (topology.optimization=all or reuse.ktable.source.topics) and restores from it", s)
	return c, true
}
