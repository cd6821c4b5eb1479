package bench

import (
	"context"
	"os"
	"path/filepath"

	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/fleet"
)

// owned is the record of the topics restorebench created on the cluster
// (cluster.Owned): on the cluster itself (cluster.OwnedTopicsTopic, where
// a restorebench with another data dir or on another host finds it) and
// beside the fill manifests in <data-dir>/owned/<cluster id>; on the
// embedded broker, restorebench's own, everything (nothing recorded).
func (e *Env) owned() *cluster.Owned {
	if e.Embedded != nil {
		return cluster.OwnedEverything()
	}
	return cluster.OwnedIn(filepath.Join(e.Opts.DataDir, "owned", e.ClusterID)).OnCluster(e.Cluster, e.ownedBy(), e.Logf)
}

// ownedBy is who creates a topic, in the cluster record: this host's name
// and the data directory (absolute); no credential.
func (e *Env) ownedBy() string {
	h, _ := os.Hostname()
	dir, err := filepath.Abs(e.Opts.DataDir)
	if err != nil {
		dir = e.Opts.DataDir
	}
	return h + ":" + dir
}

// scenarioEnvOwned is the scenarios' environment with the record of what
// restorebench created, which every scenario consults before it writes,
// alters or deletes a topic or a group.
func (e *Env) scenarioEnvOwned() *fleet.Env {
	env := e.scenarioEnv()
	env.Owned = e.owned()
	return env
}

// checkApplications refuses, before anything is filled or started, Kafka
// Streams cases whose application (the target's application.id, its
// group and the kv topology's input topic) is not restorebench's
// (fleet.CheckApplication): a user's group is never joined.
func (e *Env) checkApplications(ctx context.Context, cases []config.Case, targets []fleet.Target) error {
	uses := false
	for _, c := range cases {
		uses = uses || fleet.UsesApplication(c)
	}
	if !uses {
		return nil
	}
	env := e.scenarioEnvOwned()
	for _, t := range targets {
		if err := fleet.CheckApplication(ctx, env, t); err != nil {
			return err
		}
	}
	return nil
}
