package runs

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStepShape: a shape sweep's record is named case@<shape> and carries
// the shape in its step (JSON "shape"); a step outside a shape sweep
// writes no shape, so files and names from before are unchanged.
func TestStepShape(t *testing.T) {
	var r Restore
	r.SetStep(Step{Case: "model", Kind: StepRestore})
	r.SetShape("k8-v8-r1-1m")
	if r.Case != "model@k8-v8-r1-1m" || r.SweepSize() != "k8-v8-r1-1m" || r.CaseAtSize() != "model@k8-v8-r1-1m" || r.ProfileCase() != "model" {
		t.Fatalf("named %q, sweep %q, at size %q", r.Case, r.SweepSize(), r.CaseAtSize())
	}
	b, err := json.Marshal(r.Step)
	if err != nil {
		t.Fatal(err)
	}
	var back Step
	if err := json.Unmarshal(b, &back); err != nil || back != *r.Step || !strings.Contains(string(b), `"shape":"k8-v8-r1-1m"`) {
		t.Fatalf("%s read back as %+v (%v)", b, back, err)
	}
	r.SetFill("", "") // a size or kind sweep's placing keeps the shape
	if r.Case != "model@k8-v8-r1-1m" {
		t.Errorf("after SetFill: %q", r.Case)
	}
	plain := Step{Case: "a", Size: "256MiB", StoreKind: "window", Kind: StepRestore}
	if b, _ := json.Marshal(plain); strings.Contains(string(b), "shape") || plain.Name() != "a@256MiB@window" {
		t.Errorf("a sweep step without a shape: %s, named %q", b, plain.Name())
	}
	if err := (&Restore{Case: "model", Step: &Step{Case: "model", Shape: "v8", Kind: StepRestore}}).checkStepParams(); err != nil {
		t.Errorf("a shape step's parameters: %v", err)
	}
}
