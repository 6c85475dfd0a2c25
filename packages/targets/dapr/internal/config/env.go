// Package config reads the process environment, once, at start-up: the only
// place in the target that looks at environment variables.
package config

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is what the target needs from its environment (docs/targets.md).
type Config struct {
	Port        int
	Host        string
	DatabaseURL string
	Trace       bool
	// BuildDir holds daprd and placement next to this binary (SFBENCH_BUILD_DIR).
	BuildDir string
	// DataDir is the node's own directory: the components folder and configuration the launcher writes.
	DataDir string
	// Node is this process's place in a multi-node run; Index 0 and Nodes 1 when run alone.
	Node Node
	// CallTimeout bounds one actor call; a call that runs into it answers 503.
	CallTimeout time.Duration
	// LogLevel: debug, info, warn or error (daprd's and placement's too).
	LogLevel string
}

// Node is what the local runner tells a node of a multi-node target.
type Node struct {
	Index int
	Nodes int
	// ClusterPort is the loopback port reserved for this node: node 0's placement service listens there.
	ClusterPort int
	// Peers are the nodes' cluster addresses, node 0 (the placement service) first.
	Peers []string
}

// Multi says whether the runner started this process as one node of several (SFBENCH_NODE_INDEX set).
func (n Node) Multi() bool { return len(n.Peers) > 0 }

func intVar(name string, def, min, max int, errs *[]string) int {
	raw, ok := os.LookupEnv(name)
	if !ok || raw == "" {
		return def
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v < min || v > max {
		*errs = append(*errs, fmt.Sprintf("%s: %q is not an integer in %d..%d", name, raw, min, max))
		return def
	}
	return v
}

// Load reads and checks the environment; the error names every bad variable and what is allowed.
func Load() (Config, error) {
	var errs []string
	c := Config{
		Port:        intVar("PORT", 8080, 1, 65535, &errs),
		Host:        os.Getenv("HOST"),
		DatabaseURL: os.Getenv("DATABASE_URL"),
		BuildDir:    os.Getenv("SFBENCH_BUILD_DIR"),
		DataDir:     os.Getenv("SFBENCH_DATA_DIR"),
		CallTimeout: time.Duration(intVar("DAPR_CALL_TIMEOUT_SECONDS", 10, 1, 600, &errs)) * time.Second,
		LogLevel:    os.Getenv("LOG_LEVEL"),
		Node: Node{
			Index:       intVar("SFBENCH_NODE_INDEX", 0, 0, 63, &errs),
			Nodes:       intVar("SFBENCH_NODES", 1, 1, 64, &errs),
			ClusterPort: intVar("SFBENCH_CLUSTER_PORT", 0, 0, 65535, &errs),
		},
	}
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if peers := os.Getenv("SFBENCH_CLUSTER_PEERS"); peers != "" {
		c.Node.Peers = strings.Split(peers, ",")
		if c.Node.ClusterPort == 0 {
			errs = append(errs, "SFBENCH_CLUSTER_PORT: required with SFBENCH_CLUSTER_PEERS")
		}
	}
	switch trace := os.Getenv("SFBENCH_TRACE"); trace {
	case "", "0":
	case "1":
		c.Trace = true
	default:
		errs = append(errs, fmt.Sprintf("SFBENCH_TRACE: %q must be 0 or 1", trace))
	}
	switch c.LogLevel {
	case "":
		c.LogLevel = "warn"
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Sprintf("LOG_LEVEL: %q must be one of debug, info, warn, error", c.LogLevel))
	}
	if c.DatabaseURL == "" {
		errs = append(errs, "DATABASE_URL: required (postgres://user@host:port/database; the database must exist)")
	}
	if c.BuildDir == "" {
		errs = append(errs, "SFBENCH_BUILD_DIR: required (the folder holding daprd and placement, set by sfbench)")
	}
	if c.DataDir == "" {
		errs = append(errs, "SFBENCH_DATA_DIR: required (a folder of this node's own, set by sfbench)")
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("bad environment: %s", strings.Join(errs, "; "))
	}
	return c, nil
}
