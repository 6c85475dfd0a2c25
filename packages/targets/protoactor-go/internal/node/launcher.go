package node

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Children are the member processes the launcher started.
type Children struct {
	mu    sync.Mutex
	procs []*exec.Cmd
	done  []chan struct{}
}

// Listeners opens n membership listeners on free loopback ports (port 0).
func Listeners(n int) ([]net.Listener, error) {
	ls := make([]net.Listener, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, o := range ls {
				o.Close()
			}
			return nil, fmt.Errorf("membership listener: %w", err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// Hosts are the listeners' addresses.
func Hosts(ls []net.Listener) []string {
	hosts := make([]string, len(ls))
	for i, l := range ls {
		hosts[i] = l.Addr().String()
	}
	return hosts
}

// SpawnMembers starts `self member` once per listener (the member inherits the
// listener as fd 3, so no port is chosen twice). The children stay in the
// launcher's process group (the runner's cost sampler and teardown see them)
// and are killed by the kernel if the launcher dies.
func SpawnMembers(ls []net.Listener, hosts []string, firstIndex int, log *slog.Logger) (*Children, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ch := &Children{}
	for i, l := range ls {
		f, err := l.(*net.TCPListener).File()
		if err != nil {
			return nil, err
		}
		index := firstIndex + i
		cmd := exec.Command(self, "member")
		cmd.Env = append(os.Environ(), "PROTOACTOR_HOSTS="+strings.Join(hosts, ","), "PROTOACTOR_MEMBER_INDEX="+strconv.Itoa(index))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.ExtraFiles = []*os.File{f}
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			f.Close()
			return nil, fmt.Errorf("starting member %d: %w", index, err)
		}
		f.Close()
		l.Close()
		done := make(chan struct{})
		go func() {
			err := cmd.Wait()
			log.Warn("member process ended", "member", index, "pid", cmd.Process.Pid, "status", fmt.Sprint(err))
			close(done)
		}()
		ch.procs = append(ch.procs, cmd)
		ch.done = append(ch.done, done)
	}
	return ch, nil
}

// Stop sends SIGTERM to every member still running and waits for them (SIGKILL after the grace period).
func (c *Children) Stop(grace time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		_ = p.Process.Signal(syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for i, d := range c.done {
		select {
		case <-d:
		case <-time.After(time.Until(deadline)):
			_ = c.procs[i].Process.Kill()
			<-d
		}
	}
}

// InheritedListener is the membership listener a member got from the launcher (fd 3).
func InheritedListener() (net.Listener, error) {
	f := os.NewFile(3, "membership-listener")
	if f == nil {
		return nil, fmt.Errorf("member: no listener on fd 3 (members are started by the launcher)")
	}
	l, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("member: fd 3: %w", err)
	}
	f.Close()
	return l, nil
}
