// Package sidecar starts the Dapr runtime processes of one node: the
// placement service (node 0 only) and the daprd sidecar of the node's app,
// with the components and configuration it writes into the node's data
// directory.
package sidecar

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FreePorts picks n distinct free loopback ports. daprd and placement take
// port numbers as flags, not listeners, so a port is released before the
// process binds it. The ports come from below the kernel's ephemeral range:
// a port the kernel hands out (bind to 0) may be taken in that gap as the
// source port of any outgoing connection, which on a busy machine (k6 and
// its targets opening thousands) made daprd exit with "address already in
// use". Below the range only a process that names the port can take it.
// The window and the leases are the ones sfbench's own free ports come from
// (freePort in @sfbench/core/ports): the 10,000 ports below the range, and a
// port handed out is leased, so that no other sfbench process on the machine
// (the portal's services, another target, the other test lane) is handed it
// before daprd has bound it.
func FreePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	top := EphemeralLow()
	floor := max(1025, top-10000)
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 1000 {
			return nil, fmt.Errorf("no free loopback port between %d and %d after %d tries", floor, top-1, tries)
		}
		p := floor + rand.IntN(top-floor)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // in use, or already one of ours
		}
		if !lease(p) {
			_ = l.Close()
			continue // promised to another sfbench process that has not bound it yet
		}
		ls = append(ls, l)
		ports = append(ports, p)
	}
	return ports, nil
}

// EphemeralLow is the first port of the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), 32768 where it cannot be read or leaves
// almost no unprivileged port below it.
func EphemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if low, err := strconv.Atoi(f[0]); err == nil && low >= 2048 {
				return low
			}
		}
	}
	return 32768
}

// LeaseFor is how long a port handed out stays promised to whoever asked for
// it (PORT_LEASE_MS in @sfbench/core/ports).
const LeaseFor = 10 * time.Minute

// LeaseDir is where every sfbench process on the machine keeps its port
// leases: SFBENCH_PORT_LEASES, else sfbench-port-leases in the temporary
// directory, as @sfbench/core/ports names it.
func LeaseDir() string {
	if dir := os.Getenv("SFBENCH_PORT_LEASES"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "sfbench-port-leases")
}

// lease takes the lease on port for this process: false when another one
// holds it. A lease file is created exclusively; an expired one is moved
// aside by rename, which only one of two processes racing for it can do.
func lease(port int) bool {
	dir := LeaseDir()
	file := filepath.Join(dir, strconv.Itoa(port))
	take := func() error {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			_ = f.Close()
		}
		return err
	}
	err := take()
	if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(dir, 0o777) == nil {
		err = take()
	}
	if err == nil {
		return true
	}
	if !errors.Is(err, fs.ErrExist) {
		return true // no lease directory to write to: the bind check alone decides
	}
	if info, err := os.Stat(file); err == nil && time.Since(info.ModTime()) <= LeaseFor {
		return false
	}
	aside := fmt.Sprintf("%s.expired-%d", file, os.Getpid())
	if os.Rename(file, aside) != nil {
		return false // another process took it first
	}
	_ = os.Remove(aside)
	return take() == nil
}
