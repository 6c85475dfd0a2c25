// temporal-target is the launcher of the target: it starts the Temporal dev
// server (a child process, its SQLite file in SFBENCH_DATA_DIR), waits until
// it answers, then runs the worker and the HTTP gateway in this process.
// The server stays in this process group and dies with this process.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/config"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/devserver"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/gateway"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/micro"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/shop"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/trace"
)

// serverStartup bounds the wait for the dev server (a restart replays no
// log, but a first start creates the SQLite schema).
const serverStartup = 150 * time.Second

// sweepEvery is how often completed orders whose co-purchase workflow never
// started (the process died between the answer and the start) are started.
const sweepEvery = 2 * time.Second

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "temporal-target:", err)
		os.Exit(1)
	}
}

func slogLevel(l string) slog.Level {
	switch l {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	case "error":
		return slog.LevelError
	}
	return slog.LevelWarn
}

func run() error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slogLevel(cfg.LogLevel)}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	gw := gateway.New()
	gw.Logf = func(format string, args ...any) { logger.Warn(fmt.Sprintf(format, args...)) }
	var spans *trace.Writer
	if cfg.Trace {
		spans = trace.NewWriter(os.Stdout)
		defer spans.Flush()
		gw.Spans = spans
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return err
	}
	httpServer := &http.Server{Handler: gw, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = httpServer.Serve(ln) }()
	defer func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = httpServer.Shutdown(shutdown)
	}()

	sizing := shop.Size(cfg.CPUs)
	server, err := devserver.Start(devserver.Options{
		CLI:      filepath.Join(cfg.BuildDir, "temporal"),
		DataDir:  cfg.DataDir,
		LogLevel: cfg.LogLevel,
		Out:      os.Stderr,
	})
	if err != nil {
		return err
	}
	defer server.Stop(10 * time.Second)

	gw.SetWaiting("connecting to PostgreSQL")
	st, err := store.Open(ctx, cfg.DatabaseURL, sizing.PoolSize)
	if err != nil {
		return err
	}
	defer st.Close()

	gw.SetWaiting("waiting for the Temporal server at " + server.HostPort)
	c, err := dial(ctx, server, logger, cfg.Trace)
	if err != nil {
		return err
	}
	defer c.Close()

	w := shop.NewWorker(c, sizing)
	shop.Register(w, &shop.Activities{Store: st, Spans: spans})
	micro.Register(w, &micro.Activities{Store: st})
	if err := w.Start(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer w.Stop()

	gw.Attach(st, c)
	gw.SetReady()
	// Always printed (whatever LOG_LEVEL says): where to point the temporal CLI at this target's server.
	fmt.Fprintf(os.Stderr, "temporal-target: ready on port %d, Temporal server at %s, sized for %d cores\n", cfg.Port, server.HostPort, cfg.CPUs)
	go sweep(ctx, st, gw, logger)

	select {
	case <-ctx.Done():
		return nil
	case <-server.Exited():
		return fmt.Errorf("the Temporal server exited: %v", server.Err())
	}
}

// dial connects to the dev server once it answers its health check.
// With tracing on, the client carries a sampled request's trace in the
// headers of the workflows it starts and of their activities.
func dial(ctx context.Context, server *devserver.Server, logger *slog.Logger, traced bool) (client.Client, error) {
	var propagators []workflow.ContextPropagator
	if traced {
		propagators = []workflow.ContextPropagator{trace.Propagator{}}
	}
	deadline := time.Now().Add(serverStartup)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-server.Exited():
			return nil, fmt.Errorf("the Temporal server exited while starting: %v", server.Err())
		case <-ctx.Done():
			return nil, ctx.Err()
		default:
		}
		c, err := client.Dial(client.Options{
			HostPort:           server.HostPort,
			Namespace:          devserver.Namespace,
			Logger:             tlog.NewStructuredLogger(logger),
			ContextPropagators: propagators,
		})
		if err == nil {
			check, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err = c.CheckHealth(check, &client.CheckHealthRequest{})
			cancel()
			if err == nil {
				return c, nil
			}
			c.Close()
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	return nil, fmt.Errorf("the Temporal server at %s did not answer within %s: %v", server.HostPort, serverStartup, last)
}

// sweep starts the co-purchase workflows of completed orders that have none
// (the gateway starts one after each answer; a kill -9 in between loses that
// start, and a restarted target starts every pending order's once).
func sweep(ctx context.Context, st *store.Store, gw *gateway.Server, logger *slog.Logger) {
	for {
		orders, err := st.PendingCoPurchases(ctx, sweepEvery, 1000)
		if err != nil && ctx.Err() == nil {
			logger.Warn("co-purchase sweep", "err", err)
		}
		gw.SweepCoPurchases(orders)
		select {
		case <-ctx.Done():
			return
		case <-time.After(sweepEvery):
		}
	}
}
