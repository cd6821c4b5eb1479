package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
)

// globalFlags are the connection and directory flags every command shares.
type globalFlags struct {
	brokers        string
	dataDir        string
	stateDir       string
	connectTimeout time.Duration
	quiet          bool
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "restorebench",
		Short: "Measure how long Kafka Streams state stores take to restore from their changelogs",
		Long: `restorebench fills changelog topics to a chosen size, restores them the way
Kafka Streams does (RocksDB stores, one per partition, one WriteBatch per poll),
verifies every restored store against the state the fill must produce, and
writes results.json plus plots.

With no --brokers it starts an embedded broker whose log lives on disk under
--data-dir, so fills survive between runs and are reused.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       bench.ToolVersion,
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.brokers, "brokers", "", "bootstrap servers host:port,... (Kafka's bootstrap.servers); empty starts the embedded broker")
	pf.StringVar(&g.dataDir, "data-dir", ".restorebench", "directory for the embedded broker's log and the fill manifests")
	pf.StringVar(&g.stateDir, "state-dir", "", "Kafka Streams' state.dir for restored stores (default <data-dir>/state)")
	pf.DurationVar(&g.connectTimeout, "connect-timeout", 15*time.Second, "how long to wait for the brokers to answer before giving up")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "no progress bars")
	root.AddCommand(newFillCmd(g), newRestoreCmd(g), newRunCmd(g), newPlotCmd(), newProfilesCmd())
	return root
}

// connect builds the benchmark environment from the global flags.
func (g *globalFlags) connect(ctx context.Context) (*bench.Env, error) {
	o := bench.Options{
		DataDir:        g.dataDir,
		StateDir:       g.stateDir,
		ConnectTimeout: g.connectTimeout,
		Quiet:          g.quiet,
		Log:            os.Stderr,
	}
	if g.brokers != "" {
		bs, err := cluster.ParseBrokers(g.brokers)
		if err != nil {
			return nil, fmt.Errorf("--brokers: %w", err)
		}
		o.Brokers = bs
	}
	env, err := bench.Connect(ctx, o)
	if err != nil {
		return nil, err
	}
	if env.Embedded != nil {
		fmt.Fprintf(os.Stderr, "broker: embedded (kfake) at %s, log in %s\n", env.Broker.Bootstrap[0], env.Broker.DataDir)
	} else {
		fmt.Fprintf(os.Stderr, "broker: external %s (cluster %s)\n", g.brokers, env.ClusterID)
	}
	return env, nil
}
