package profiles

import (
	"strings"
	"testing"
)

// FuzzParse: the profile parser never panics; an error always starts with
// the profile's name; an accepted profile expands to cases that validate.
func FuzzParse(f *testing.F) {
	for _, name := range Builtins() {
		b, err := builtin.ReadFile(name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("fill: {records: 10}\nmatrix:\n  strategy: [put, ingest]\n  batch_records: [1, 2]\nexclude:\n  - {strategy: put}\n")
	f.Add("fill: {keys: \"lots\", records: 10}\n")
	f.Add("fill:\n  size: 1MB\ncases:\n  - name: a\n    rocksdb: kstreams\n    write_buffer_size: 1MiB\n")
	f.Fuzz(func(t *testing.T, body string) {
		plan, err := Parse([]byte(body), "f.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "profile f.yaml: ") {
				t.Fatalf("error does not name the profile: %v", err)
			}
			return
		}
		if len(plan.Cases) == 0 || plan.Repeats <= 0 {
			t.Fatalf("accepted profile expanded to %d cases, %d repeats", len(plan.Cases), plan.Repeats)
		}
		if err := plan.Spec.Validate(); err != nil {
			t.Fatalf("accepted profile has an invalid fill: %v", err)
		}
		for _, c := range plan.Cases {
			if err := c.Validate(); err != nil {
				t.Fatalf("accepted profile has an invalid case %s: %v", c.Name, err)
			}
		}
	})
}
