package compare

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/runs"
)

// BaselineVersion is the Kafka Streams version a run's records are
// compared with when they ran several and none is asked for: the default
// version when the run has it, else the last the records name.
func BaselineVersion(restores []runs.Restore) string {
	vs := runs.KafkaStreamsVersions(restores)
	if len(vs) == 0 || slices.Contains(vs, config.DriverKafkaStreamsVersion) {
		return config.DriverKafkaStreamsVersion
	}
	return vs[len(vs)-1]
}

// versionKey is what a record measured but for its Kafka Streams version:
// its settings without kafka_streams_version and its step without the
// case's name (which a kafka_streams_versions sweep suffixes with the
// version). Records of two versions with one key measured the same thing.
func versionKey(r runs.Restore) string {
	p := r.Params
	p.KafkaStreamsVersion = ""
	var step runs.Step
	if r.Step != nil {
		step = *r.Step
		step.Case = ""
	}
	b, _ := json.Marshal(struct {
		Params config.Case
		Step   runs.Step
	}{p, step})
	return string(b)
}

// CompareVersions compares, within one run, each kafka-streams case that
// ran another Kafka Streams version with its counterpart on version base:
// the case of the same settings and step but for the version. One row per
// such case, in first-seen order, named "<case> vs <base case>"; a case
// without a counterpart on base is a row with an absent base side. A base
// the records never ran is an error naming the versions they did.
func CompareVersions(restores []runs.Restore, base string) ([]CaseRow, error) {
	versions := runs.KafkaStreamsVersions(restores)
	if !slices.Contains(versions, base) {
		return nil, fmt.Errorf("baseline version %s not among the records' Kafka Streams versions: %s", base, orNone(versions))
	}
	groups := runs.GroupByCase(restores)
	baseOf := map[string]runs.CaseRestores{}
	for _, g := range groups {
		if runs.KafkaStreamsVersionOf(g.Restores[0]) == base {
			baseOf[versionKey(g.Restores[0])] = g
		}
	}
	var rows []CaseRow
	for _, g := range groups {
		v := runs.KafkaStreamsVersionOf(g.Restores[0])
		if v == "" || v == base {
			continue
		}
		b, ok := baseOf[versionKey(g.Restores[0])]
		if !ok {
			rows = append(rows, rowOf(g.Case, "(no "+base+" counterpart)", nil, g.Restores))
			continue
		}
		row := rowOf(g.Case, b.Case, b.Restores, g.Restores)
		row.ParamDiffs = paramDiffs(row.Base.Params, row.Other.Params)
		rows = append(rows, row)
	}
	return rows, nil
}

// CompareRunVersions compares the kafka-streams cases of one run on each
// Kafka Streams version with the same cases on version base.
func CompareRunVersions(r *runs.Results, label, base string) (*Comparison, error) {
	rows, err := CompareVersions(r.Restores, base)
	if err != nil {
		return nil, err
	}
	others := runs.KafkaStreamsVersions(r.Restores)
	others = slices.DeleteFunc(others, func(v string) bool { return v == base })
	c := &Comparison{
		BaseLabel:  fmt.Sprintf("Kafka Streams %s in %s", base, label),
		OtherLabel: fmt.Sprintf("Kafka Streams %s, the same cases", orNone(others)),
		WithinRun:  true,
		Rows:       rows,
	}
	c.Notes = append(c.Notes, runNotes("run", r)...)
	return c, nil
}

// versionChange is " (Kafka Streams B -> O)" when the two sides of a row
// ran different versions, for the row's label; "" otherwise.
func versionChange(b, o []runs.Restore) string {
	if len(b) == 0 || len(o) == 0 {
		return ""
	}
	bv, ov := runs.KafkaStreamsVersionOf(b[0]), runs.KafkaStreamsVersionOf(o[0])
	if bv == ov || bv == "" || ov == "" {
		return ""
	}
	return fmt.Sprintf(" (Kafka Streams %s -> %s)", bv, ov)
}

func orNone(vs []string) string {
	if len(vs) == 0 {
		return "(none)"
	}
	return strings.Join(vs, ", ")
}
