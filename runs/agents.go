package runs

// AgentFacts describe the host an agent runs on, as it announces them.
type AgentFacts struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	MemoryBytes int64  `json:"memory_bytes"`
	// Kernel is the kernel release (uname -r).
	Kernel string `json:"kernel,omitempty"`
	// JavaVersion is the first line of `java -version`; empty without one.
	JavaVersion string `json:"java_version,omitempty"`
	// DriverLib says whether the Kafka Streams driver is built there.
	DriverLib bool `json:"driver_lib"`
	// ToolVersion is the agent's restorebench version.
	ToolVersion string `json:"tool_version"`
	// StateDir is the agent's --state-dir, and its filesystem's size and
	// free space when it announced itself.
	StateDir      string `json:"state_dir"`
	StateDirBytes int64  `json:"state_dir_bytes"`
	StateDirFree  int64  `json:"state_dir_free_bytes"`
	StartedWallMs int64  `json:"started_wall_ms"`
}

// Agent is one agent a run placed instances on: who it is, its host, and
// its clock against the coordinator's.
type Agent struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	Facts  AgentFacts        `json:"facts"`
	// ClockOffsetNs is the agent's CLOCK_MONOTONIC minus the
	// coordinator's, estimated over the control topic from the round trip
	// with the least delay of ClockRoundTrips; the true offset lies within
	// ClockBoundNs (half that round trip) of it. Every event of the
	// agent's instances is shifted by it onto the coordinator's clock.
	ClockOffsetNs   int64 `json:"clock_offset_ns"`
	ClockBoundNs    int64 `json:"clock_bound_ns"`
	ClockRoundTrips int   `json:"clock_round_trips"`
}

// AgentPlace is where on an agent a restore or a fill ran: the agent, its
// host and, for a restore, the state.dir its stores were restored into
// there (a restore's CPU and peak RSS figures are the agent process's).
type AgentPlace struct {
	Agent    string `json:"agent"`
	Hostname string `json:"hostname"`
	StateDir string `json:"state_dir,omitempty"`
}
