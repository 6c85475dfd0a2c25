package sidecar

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
)

// Placement starts the placement service on port: the actor-to-host table
// every sidecar of the target reads. One instance (no Raft peers) with its
// Raft log in memory: the table is rebuilt from the sidecars' heartbeats
// whenever placement starts, so nothing of it needs to survive a restart.
// TLS stays off: every connection is on loopback (README: "Security").
func Placement(buildDir string, port int, logLevel string, out io.Writer) (*Child, error) {
	ports, err := FreePorts(2)
	if err != nil {
		return nil, err
	}
	raft, healthz := ports[0], ports[1]
	args := []string{
		"--mode", "standalone",
		"--id", "placement-0",
		"--initial-cluster", fmt.Sprintf("placement-0=127.0.0.1:%d", raft),
		"--inmem-store-enabled",
		"--port", strconv.Itoa(port),
		"--listen-address", "127.0.0.1",
		"--healthz-port", strconv.Itoa(healthz),
		"--healthz-listen-address", "127.0.0.1",
		"--enable-metrics=false",
		"--tls-enabled=false",
		"--log-level", logLevel,
	}
	return start("placement", filepath.Join(buildDir, "placement"), args, out)
}
