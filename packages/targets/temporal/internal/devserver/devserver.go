// Package devserver runs the Temporal server as the `temporal server
// start-dev` process of the temporal CLI: one process with every service of
// the server, its persistence a SQLite file in the target's data directory.
package devserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Namespace is the one namespace the target uses (the dev server creates it).
const Namespace = "default"

// Options say where the server keeps its data and how it logs.
type Options struct {
	// CLI is the path of the temporal binary.
	CLI string
	// DataDir holds temporal.db, kept across restarts.
	DataDir string
	// LogLevel is the server's log level.
	LogLevel string
	Out      io.Writer
}

// Server is the running dev server.
type Server struct {
	// HostPort is the frontend's gRPC address.
	HostPort string
	cmd      *exec.Cmd
	done     chan struct{}
	err      error
}

// freePorts reserves n distinct loopback ports by listening on port 0 and
// closing the listeners: the dev server binds them itself a moment later.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("reserving a loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// MaxChildren is how many child workflows one workflow may have running:
// /micro/big runs up to 10,000 entities as children of one coordinator
// (the server's default is 2000).
const MaxChildren = 10_000

// Args are the start-dev arguments for the gRPC port and the database file
// (the HTTP API and metrics ports are left to the server: it picks free ones).
// journal_mode=wal, synchronous=full: SQLite appends each commit to its
// write-ahead log and syncs it before the commit returns, so whatever the
// server has acknowledged (a workflow start, an activity completion) survives
// a kill -9 and a power loss (README: "Durability"). Eager activity
// execution is off by default in the server: on, a workflow task's
// completion answers with the activities it scheduled when this worker has
// a free slot, one trip through the matching service less per activity
// (README: "Tuning").
func Args(db string, grpc int, logLevel string) []string {
	return []string{
		"server", "start-dev",
		"--db-filename", db,
		"--headless",
		"--ip", "127.0.0.1",
		"--port", strconv.Itoa(grpc),
		"--log-level", logLevel,
		"--sqlite-pragma", "journal_mode=wal",
		"--sqlite-pragma", "synchronous=full",
		"--dynamic-config-value", "system.enableActivityEagerExecution=true",
		"--dynamic-config-value", "limit.numPendingChildExecutions.error=" + strconv.Itoa(MaxChildren),
	}
}

// Start starts the dev server in this process's group (the cost sampler
// counts it, a kill -9 of the group takes it along); it dies with this process.
func Start(o Options) (*Server, error) {
	if _, err := os.Stat(o.CLI); err != nil {
		return nil, fmt.Errorf("temporal CLI: %w (target.json's build installs it into SFBENCH_BUILD_DIR)", err)
	}
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.CLI, Args(filepath.Join(o.DataDir, "temporal.db"), ports[0], o.LogLevel)...)
	cmd.Stdout, cmd.Stderr = o.Out, o.Out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("temporal server start-dev: %w", err)
	}
	s := &Server{HostPort: fmt.Sprintf("127.0.0.1:%d", ports[0]), cmd: cmd, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// Exited is closed when the server process ended.
func (s *Server) Exited() <-chan struct{} { return s.done }

// Err is how the server ended, once Exited is closed.
func (s *Server) Err() error { return s.err }

// Stop asks the server to end (SIGTERM) and kills it after grace.
func (s *Server) Stop(grace time.Duration) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(grace):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// WaitDone waits for the server to end or ctx to be done.
func (s *Server) WaitDone(ctx context.Context) error {
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
