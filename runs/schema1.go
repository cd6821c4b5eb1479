package runs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restorebench/restorebench/config"
)

// upgradeSchema1 brings a schema-1 file to schema 2. Schema 1 recorded a
// record's step only in its case name: "<case>[@<size>][/<step>]", the size
// a sweep's and the step a warm restart's ("cold", "changed=N",
// "fallback") or a standby's ("initial", "rate=R", "max=R", "pause=Ns");
// a failover's kills shared their case's name and told apart by their
// record's kill number. This is the one place a name is read: every record
// gets the Step a run of this build gives it.
func upgradeSchema1(r *Results) error {
	for i := range r.Restores {
		rec := &r.Restores[i]
		s, err := schema1Step(rec)
		if err != nil {
			return fmt.Errorf("restores[%d] (case %q repeat %d): schema 1: %w", i, rec.Case, rec.Repeat, err)
		}
		rec.Step = &s
	}
	r.SchemaVersion = 2
	return nil
}

// schema1Step derives a schema-1 record's step from its name (and a
// failover's kill number from its record).
func schema1Step(rec *Restore) (Step, error) {
	base, step, named := strings.Cut(rec.Case, "/")
	var s Step
	s.Case, s.Size, _ = strings.Cut(base, "@")
	s.kindFromSize()
	sc := rec.Params.Scenario
	kinds := StepKindsOf(sc)
	switch {
	case len(kinds) == 0:
		// A scenario this build does not know: Check names it.
		return s, nil
	case len(kinds) > 1 && !named:
		// A step that failed before it was measured: schema-1 builds named
		// a step's record once it had measured, so which step it was is
		// not recorded (its kind stays empty).
		return s, nil
	case len(kinds) > 1:
		return s, schema1Kind(&s, step)
	case named:
		return s, fmt.Errorf("a %s record is not named by its step, but %q is", scenarioOf(rec.Params), rec.Case)
	}
	s.Kind = kinds[0]
	if sc == config.ScenarioFailover && rec.Failover != nil {
		s.Kill = rec.Failover.Kill
	}
	return s, nil
}

// schema1Kind reads the step part of a warm-restart or standby record's
// name into s.
func schema1Kind(s *Step, step string) error {
	key, value, _ := strings.Cut(step, "=")
	var err error
	switch key {
	case string(StepCold), string(StepFallback), string(StepInitial):
		s.Kind = StepKind(key)
		if value != "" {
			err = fmt.Errorf("step %q takes no value", step)
		}
	case "changed":
		s.Kind = StepWarm
		s.Changed, err = strconv.ParseInt(value, 10, 64)
	case string(StepRate), string(StepMax):
		s.Kind = StepKind(key)
		s.Rate, err = strconv.ParseFloat(value, 64)
	case string(StepPause):
		s.Kind = StepPause
		secs, ok := strings.CutSuffix(value, "s")
		if !ok {
			return fmt.Errorf("pause %q is not in seconds", value)
		}
		s.PauseSeconds, err = strconv.ParseFloat(secs, 64)
	default:
		return fmt.Errorf("step %q is not one schema 1 names", step)
	}
	if err != nil {
		return fmt.Errorf("step %q: %w", step, err)
	}
	return nil
}
