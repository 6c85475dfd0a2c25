// Package sidecar starts the Dapr runtime processes of one node: the
// placement service (node 0 only) and the daprd sidecar of the node's app,
// with the components and configuration it writes into the node's data
// directory.
package sidecar

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreePorts picks n distinct free loopback ports. daprd and placement take
// port numbers as flags, not listeners, so a port is released before the
// process binds it. The ports come from below the kernel's ephemeral range:
// a port the kernel hands out (bind to 0) may be taken in that gap as the
// source port of any outgoing connection, which on a busy machine (k6 and
// its targets opening thousands) made daprd exit with "address already in
// use". Below the range only a process that names the port can take it.
// The window is the one sfbench's own free ports come from (freePort in
// @sfbench/services): the 10,000 ports below the range.
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
