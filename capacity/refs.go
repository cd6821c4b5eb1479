package capacity

import (
	"fmt"
	"strings"
)

// Refs cites observations compactly, grouped by run and case in first-seen
// order, repeats as ranges: "R1 kstreams-default #1-4, R2 kstreams-default #1-3".
func Refs(obs []Obs) string {
	type group struct {
		run, cas string
		repeats  []int
	}
	var groups []*group
	index := map[string]*group{}
	for _, o := range obs {
		k := o.Run.Label + "\x00" + o.Restore.Case
		g, ok := index[k]
		if !ok {
			g = &group{run: o.Run.Label, cas: o.Restore.Case}
			index[k] = g
			groups = append(groups, g)
		}
		g.repeats = append(g.repeats, o.Restore.Repeat)
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = fmt.Sprintf("%s %s #%s", g.run, g.cas, ranges(g.repeats))
	}
	return strings.Join(parts, ", ")
}

// ranges writes ascending-run integers as "1-4,6".
func ranges(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, fmt.Sprint(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// RunLabels lists the runs observations come from: "R1, R2, R3".
func RunLabels(obs []Obs) string {
	var labels []string
	seen := map[string]bool{}
	for _, o := range obs {
		if !seen[o.Run.Label] {
			seen[o.Run.Label] = true
			labels = append(labels, o.Run.Label)
		}
	}
	return strings.Join(labels, ", ")
}
