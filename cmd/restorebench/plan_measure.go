package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/capacity"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/profiles"
)

// checkMeasure refuses --measure without --from-topic, and a store kind
// for it that a restore of a user's topic cannot build.
func (f *capacityFlags) checkMeasure() error {
	changed := f.changed
	switch {
	case f.measure && f.fromTopic == "":
		return errors.New("--measure: it restores the topic --from-topic names; give --from-topic")
	case !f.measure && changed("measure-store-kind"):
		return errors.New("--measure-store-kind: it is the kind --measure restores into; give --measure")
	case !f.measure && changed("measure-repeats"):
		return errors.New("--measure-repeats: it is how many restores --measure runs; give --measure")
	case !f.measure && changed("measure-engines"):
		return errors.New("--measure-engines: they are the engines --measure restores on; give --measure")
	case f.measureRepeats < 1 || f.measureRepeats > profiles.MaxRepeats:
		return fmt.Errorf("--measure-repeats: %d must be between 1 and %d", f.measureRepeats, profiles.MaxRepeats)
	}
	if err := checkMeasureEngines(f.measureEngines); err != nil {
		return err
	}
	if config.RestoresForeign(f.measureKind) {
		return nil
	}
	return fmt.Errorf("--measure-store-kind %q: a restore of your own topic builds a %s store", f.measureKind, config.ForeignKinds())
}

// checkMeasureEngines refuses an empty --measure-engines and one naming an
// engine twice (it would restore twice and count both as one engine's
// repeats), before any broker is contacted.
func checkMeasureEngines(engines []string) error {
	if len(engines) == 0 {
		return errors.New("--measure-engines: empty; give kafka-streams, model or both")
	}
	seen := map[string]bool{}
	for _, e := range engines {
		if config.Engine(e) != config.EngineKafkaStreams && config.Engine(e) != config.EngineModel {
			return fmt.Errorf("--measure-engines: %q is not an engine (kafka-streams, model)", e)
		}
		if seen[e] {
			return fmt.Errorf("--measure-engines: %q is given twice (each engine restores --measure-repeats times once)", e)
		}
		seen[e] = true
	}
	return nil
}

// withMeasured is the plan's inputs when --measure is given: the runs
// measureTopic saves, then inputs (rs, loaded from them), loaded together
// so each run has its own label and counts once; and opts planning with
// the measured restores unless --case names another: the answers rest on
// the topic's own restores, whatever they differ from Kafka Streams'
// defaults in (a timestamped or window store is the application's kind,
// not a setting to choose another rate by). Without --measure, rs.
func (f *capacityFlags) withMeasured(cmd *cobra.Command, inputs []string, rs []*capacity.Run, opts *capacity.Options) ([]*capacity.Run, error) {
	measured, err := f.measureTopic(cmd)
	if err != nil || len(measured) == 0 {
		return rs, err
	}
	if opts.Case == "" {
		opts.Case = bench.RestoreCaseName
	}
	all, err := capacity.LoadRuns(append(measured, inputs...))
	if err != nil {
		return nil, fmt.Errorf("--measure: %w", err)
	}
	return all, nil
}

// measureTopic restores --from-topic cold on each engine when --measure is
// given, as `restorebench restore --topic` does (restorebench's own
// application id, group and state dir; the user's topic is only read),
// saves each as a run under results/ and returns their results files.
func (f *capacityFlags) measureTopic(cmd *cobra.Command) ([]string, error) {
	if !f.measure {
		return nil, nil
	}
	// Each sampled partition restores alone, as one task of the
	// deployment does; nil restores the whole topic once a engine.
	var restores [][]int32
	if f.sampled != nil {
		for _, p := range f.sampled.chosen {
			restores = append(restores, []int32{p})
		}
	} else {
		restores = [][]int32{nil}
	}
	var out []string
	for _, name := range f.measureEngines {
		engine := config.Engine(name)
		c := config.DefaultCase()
		c.Engine, c.StoreKind = engine, f.measureKind.Of()
		if err := c.Finalize(); err != nil {
			return nil, fmt.Errorf("--measure: %w", err)
		}
		for _, parts := range restores {
			what := f.fromTopic
			if parts != nil {
				what = fmt.Sprintf("partition %s of %s at its full size", partitionText(parts), f.fromTopic)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "--measure: restoring %s cold on the %s engine, %s (restorebench's own application %q; your topic is only read)\n",
				what, engine, capacity.Plural(f.measureRepeats, "time"), config.DefaultAppID)
			runID, dir, env, done, err := f.g.claimAndConnect(cmd, "measure", "")
			if err != nil {
				return nil, fmt.Errorf("--measure: %w", err)
			}
			_, err = env.RestoreTopic(cmd.Context(), bench.RestoreTopicOptions{Topic: f.fromTopic, AppID: config.DefaultAppID,
				StoreName: config.DefaultStore, Case: c, Repeats: f.measureRepeats, OutDir: dir, RunID: runID, Ready: true, Partitions: parts})
			done()
			if err != nil {
				return nil, fmt.Errorf("--measure: the %s engine's restore of %s: %w", engine, what, err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "--measure: saved %s\n", dir)
			out = append(out, filepath.Join(dir, "results.json"))
		}
	}
	return out, nil
}
