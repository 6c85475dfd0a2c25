package sidecar

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Child is a runtime process the node started; it stays in the node's process
// group (the cost sampler counts it, a kill -9 of the group takes it along)
// and dies with the node's process (SIGKILL on parent death).
type Child struct {
	Name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func start(name, path string, args []string, out io.Writer) (*Child, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = os.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := &Child{Name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// Exited is closed when the process ended.
func (c *Child) Exited() <-chan struct{} { return c.done }

// Err is how the process ended, once Exited is closed.
func (c *Child) Err() error { return c.err }

// Stop asks the process to end (SIGTERM) and kills it after grace.
func (c *Child) Stop(grace time.Duration) {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}
