package sidecar

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Daprd is the running sidecar of this node's app.
type Daprd struct {
	*Child
	GRPCPort int
	HTTPPort int
}

// DaprdOptions says where the app listens and where placement is.
type DaprdOptions struct {
	BuildDir  string
	DataDir   string
	AppPort   int
	Placement string // host:port
	Database  string
	LogLevel  string
	Out       io.Writer
}

// StartDaprd starts the sidecar in self-hosted mode with every listener on
// loopback. DAPR_HOST_IP makes it register 127.0.0.1 with placement: by
// default it advertises the machine's first non-loopback address, which the
// other sidecars could not reach (its listeners are on loopback).
func StartDaprd(o DaprdOptions) (*Daprd, error) {
	resources, config, err := WriteResources(o.DataDir, o.Database)
	if err != nil {
		return nil, err
	}
	ports, err := FreePorts(4)
	if err != nil {
		return nil, err
	}
	httpPort, grpcPort, internalPort, publicPort := ports[0], ports[1], ports[2], ports[3]
	args := []string{
		"--mode", "standalone",
		"--app-id", AppID,
		"--app-port", strconv.Itoa(o.AppPort),
		"--app-protocol", "http",
		"--app-channel-address", "127.0.0.1",
		"--dapr-http-port", strconv.Itoa(httpPort),
		"--dapr-grpc-port", strconv.Itoa(grpcPort),
		"--dapr-internal-grpc-port", strconv.Itoa(internalPort),
		"--dapr-internal-grpc-listen-address", "127.0.0.1",
		"--dapr-public-port", strconv.Itoa(publicPort),
		"--dapr-public-listen-address", "127.0.0.1",
		"--dapr-listen-addresses", "127.0.0.1",
		"--placement-host-address", o.Placement,
		"--resources-path", resources,
		"--config", config,
		"--enable-metrics=false",
		"--enable-mtls=false",
		"--log-level", o.LogLevel,
	}
	if err := os.Setenv("DAPR_HOST_IP", "127.0.0.1"); err != nil {
		return nil, err
	}
	c, err := start("daprd", filepath.Join(o.BuildDir, "daprd"), args, o.Out)
	if err != nil {
		return nil, err
	}
	return &Daprd{Child: c, GRPCPort: grpcPort, HTTPPort: httpPort}, nil
}

// Healthy says whether the sidecar reports itself healthy (components loaded, app reachable).
func (d *Daprd) Healthy(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/v1.0/healthz", d.HTTPPort), nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_ = res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("daprd healthz answered %d", res.StatusCode)
	}
	return nil
}
