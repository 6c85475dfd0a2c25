// Command protoactor-target runs the SPEC 2 application on a Proto.Actor
// cluster. Without arguments it is the launcher: it serves HTTP on PORT,
// hosts grains as member 0 and starts PROTOACTOR_MEMBERS-1 more member
// processes (`protoactor-target member`) on free loopback ports.
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

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/config"
	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/gateway"
	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/node"
	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/store"
)

func main() {
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "protoactor-target:", err)
		os.Exit(2)
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if len(os.Args) > 1 && os.Args[1] == "member" {
		err = runMember(cfg, log)
	} else if len(os.Args) > 1 {
		err = fmt.Errorf("unknown argument %q: run without arguments (the launcher) or with \"member\" (started by the launcher)", os.Args[1])
	} else {
		err = runLauncher(cfg, log)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protoactor-target:", err)
		os.Exit(1)
	}
}

func signalled() <-chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	return ch
}

func runMember(cfg config.Config, log *slog.Logger) error {
	menv, err := config.LoadMember()
	if err != nil {
		return err
	}
	l, err := node.InheritedListener()
	if err != nil {
		return err
	}
	stop := signalled()
	m, err := node.StartMember(node.MemberOptions{Membership: l, Hosts: menv.Hosts, DatabaseURL: cfg.DatabaseURL, PoolSize: cfg.PoolSize, Trace: cfg.Trace, Log: log.With("member", menv.Index)})
	if err != nil {
		return err
	}
	<-stop
	m.Stop()
	return nil
}

// createSchema retries until PostgreSQL answers (it may still be starting).
func createSchema(ctx context.Context, cfg config.Config, web *gateway.Server) error {
	st, err := store.Open(ctx, cfg.DatabaseURL, 1)
	if err != nil {
		return err
	}
	defer st.Close()
	for {
		err := st.CreateSchema(ctx)
		if err == nil {
			return nil
		}
		web.SetWaiting("waiting for PostgreSQL: " + err.Error())
		select {
		case <-ctx.Done():
			return err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func runLauncher(cfg config.Config, log *slog.Logger) error {
	stop := signalled()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()

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

	if err := createSchema(ctx, cfg, web); err != nil {
		return err
	}
	web.SetWaiting(fmt.Sprintf("starting %d cluster members", cfg.Members))
	ls, err := node.Listeners(cfg.Members)
	if err != nil {
		return err
	}
	hosts := node.Hosts(ls)
	children, err := node.SpawnMembers(ls[1:], hosts, 1, log)
	if err != nil {
		return err
	}
	defer children.Stop(8 * time.Second)
	member, err := node.StartMember(node.MemberOptions{Membership: ls[0], Hosts: hosts, DatabaseURL: cfg.DatabaseURL, PoolSize: cfg.PoolSize, Trace: cfg.Trace, Log: log.With("member", 0)})
	if err != nil {
		return err
	}
	web.Attach(member.Runtime)
	go func() {
		for ctx.Err() == nil {
			if n := member.Members(); n < cfg.Members {
				web.SetWaiting(fmt.Sprintf("%d of %d cluster members joined", n, cfg.Members))
			} else if err := member.Ready(); err != nil {
				web.SetWaiting("grains not reachable yet: " + err.Error())
			} else if settled, err := member.SettleInterrupted(ctx); err != nil {
				web.SetWaiting("settling checkouts interrupted by a crash: " + err.Error())
			} else {
				if settled > 0 {
					log.Warn("settled checkouts interrupted by a crash", "carts", settled)
				}
				web.SetReady()
				log.Info("ready", "members", n, "port", cfg.Port)
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()

	<-ctx.Done()
	shutdownCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = srv.Shutdown(shutdownCtx)
	children.Stop(8 * time.Second)
	member.Stop()
	return nil
}
