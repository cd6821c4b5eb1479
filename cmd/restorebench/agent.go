package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/restorebench/restorebench/agent"
	"github.com/restorebench/restorebench/bench"
	"github.com/restorebench/restorebench/cluster"
	"github.com/restorebench/restorebench/config"
	"github.com/restorebench/restorebench/internal/termsafe"
	"github.com/restorebench/restorebench/metrics"
	"github.com/restorebench/restorebench/queryload"
	"github.com/restorebench/restorebench/scenario"
)

// newAgentCmd is `restorebench agent`: a long-running process on a host
// that runs Kafka Streams instances for coordinators (`run --agents`),
// talking to them only through Kafka topics.
func newAgentCmd(g *globalFlags) *cobra.Command {
	var name, labels, metricsAddr string
	cmd := &cobra.Command{
		Use:   "agent --brokers HOST:PORT --name NAME --state-dir DIR",
		Short: "Run Kafka Streams instances on this host for a coordinator, through Kafka topics",
		Long: `agent runs on each host that is to run Kafka Streams instances for
` + "`restorebench run --agents NAME,...`" + `. It announces itself and this host's facts
(cores, memory, free space of --state-dir, kernel, JDK, restorebench version)
on the topic ` + agent.ControlTopic + `, heartbeats every second, and executes the
commands addressed to --name: start a Kafka Streams driver process (its
state.dir under --state-dir), stop it, kill it, wipe its state, report its
process id, run a model-engine cold restore into its own state.dir and
reply with its record and its stores' digest, write a fill's records,
remove what a run left.
Every process's events go onto
` + agent.EventsTopic + `. Both topics are created when missing. Nothing else
connects to the host: it needs only outbound access to Kafka.

Only the coordinator commands an agent: every record on both topics is
signed with a key the agent and its coordinators share (--control-key-file,
a file or a mounted Kubernetes Secret; make one with ` + "`restorebench agent keygen FILE`" + `),
and the agent refuses, counts and logs what does not verify, what is older
than 2 minutes and what repeats a record it took. It then checks every
field of every command itself (names, paths, JVM flags, topics) as strictly
as a profile is checked. Without a key it refuses to start, unless told
--insecure.

The processes reach the cluster with this agent's own --brokers and security
settings (--command-config or the flags): no secret ever goes through the
topics. When a coordinator stops renewing its run's lease (it died), the
agent stops that run's processes. Ctrl-C or SIGTERM stops its processes
and the agent.`,
		Example: `  restorebench agent keygen /etc/restorebench/control.key
  restorebench agent --brokers kafka-0:9092 --name host-a --state-dir /var/lib/restorebench --labels zone=a --control-key-file /etc/restorebench/control.key
  restorebench agent --command-config client.properties --name pod-0 --state-dir /data --control-key-file /secrets/control.key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := g.agentConfig(cmd, name, labels)
			if err != nil {
				return err
			}
			self := &selfStatus{name: name}
			stopMetrics, err := serveMetrics(cmd, metricsAddr, metrics.NewAgent(self))
			if err != nil {
				return err
			}
			defer stopMetrics()
			a, err := agent.New(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			self.set(a)
			note := "stopping the agent's instances, then the agent"
			interruptNote.Store(&note)
			return a.Serve(cmd.Context())
		},
	}
	addMetricsFlag(cmd, &metricsAddr, "this agent (its processes, commands, the runs it follows)")
	cmd.Flags().StringVar(&name, "name", "", "the agent's name, unique among the cluster's agents: coordinators address it by this (required)")
	cmd.Flags().StringVar(&labels, "labels", "", "key=value,... facts recorded with the agent (zone=a,rack=r1)")
	addControlKeyFlag(cmd, g)
	cmd.Flags().BoolVar(&g.insecureAgents, "insecure", false,
		"run without a signing key: then ANYONE who can write to "+agent.ControlTopic+" starts processes on "+
			"this host with this agent's credentials; only for a cluster whose ACLs let nobody else write "+
			"there")
	cmd.AddCommand(newAgentKeygenCmd())
	return cmd
}

// addControlKeyFlag adds --control-key-file to cmd.
func addControlKeyFlag(cmd *cobra.Command, g *globalFlags) {
	cmd.Flags().StringVar(&g.controlKeyFile, "control-key-file", "", "file holding the key that signs every record "+
		"between the coordinator and its agents (the same file on every host, or a mounted Kubernetes "+
		"Secret; `restorebench agent keygen FILE` makes one); default $"+controlKeyEnv)
}

// controlKeyEnv names the key file when --control-key-file is not given.
const controlKeyEnv = "RESTOREBENCH_CONTROL_KEY_FILE"

// controlKey is the signing key --control-key-file (or $RESTOREBENCH_CONTROL_KEY_FILE)
// names; nil when neither does.
func (g *globalFlags) controlKey() (*agent.Key, error) {
	path, from := g.controlKeyFile, "--control-key-file"
	if path == "" {
		path, from = os.Getenv(controlKeyEnv), "$"+controlKeyEnv
	}
	if path == "" {
		return nil, nil
	}
	k, err := agent.LoadKey(path)
	if err != nil {
		return nil, config.SecretFileError(from, path, err)
	}
	return k, nil
}

// newAgentKeygenCmd is `restorebench agent keygen FILE`.
func newAgentKeygenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "keygen FILE",
		Short: "Write a new random key for signing the agents' control topic (never overwrites a file)",
		Long: `keygen writes 32 random bytes, base64, to FILE (mode 0600), for
--control-key-file on the coordinator and every agent. Copy it to the
agents' hosts, or store it as a Kubernetes Secret:
  kubectl create secret generic restorebench-control-key --from-file=control.key=FILE`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := agent.WriteKeyFile(args[0]); err != nil {
				return err
			}
			k, err := agent.LoadKey(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote a new signing key to %s (key id %s)\n", args[0], k.ID())
			return nil
		},
	}
}

// agentConfig is the agent's configuration from the flags: the global
// --brokers (or bootstrap.servers in --command-config), security and
// --state-dir (required here: the default under --data-dir is the
// embedded broker's).
func (g *globalFlags) agentConfig(cmd *cobra.Command, name, labels string) (agent.Config, error) {
	if name == "" {
		return agent.Config{}, errors.New("--name is required: coordinators address an agent by its name")
	}
	if g.stateDir == "" {
		return agent.Config{}, errors.New("--state-dir is required: the directory the agent's Kafka Streams instances keep their state in")
	}
	if err := agent.CheckAgentName(name); err != nil {
		return agent.Config{}, fmt.Errorf("--name: %w", err)
	}
	lb, err := parseLabels(labels)
	if err != nil {
		return agent.Config{}, err
	}
	cc, err := g.clusterConfig(cmd)
	if err != nil {
		return agent.Config{}, err
	}
	key, err := g.controlKey()
	if err != nil {
		return agent.Config{}, err
	}
	if key != nil && g.insecureAgents {
		return agent.Config{}, errors.New("--insecure and --control-key-file: choose one (with a key, the agent verifies every command)")
	}
	log := cmd.ErrOrStderr()
	return agent.Config{Cluster: cc, Name: name, StateDir: g.stateDir, Labels: lb, ToolVersion: bench.ToolVersion,
		ModelRestore: scenario.RestoreOnAgent, Fill: bench.FillOnAgent, Queries: queryload.QueriesAt,
		Key: key, Insecure: g.insecureAgents,
		Logf: logLine(log)}, nil
}

// logLine is the agent's log: each message one line, with any control
// character in it (from a name, a label, a command's field or an error)
// escaped, so nothing untrusted can forge a line or reach the terminal.
func logLine(w io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		fmt.Fprintln(w, termsafe.String(fmt.Sprintf(format, args...)))
	}
}

// clusterConfig is how to reach the real cluster the flags name, with its
// security; an agent has no embedded broker.
func (g *globalFlags) clusterConfig(cmd *cobra.Command) (cluster.Config, error) {
	sec, brokers, err := g.security(cmd.Context())
	if err != nil {
		return cluster.Config{}, err
	}
	if g.brokers != "" {
		if brokers, err = cluster.ParseBrokers(g.brokers); err != nil {
			return cluster.Config{}, fmt.Errorf("--brokers: %w", err)
		}
	}
	if len(brokers) == 0 {
		return cluster.Config{}, errors.New("--brokers (or bootstrap.servers in --command-config) is required: an agent talks to its coordinator through the cluster")
	}
	if g.connectTimeout <= 0 {
		return cluster.Config{}, fmt.Errorf("--connect-timeout: %s must be positive", g.connectTimeout)
	}
	cc := cluster.Config{Brokers: brokers, ConnectTimeout: g.connectTimeout}
	if sec != nil {
		opts, err := sec.Opts()
		if err != nil {
			return cluster.Config{}, err
		}
		cc.Security, cc.Login, cc.Settings = opts, sec.Login(), sec
	}
	return cc, nil
}

// parseLabels reads key=value,... ("" is none).
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if k = strings.TrimSpace(k); !ok || k == "" {
			return nil, fmt.Errorf("--labels: %q is not key=value", kv)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("--labels: %s given twice", k)
		}
		out[k] = strings.TrimSpace(v)
	}
	if err := agent.CheckLabels(out); err != nil {
		return nil, fmt.Errorf("--labels: %w", err)
	}
	return out, nil
}

// selfStatus is the agent's state for its metrics, once the agent is
// made (before then: its name only, nothing running).
type selfStatus struct {
	name string
	mu   sync.Mutex
	a    *agent.Agent
}

func (s *selfStatus) set(a *agent.Agent) {
	s.mu.Lock()
	s.a = a
	s.mu.Unlock()
}

// Status implements metrics.SelfSource.
func (s *selfStatus) Status() agent.SelfStatus {
	s.mu.Lock()
	a := s.a
	s.mu.Unlock()
	if a == nil {
		return agent.SelfStatus{Name: s.name}
	}
	return a.Status()
}
