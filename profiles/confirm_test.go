package profiles

import (
	"strings"
	"testing"
)

// confirm is refused where no run could carry it out, naming why.
func TestConfirmRefusals(t *testing.T) {
	const head = "name: c\nfill: {records: 1000, keys: 100}\n"
	cases := []struct{ name, yaml, want string }{
		{"more settings than the profile has", head + "cases: [{name: d}, {name: l, compaction_style: level}]\nconfirm: 2\n",
			"1 model cold-restore settings beside the defaults"},
		{"nothing to screen", head + "confirm: 1\n", "needs the defaults and at least one setting"},
		{"negative", head + "cases: [{name: d}, {name: l, compaction_style: level}]\nconfirm: -1\n", "is not between 0"},
		{"a twin's name taken", head + "cases: [{name: d}, {name: d-ks, compaction_style: level}]\nconfirm: 1\n",
			"would be confirmed on Kafka Streams as d-ks, which is another case's name"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.yaml), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "confirm") {
			t.Errorf("%s: %v, want an error on confirm saying %q", c.name, err, c.want)
		}
	}
	p, err := Load("confirm")
	if err != nil {
		t.Fatal(err)
	}
	if p.Confirm != 6 {
		t.Errorf("built-in confirm confirms %d settings, want 6", p.Confirm)
	}
}
