package runs

import (
	"encoding/json"
	"testing"

	"github.com/restorebench/restorebench/config"
)

// TestStepStoreKind: a step's store kind is a field of its own, named
// after its size ("cold@256MiB@window"), and a file from before it, whose
// store-kind sweep put the kind in the step's size, loads with the kind
// moved and the record's name unchanged; a size stays a size.
func TestStepStoreKind(t *testing.T) {
	for _, tc := range []struct {
		s    Step
		want string
	}{
		{Step{Case: "cold", Kind: StepRestore}, "cold"},
		{Step{Case: "cold", Size: "256MiB", Kind: StepRestore}, "cold@256MiB"},
		{Step{Case: "cold", StoreKind: config.StoreWindow, Kind: StepRestore}, "cold@window"},
		{Step{Case: "warm", Size: "256MiB", StoreKind: config.StoreWindow, Kind: StepCold}, "warm@256MiB@window/cold"},
	} {
		if got := tc.s.Name(); got != tc.want {
			t.Errorf("%+v named %q, want %q", tc.s, got, tc.want)
		}
	}
	var old Results
	if err := json.Unmarshal([]byte(`{"restores": [{"case": "cold@window", "step": {"case": "cold", "size": "window", "kind": "restore"}},
		{"case": "cold@1GiB", "step": {"case": "cold", "size": "1GiB", "kind": "restore"}}]}`), &old); err != nil {
		t.Fatal(err)
	}
	if s := *old.Restores[0].Step; s.Size != "" || s.StoreKind != config.StoreWindow || s.Name() != "cold@window" || old.Restores[0].SweepSize() != "window" {
		t.Errorf("an old kind sweep's step upgraded to %+v (%q)", s, s.Name())
	}
	if s := *old.Restores[1].Step; s.Size != "1GiB" || s.StoreKind != "" {
		t.Errorf("a size sweep's step upgraded to %+v", s)
	}
	r := Restore{Step: &Step{Case: "cold", Kind: StepRestore}}
	r.SetFill("1GiB", config.StoreSession)
	r.SetSize("2GiB")
	if r.Case != "cold@2GiB@session" || r.CaseAtSize() != "cold@2GiB@session" {
		t.Errorf("SetFill then SetSize: %q, %q", r.Case, r.CaseAtSize())
	}
}
