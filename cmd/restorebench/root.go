package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/engine"
	"github.com/restorebench/restorebench/internal/boundedread"
	"github.com/restorebench/restorebench/internal/termsafe"
)

// globalFlags are the connection and directory flags every command shares.
type globalFlags struct {
	brokers        string
	dataDir        string
	stateDir       string
	connectTimeout time.Duration
	stallTimeout   time.Duration
	quiet          bool

	// Security: a Kafka client properties file, overridden by the flags.
	cpuProfile    string
	commandConfig string
	sec           cluster.Security
	passwordFile  string
	profileFile   *os.File
	// agents are `run --agents`: where fleet instances run (none: here).
	agents []string
	// anyAgents is `run --agents any:N`: N of the agents heard.
	anyAgents int
	// controlKeyFile is --control-key-file (or $RESTOREBENCH_CONTROL_KEY_FILE):
	// the key agents and their coordinator sign the control topic with.
	controlKeyFile string
	// insecureAgents is `run --insecure-agents` or `agent --insecure`: no
	// signing key.
	insecureAgents bool
	// watch follows a run for `run --metrics-addr` (nil: none).
	watch bench.Watcher
}

// stopProfile ends a --cpuprofile, if one runs.
func (g *globalFlags) stopProfile() {
	if g.profileFile != nil {
		pprof.StopCPUProfile()
		g.profileFile.Close()
		g.profileFile = nil
	}
}

// drawsProgress annotates the commands that draw progress bars on stderr,
// which must stay the terminal itself.
const drawsProgress = "draws-progress"

// newRootCmd returns the command tree (for tests that need no CPU profile).
func newRootCmd() *cobra.Command {
	root, _ := newRoot()
	return root
}

// newRoot returns the command tree and its global flags; the caller stops
// a --cpuprofile with g.stopProfile once the command has returned, whether
// it failed or not (cobra skips PersistentPostRun when RunE fails).
func newRoot() (*cobra.Command, *globalFlags) {
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
		SilenceUsage: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// Whatever a command prints reaches the terminal without
			// control characters (termsafe.Lines); stderr too, but where
			// progress bars draw on it (they need the terminal itself).
			root := cmd.Root()
			root.SetOut(termsafe.NewWriter(root.OutOrStdout()))
			if cmd.Annotations[drawsProgress] == "" {
				root.SetErr(termsafe.NewWriter(root.ErrOrStderr()))
			}
			if g.cpuProfile == "" {
				return nil
			}
			if err := checkProfileOut("--cpuprofile", g.cpuProfile); err != nil {
				return err
			}
			f, err := os.Create(g.cpuProfile)
			if err != nil {
				return fmt.Errorf("--cpuprofile: %w", err)
			}
			g.profileFile = f
			return pprof.StartCPUProfile(f)
		},
		SilenceErrors: true,
		Version:       bench.ToolVersion,
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.brokers, "brokers", "", "bootstrap servers host:port,... (Kafka's bootstrap.servers); empty starts the embedded broker")
	pf.StringVar(&g.dataDir, "data-dir", ".restorebench", "directory for the embedded broker's log and the fill manifests")
	pf.StringVar(&g.stateDir, "state-dir", "", "Kafka Streams' state.dir for restored stores (default <data-dir>/state)")
	pf.DurationVar(&g.connectTimeout, "connect-timeout", cluster.DefaultConnectTimeout, "how long to wait for the brokers to answer before giving up")
	pf.DurationVar(&g.stallTimeout, "stall-timeout", engine.DefaultStallTimeout, "fail a restore when no record arrives for this long")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "no progress bars")
	pf.StringVar(&g.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the whole command to this file (go tool pprof)")
	pf.StringVar(&g.commandConfig, "command-config", "", "Kafka client properties file (as Kafka's tools take): "+
		"bootstrap.servers, security.protocol, sasl.*, ssl.* with PEM, JKS or PKCS12 stores")
	pf.StringVar(&g.sec.Protocol, "security-protocol", "", "security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL")
	pf.StringVar(&g.sec.Mechanism, "sasl-mechanism", "", "sasl.mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	pf.StringVar(&g.sec.Username, "sasl-username", "", "SASL user name")
	pf.StringVar(&g.passwordFile, "sasl-password-file", "", "file holding the SASL password (else $RESTOREBENCH_SASL_PASSWORD); never logged or recorded")
	pf.StringVar(&g.sec.CAFile, "tls-ca", "", "PEM file of CA certificates to trust (ssl.truststore.location, PEM)")
	pf.StringVar(&g.sec.CertFile, "tls-cert", "", "PEM client certificate chain for mutual TLS")
	pf.StringVar(&g.sec.KeyFile, "tls-key", "", "PEM private key of --tls-cert (unencrypted)")
	pf.StringVar(&g.sec.ServerName, "tls-server-name", "", "host name to verify the brokers' certificates against")
	pf.BoolVar(&g.sec.InsecureSkipVerify, "tls-insecure-skip-verify", false, "do not verify the brokers' certificates (testing only)")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newFillCmd(g), newRestoreCmd(g), newRunCmd(g), newHeapCmd(g), newPlotCmd(), newProfilesCmd(), newCompareCmd(), newSummaryCmd(),
		newCalibrationCmd(), newReportCmdWith(g), newPlanCmdWith(g), newPredictCmd(), newAgentCmd(g), newGendocsCmd(), newAuditCmd(g))
	return root, g
}

// connect builds the benchmark environment from the global flags.
func (g *globalFlags) connect(cmd *cobra.Command) (*bench.Env, error) {
	ctx := cmd.Context()
	if g.connectTimeout <= 0 {
		return nil, fmt.Errorf("--connect-timeout: %s must be positive", g.connectTimeout)
	}
	if g.stallTimeout <= 0 {
		return nil, fmt.Errorf("--stall-timeout: %s must be positive", g.stallTimeout)
	}
	o := bench.Options{
		DataDir:        g.dataDir,
		StateDir:       g.stateDir,
		ConnectTimeout: g.connectTimeout,
		Quiet:          g.quiet,
		Log:            cmd.ErrOrStderr(),
		Agents:         g.agents,
		AnyAgents:      g.anyAgents,
		InsecureAgents: g.insecureAgents,
		Watch:          g.watch,
	}
	if len(g.agents) > 0 || g.anyAgents > 0 {
		key, err := g.controlKey()
		if err != nil {
			return nil, err
		}
		o.AgentKey = key
	}
	o.StallTimeout = g.stallTimeout
	sec, brokers, err := g.security(ctx)
	if err != nil {
		return nil, err
	}
	if g.brokers != "" {
		bs, err := cluster.ParseBrokers(g.brokers)
		if err != nil {
			return nil, fmt.Errorf("--brokers: %w", err)
		}
		brokers = bs
	}
	o.Brokers = brokers
	if sec != nil {
		if len(brokers) == 0 {
			return nil, fmt.Errorf("security settings need --brokers (or bootstrap.servers in --command-config): the embedded broker runs in plaintext")
		}
		o.Security = sec
	}
	env, err := bench.Connect(ctx, o)
	if err != nil {
		return nil, err
	}
	if env.Embedded != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "broker: embedded (kfake) at %s, log in %s\n", env.Broker.Bootstrap[0], env.Broker.DataDir)
	} else {
		how := ""
		if env.Broker.Security != "" {
			how = ", " + env.Broker.Security
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "broker: external %s (cluster %s%s)\n", strings.Join(env.Broker.Bootstrap, ","), env.ClusterID, how)
	}
	return env, nil
}

// security merges --command-config with the security flags (flags win) and
// returns nil when nothing asks for security. It also returns the file's
// bootstrap.servers.
func (g *globalFlags) security(ctx context.Context) (*cluster.Security, []string, error) {
	var sec cluster.Security
	var brokers []string
	if g.commandConfig != "" {
		props, err := cluster.ReadClientProperties(g.commandConfig)
		if err != nil {
			return nil, nil, fmt.Errorf("--command-config: %w", err)
		}
		sec, brokers = props.Security, props.Brokers
	}
	f := g.sec
	for _, o := range []struct {
		dst *string
		v   string
	}{
		{&sec.Protocol, f.Protocol}, {&sec.Mechanism, f.Mechanism}, {&sec.Username, f.Username},
		{&sec.CAFile, f.CAFile}, {&sec.CertFile, f.CertFile}, {&sec.KeyFile, f.KeyFile}, {&sec.ServerName, f.ServerName},
	} {
		if o.v != "" {
			*o.dst = o.v
		}
	}
	if f.InsecureSkipVerify {
		sec.InsecureSkipVerify = true
	}
	if g.passwordFile != "" {
		// A pipe is allowed (--sasl-password-file <(pass show kafka)),
		// read to a bound and never waited on past passwordPipeTimeout.
		b, err := boundedread.ReadFileOrPipe(ctx, g.passwordFile, boundedread.Secret, passwordPipeTimeout)
		if err != nil {
			return nil, nil, config.SecretFileError("--sasl-password-file", g.passwordFile, err)
		}
		sec.Password = strings.TrimRight(string(b), "\r\n")
	} else if pw := os.Getenv("RESTOREBENCH_SASL_PASSWORD"); pw != "" && sec.Password == "" {
		sec.Password = pw
	}
	// Read once, and gone from the environment every process restorebench
	// starts (the Kafka Streams JVMs) inherits.
	os.Unsetenv("RESTOREBENCH_SASL_PASSWORD")
	if sec == (cluster.Security{}) {
		return nil, brokers, nil
	}
	return &sec, brokers, nil
}

// passwordPipeTimeout bounds the wait for a --sasl-password-file pipe's
// writer (a variable for the tests).
var passwordPipeTimeout = 10 * time.Second

var invalidFlagValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag: (.*)$`)

// flagError reports a flag value that does not parse as every other bad
// setting is reported: "--size: size "-2GiB" is negative".
func flagError(_ *cobra.Command, err error) error {
	if m := invalidFlagValue.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s: %s", m[2], m[3])
	}
	return err
}
