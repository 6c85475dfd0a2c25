// Package sidecar starts the Dapr runtime processes of one node: the
// placement service (node 0 only) and the daprd sidecar of the node's app,
// with the components and configuration it writes into the node's data
// directory.
package sidecar

import (
	"fmt"
	"net"
)

// FreePorts asks the kernel for n distinct free loopback ports. daprd and
// placement take port numbers as flags, not listeners, so a port is released
// before the process binds it; the kernel hands out ephemeral ports in turn,
// which makes a collision with another process's new listener unlikely, and a
// collision makes the child exit, which fails the start with its log.
func FreePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("no free loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
