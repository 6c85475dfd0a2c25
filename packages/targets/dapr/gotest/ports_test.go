package gotest

import (
	"net"
	"strconv"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/sidecar"
)

func TestFreePortsAreDistinctBindableAndBelowTheEphemeralRange(t *testing.T) {
	top := sidecar.EphemeralLow()
	ports, err := sidecar.FreePorts(8)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < max(1025, top-10000) || p >= top {
			t.Errorf("port %d: want one of the 10,000 below %d, where the kernel hands out no source port", p, top)
		}
		if seen[p] {
			t.Errorf("port %d handed out twice", p)
		}
		seen[p] = true
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d is not free after FreePorts released it: %v", p, err)
			continue
		}
		_ = l.Close()
	}
}

func TestFreePortsSkipsAPortInUse(t *testing.T) {
	// 50 held ports of about 10,000: 800 picks meet one of them a few times, and must pass it by
	held, err := sidecar.FreePorts(50)
	if err != nil {
		t.Fatal(err)
	}
	busy := map[int]bool{}
	for _, p := range held {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		busy[p] = true
	}
	for i := 0; i < 200; i++ {
		ports, err := sidecar.FreePorts(4)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if busy[p] {
				t.Fatalf("FreePorts handed out %d, which a listener holds", p)
			}
		}
	}
}
