package runs

import (
	"slices"

	"github.com/restorebench/restorebench/config"
)

// redacted returns r as results.json may record it: every property map a
// restore carries (its case's streams, the Kafka Streams instances'
// properties, and each scenario record's maps through its registration's
// redact: a compaction's topic configs) through
// config.Redact, its JVM flags (the case's jvm_flags, the instances' JVM
// arguments) through config.RedactJVMFlags, and the free text (the profile's YAML, errors) through
// config.RedactText. Profiles refuse secrets; this is the defence behind
// that, for whatever path a secret took around it. r itself, whose maps
// the run may still be using, is not changed: what needs a change is copied.
func (r *Results) redacted() *Results {
	out := *r
	out.Error = config.RedactText(r.Error)
	if r.Profile != nil {
		p := *r.Profile
		p.YAML = config.RedactText(p.YAML)
		out.Profile = &p
	}
	out.Restores = make([]Restore, len(r.Restores))
	for i, x := range r.Restores {
		out.Restores[i] = x.redacted()
	}
	return &out
}

func (x Restore) redacted() Restore {
	x.Error = config.RedactText(x.Error)
	x.Params.Streams = config.Redact(x.Params.Streams)
	x.Params.JVMFlags = config.RedactJVMFlags(x.Params.JVMFlags)
	if k := x.KafkaStreams; k != nil {
		m, args := config.Redact(k.Properties), config.RedactJVMFlags(k.JVMArgs)
		if !sameMap(m, k.Properties) || !slices.Equal(args, k.JVMArgs) {
			kk := *k
			kk.Properties, kk.JVMArgs = m, args
			x.KafkaStreams = &kk
		}
	}
	for _, d := range registeredRecords() {
		if d.redact != nil {
			x = d.redact(x)
		}
	}
	return x
}

// sameMap reports whether a and b are the same map (Redact returns its
// argument when nothing needed hiding).
func sameMap(a, b map[string]string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
