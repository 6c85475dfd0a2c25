// Command dapr-target runs one node of the SPEC 2 application on Dapr
// virtual actors: the HTTP gateway on PORT, the app hosting every actor type
// (Dapr Go SDK) on a free loopback port, its daprd sidecar, and, on node 0
// (or when run alone), the placement service every sidecar registers with.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	dapr "github.com/dapr/go-sdk/client"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/actors"
	"github.com/sfbench/sfbench/packages/targets/dapr/internal/config"
	"github.com/sfbench/sfbench/packages/targets/dapr/internal/gateway"
	"github.com/sfbench/sfbench/packages/targets/dapr/internal/sidecar"
)

func main() {
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dapr-target:", err)
		os.Exit(2)
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("node", cfg.Node.Index)
	if err := run(cfg, log); err != nil {
		fmt.Fprintln(os.Stderr, "dapr-target:", err)
		os.Exit(1)
	}
}

func run(cfg config.Config, log *slog.Logger) error {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	web := gateway.New()
	httpListener, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: web, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(httpListener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server stopped", "error", err)
		}
	}()
	defer func() {
		shutdownCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = srv.Shutdown(shutdownCtx)
	}()

	// the children write to stderr: stdout carries span lines only
	var children []*sidecar.Child
	defer func() {
		for i := len(children) - 1; i >= 0; i-- {
			children[i].Stop(5 * time.Second)
		}
	}()
	placementAddr, err := startPlacement(cfg, &children)
	if err != nil {
		return err
	}
	appPorts, err := sidecar.FreePorts(1)
	if err != nil {
		return err
	}
	rt := &actors.Runtime{Timeout: cfg.CallTimeout, Log: log}
	if cfg.Trace {
		rt.Spans = actors.NewSpanWriter(os.Stdout)
	}
	web.SetWaiting("starting daprd")
	daprd, err := sidecar.StartDaprd(sidecar.DaprdOptions{
		BuildDir: cfg.BuildDir, DataDir: cfg.DataDir, AppPort: appPorts[0], Placement: placementAddr,
		Database: cfg.DatabaseURL, LogLevel: cfg.LogLevel, Out: os.Stderr,
	})
	if err != nil {
		return err
	}
	children = append(children, daprd.Child)
	// the Go SDK's actor runtime opens its own client from this variable
	if err := os.Setenv("DAPR_GRPC_PORT", strconv.Itoa(daprd.GRPCPort)); err != nil {
		return err
	}
	stopApp, appErrs := rt.Serve(net.JoinHostPort("127.0.0.1", strconv.Itoa(appPorts[0])))
	defer func() { _ = stopApp() }()

	ready := make(chan error, 1)
	go func() { ready <- becomeReady(ctx, cfg, rt, daprd, web, log) }()
	exited := make(chan string, len(children))
	for _, c := range children {
		go func() {
			<-c.Exited()
			exited <- fmt.Sprintf("%s exited: %v", c.Name, c.Err())
		}()
	}
	for {
		select {
		case err := <-ready:
			if err != nil {
				return err
			}
		case why := <-exited:
			return errors.New(why)
		case err := <-appErrs:
			return fmt.Errorf("actor host stopped: %w", err)
		case <-stop:
			return nil
		}
	}
}

// startPlacement starts the placement service when this process is node 0 (or
// the only one) and answers where every sidecar finds it: node 0's reserved
// cluster port, which SFBENCH_CLUSTER_PEERS names first.
func startPlacement(cfg config.Config, children *[]*sidecar.Child) (string, error) {
	if cfg.Node.Multi() && cfg.Node.Index > 0 {
		return cfg.Node.Peers[0], nil
	}
	port := cfg.Node.ClusterPort
	if port == 0 {
		ports, err := sidecar.FreePorts(1)
		if err != nil {
			return "", err
		}
		port = ports[0]
	}
	c, err := sidecar.Placement(cfg.BuildDir, port, cfg.LogLevel, os.Stderr)
	if err != nil {
		return "", err
	}
	*children = append(*children, c)
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// becomeReady waits for the sidecar, connects the client, checks that actor
// calls go through (placement has a table with this app in it) and settles
// checkouts a crash cut short; then /health answers 200.
func becomeReady(ctx context.Context, cfg config.Config, rt *actors.Runtime, daprd *sidecar.Daprd, web *gateway.Server, log *slog.Logger) error {
	wait := func(why string, err error) error {
		web.SetWaiting(why + ": " + err.Error())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
			return nil
		}
	}
	for {
		err := daprd.Healthy(ctx)
		if err == nil {
			break
		}
		if err := wait("waiting for daprd", err); err != nil {
			return err
		}
	}
	for {
		c, err := dapr.NewClientWithPort(strconv.Itoa(daprd.GRPCPort))
		if err == nil {
			rt.Client = c
			break
		}
		if err := wait("connecting to daprd", err); err != nil {
			return err
		}
	}
	web.Attach(rt)
	probe := fmt.Sprintf("ready-%d", cfg.Node.Index)
	for {
		r, err := rt.RequestMicro(probe, &actors.MicroCall{Op: "empty"}, cfg.CallTimeout, "")
		if err == nil && r.Status != 0 {
			err = errors.New(r.Message)
		}
		if err == nil {
			break
		}
		if err := wait("actors not reachable yet", err); err != nil {
			return err
		}
	}
	for {
		settled, err := rt.SettleInterrupted(ctx, cfg.DatabaseURL, sidecar.StateTable, sidecar.AppID)
		if err == nil {
			if settled > 0 {
				log.Warn("settled checkouts interrupted by a crash", "carts", settled)
			}
			break
		}
		if err := wait("settling checkouts interrupted by a crash", err); err != nil {
			return err
		}
	}
	web.SetReady()
	log.Info("ready", "port", cfg.Port, "nodes", cfg.Node.Nodes)
	return nil
}
