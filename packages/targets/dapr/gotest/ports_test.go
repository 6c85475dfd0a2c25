package gotest

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/sidecar"
)

func TestFreePortsAreDistinctBindableAndBelowTheEphemeralRange(t *testing.T) {
	t.Setenv("SFBENCH_PORT_LEASES", t.TempDir()) // the machine's leases stay untouched
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
	t.Setenv("SFBENCH_PORT_LEASES", t.TempDir()) // the machine's leases stay untouched
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

func TestFreePortsLeasesWhatItHandsOutAndSkipsAPortLeasedElsewhere(t *testing.T) {
	t.Setenv("SFBENCH_PORT_LEASES", t.TempDir())
	// 50 ports handed out and not bound: another process of sfbench would bind them later
	promised, err := sidecar.FreePorts(50)
	if err != nil {
		t.Fatal(err)
	}
	leased := map[int]bool{}
	for _, p := range promised {
		if _, err := os.Stat(filepath.Join(sidecar.LeaseDir(), strconv.Itoa(p))); err != nil {
			t.Fatalf("port %d handed out without a lease: %v", p, err)
		}
		leased[p] = true
	}
	for i := 0; i < 200; i++ {
		ports, err := sidecar.FreePorts(4)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if leased[p] {
				t.Fatalf("FreePorts handed out %d, which another process holds the lease on", p)
			}
		}
	}
}

func TestFreePortsTakesOverAnExpiredLease(t *testing.T) {
	t.Setenv("SFBENCH_PORT_LEASES", t.TempDir())
	top := sidecar.EphemeralLow()
	floor := max(1025, top-10000)
	// every port of the window leased, all but one lease expired long ago: the expired ones are handed out again
	old := time.Now().Add(-sidecar.LeaseFor - time.Minute)
	fresh := floor
	for p := floor; p < top; p++ {
		file := filepath.Join(sidecar.LeaseDir(), strconv.Itoa(p))
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if p != fresh {
			if err := os.Chtimes(file, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	ports, err := sidecar.FreePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ports {
		if p == fresh {
			t.Fatalf("FreePorts handed out %d, whose lease has not expired", p)
		}
		info, err := os.Stat(filepath.Join(sidecar.LeaseDir(), strconv.Itoa(p)))
		if err != nil || time.Since(info.ModTime()) > time.Minute {
			t.Fatalf("port %d: its lease was not renewed (%v)", p, err)
		}
	}
}
