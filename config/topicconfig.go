package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// topicConfigRule is what Kafka accepts for one changelog topic setting:
// an integer or a decimal number within [Min, Max] (Kafka's TopicConfig
// validators, e.g. min.cleanable.dirty.ratio between 0 and 1).
type topicConfigRule struct {
	Decimal  bool
	Min, Max float64
}

// changelogTopicConfigs are the topic settings a profile's topic_configs
// and plan's --cleaner accept, by Kafka's names, with the ranges Kafka's
// broker validates. cleanup.policy is not among them: a changelog is
// compacted, and restorebench sets it.
var changelogTopicConfigs = map[string]topicConfigRule{
	"min.cleanable.dirty.ratio": {Decimal: true, Min: 0, Max: 1},
	// segment.bytes: Kafka 4.x refuses less than 1 MiB (KAFKA-16368); 14
	// bytes, the older floor, is kept so a 3.x cluster's topic can be named.
	"segment.bytes":         {Min: 14, Max: math.MaxInt32},
	"segment.ms":            {Min: 1, Max: math.MaxInt64},
	"segment.jitter.ms":     {Min: 0, Max: math.MaxInt64},
	"segment.index.bytes":   {Min: 4, Max: math.MaxInt32},
	"min.compaction.lag.ms": {Min: 0, Max: math.MaxInt64},
	"max.compaction.lag.ms": {Min: 1, Max: math.MaxInt64},
	"delete.retention.ms":   {Min: 0, Max: math.MaxInt64},
	"retention.ms":          {Min: -1, Max: math.MaxInt64},
	"retention.bytes":       {Min: -1, Max: math.MaxInt64},
	"max.message.bytes":     {Min: 0, Max: math.MaxInt32},
	"min.insync.replicas":   {Min: 1, Max: math.MaxInt32},
	"file.delete.delay.ms":  {Min: 0, Max: math.MaxInt64},
	"flush.messages":        {Min: 1, Max: math.MaxInt64},
	"flush.ms":              {Min: 0, Max: math.MaxInt64},
}

// CheckTopicConfig reports why value is not a valid setting key of a
// changelog topic, or nil: an unknown name (a typo would otherwise be
// recorded as if it applied), cleanup.policy, a value that is not a number
// of the setting's kind, or one outside the range Kafka accepts.
func CheckTopicConfig(key, value string) error {
	if key == "cleanup.policy" {
		return fmt.Errorf("a changelog is compacted: restorebench sets cleanup.policy=compact")
	}
	rule, ok := changelogTopicConfigs[key]
	if !ok {
		return fmt.Errorf("not a changelog topic setting restorebench knows (known: %s)", strings.Join(TopicConfigNames(), ", "))
	}
	v := strings.TrimSpace(value)
	var f float64
	if rule.Decimal {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%q: want a number", value)
		}
		f = x
	} else {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q: want a whole number", value)
		}
		f = float64(n)
	}
	if f < rule.Min || f > rule.Max {
		return fmt.Errorf("%s is outside [%s, %s], the range Kafka accepts", v, formatBound(rule.Min), formatBound(rule.Max))
	}
	return nil
}

// TopicConfigNames lists the changelog topic settings CheckTopicConfig
// accepts, sorted.
func TopicConfigNames() []string {
	names := make([]string, 0, len(changelogTopicConfigs))
	for k := range changelogTopicConfigs {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func formatBound(f float64) string {
	if f >= math.MaxInt64 {
		return "2^63-1"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
