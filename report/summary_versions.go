package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/runs"
)

// printVersions says, when the records ran several Kafka Streams versions,
// which profile cases ran which (the tables below name cases, and a case
// name need not carry its version); `compare` sets them side by side.
func printVersions(w io.Writer, restores []runs.Restore) {
	versions := runs.KafkaStreamsVersions(restores)
	if len(versions) < 2 {
		return
	}
	cases := map[string][]string{}
	for _, r := range restores {
		v := runs.KafkaStreamsVersionOf(r)
		if v != "" && !slices.Contains(cases[v], r.ProfileCase()) {
			cases[v] = append(cases[v], r.ProfileCase())
		}
	}
	fmt.Fprintln(w, "\nKafka Streams versions (restorebench compare RUN sets each beside the same cases on 4.4.0):")
	for _, v := range versions {
		fmt.Fprintf(w, "  %s: %s\n", v, strings.Join(cases[v], ", "))
	}
}
