package bench

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/compare"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/profiles"
	"github.com/restorebench/restorebench/runs"
)

// confirm restores on Kafka Streams what the model just screened on this
// fill (a profile's confirm: k): the model's case with Kafka Streams'
// default settings and its k fastest others that Kafka Streams can apply,
// each as its twin on the kafka-streams engine (<case>-ks), interleaved so
// the twins alternate. The choice lands in the results
// (runs.Confirmation) before the first twin restores. A fill whose model
// restores cannot be chosen from (the defaults did not verify) confirms
// nothing and is a failure of the run, said as such.
func (r *caseRunner) confirm(ctx context.Context, cases []config.Case, k int) ([]string, error) {
	fill := runs.Step{Size: r.size, StoreKind: r.kind, Shape: r.shape}.FillLabel()
	choice, twins, err := chooseConfirm(r.out.res.Restores, cases, k, fill)
	if err != nil {
		r.env.Logf("confirm: %v; nothing confirmed on Kafka Streams", err)
		return []string{"confirm: " + err.Error()}, nil
	}
	r.out.res.Confirmations = append(r.out.res.Confirmations, choice)
	if err := r.out.save(errInProgress); err != nil {
		return nil, err
	}
	names := []string{choice.Baseline.Model}
	for _, p := range choice.Pairs {
		names = append(names, p.Model)
	}
	r.env.Logf("confirm: restoring on Kafka Streams the defaults and the %d fastest model setting(s) it can apply: %v", len(choice.Pairs), names[1:])
	for _, u := range choice.UpperBounds {
		r.env.Logf("confirm: %s is an upper bound, not confirmable: %s", u.Model, u.Why)
	}
	twinRunner := *r
	twinRunner.interleave = true
	return twinRunner.runSome(ctx, twins)
}

// chooseConfirm picks, from the verified model cold restores of fill
// among restores, the defaults and the k fastest other cases (by median
// restore time) whose settings Kafka Streams can apply, and builds their
// kafka-streams twins. Faster cases it cannot apply are named upper bounds.
func chooseConfirm(restores []runs.Restore, cases []config.Case, k int, fill string) (runs.Confirmation, []config.Case, error) {
	choice := runs.Confirmation{Fill: fill, K: k}
	type ranked struct {
		c      config.Case
		median float64
	}
	var base *ranked
	var others []ranked
	for _, c := range cases {
		if !isModelCold(c) {
			continue
		}
		var secs []float64
		for _, rec := range restores {
			if rec.Case == c.Name && rec.Step != nil && rec.Step.FillLabel() == fill && rec.IsCold() && rec.Counts() {
				if v, ok := compare.MetricRestoreSeconds.Value(rec); ok {
					secs = append(secs, v)
				}
			}
		}
		if len(secs) == 0 {
			continue
		}
		rk := ranked{c, compare.StatOf(secs).Median}
		if base == nil && capacity.IsKafkaStreamsDefault(c) {
			base = &rk
			continue
		}
		others = append(others, rk)
	}
	if base == nil {
		return choice, nil, fmt.Errorf("no verified model restore with Kafka Streams' default settings on this fill to compare the settings with")
	}
	sort.SliceStable(others, func(i, j int) bool { return others[i].median < others[j].median })
	baseTwin, err := confirmTwin(base.c)
	if err != nil {
		return choice, nil, fmt.Errorf("the defaults case %s cannot run on Kafka Streams: %w", base.c.Name, err)
	}
	choice.Baseline = runs.ConfirmPair{Model: base.c.Name, KafkaStreams: baseTwin.Name}
	twins := []config.Case{baseTwin}
	for _, o := range others {
		if len(choice.Pairs) == k {
			break
		}
		twin, err := confirmTwin(o.c)
		if err != nil {
			choice.UpperBounds = append(choice.UpperBounds, runs.UpperBound{Model: o.c.Name, Why: err.Error()})
			continue
		}
		choice.Pairs = append(choice.Pairs, runs.ConfirmPair{Model: o.c.Name, KafkaStreams: twin.Name})
		twins = append(twins, twin)
	}
	if len(choice.Pairs) == 0 {
		return choice, nil, fmt.Errorf("none of the %d model settings can run on Kafka Streams as they are", len(others))
	}
	return choice, slices.Clip(twins), nil
}

// casesWithTwins are the plan's cases and, when it confirms, the
// kafka-streams twin of its model case with Kafka Streams' defaults, so
// the checks before any fill cover the engine and the application the
// confirmation will need. A plan that confirms without such a case is
// refused: there would be nothing to measure the settings' effects
// against.
func casesWithTwins(plan *profiles.Plan) ([]config.Case, error) {
	if plan.Confirm == 0 {
		return plan.Cases, nil
	}
	for _, c := range plan.Cases {
		if isModelCold(c) && capacity.IsKafkaStreamsDefault(c) {
			twin, err := confirmTwin(c)
			if err != nil {
				return nil, fmt.Errorf("confirm: the defaults case %s cannot run on Kafka Streams: %w", c.Name, err)
			}
			return append(slices.Clip(plan.Cases), twin), nil
		}
	}
	return nil, fmt.Errorf("confirm: %d setting(s) to confirm, but no model cold-restore case has Kafka Streams' default settings "+
		"to measure their effects against; add one (a case with no settings of its own)", plan.Confirm)
}

// isModelCold says whether c is a model cold-restore case, one confirm
// screens.
func isModelCold(c config.Case) bool {
	return runs.EngineOf(c) == config.EngineModel && c.Scenario == config.ScenarioCold
}

// confirmTwin is c's twin on the kafka-streams engine (<case>-ks).
func confirmTwin(c config.Case) (config.Case, error) {
	return c.OnKafkaStreams(c.Name + profiles.ConfirmSuffix)
}
