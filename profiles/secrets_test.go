package profiles

import (
	"testing"

	"github.com/restorebench/restorebench/config"
)

// The built-in profiles hold no secret: results.json records their text
// as written, so the redaction of a profile's YAML leaves every one alone
// (a secret check that flagged them would flag ordinary profiles).
func TestBuiltinProfilesAreNotRedacted(t *testing.T) {
	for _, name := range Builtins() {
		p, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if r := config.RedactText(p.YAML); r != p.YAML {
			t.Errorf("%s: RedactText changes the profile's text:\n%s", name, r)
		}
	}
}
