package gotest

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/grains"
)

// oneMember starts a single cluster member in this process, with its micro
// grains passivating after idle (the store is not needed by big's operations).
func oneMember(t *testing.T, idle time.Duration) *grains.Runtime {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rt := &grains.Runtime{Log: quiet, Timeout: 5 * time.Second, Idle: idle}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	cfg := cluster.Configure("big-round-test", test.NewTestProvider(test.NewInMemAgent()), disthash.New(),
		remote.Configure("127.0.0.1", 0), cluster.WithKinds(rt.Kinds()...))
	rt.Cluster = cluster.New(system, cfg)
	rt.Cluster.StartMember()
	t.Cleanup(func() { rt.Cluster.Shutdown(false) })
	return rt
}

func request(t *testing.T, rt *grains.Runtime, id string, c *grains.MicroCall) *grains.MicroReply {
	t.Helper()
	r, err := rt.RequestMicro(id, c, 5*time.Second)
	if err != nil {
		t.Fatalf("%s %s: %v", id, c.Op, err)
	}
	if r.Status != 0 {
		t.Fatalf("%s %s answered %d", id, c.Op, r.Status)
	}
	return r
}

// A round of big can last longer than a grain's idle time (ten thousand entities
// on a loaded machine): an entity that counted messages keeps them until the
// round collects them, and lets go once collected or once the round's budget
// has passed.
func TestABigEntityKeepsItsCountLongerThanItsIdleTime(t *testing.T) {
	const idle = 100 * time.Millisecond
	rt := oneMember(t, idle)
	budget := int64(10 * time.Second)

	request(t, rt, "big-0", &grains.MicroCall{Op: "bigMsg", Round: "r1", Budget: budget})
	request(t, rt, "big-0", &grains.MicroCall{Op: "bigMsg", Round: "r1", Budget: budget})
	time.Sleep(5 * idle)
	if got := request(t, rt, "big-0", &grains.MicroCall{Op: "bigCollect", Round: "r1", Budget: budget}).Received; got != 2 {
		t.Fatalf("collected %d messages after 5 idle times, want the 2 counted", got)
	}

	// a round whose coordinator gave up: the count is held for the budget, then the entity passivates
	short := time.Second
	request(t, rt, "big-1", &grains.MicroCall{Op: "bigMsg", Round: "r2", Budget: int64(short)})
	time.Sleep(short + 2*time.Second)
	if got := request(t, rt, "big-1", &grains.MicroCall{Op: "bigCollect", Round: "r2", Budget: int64(short)}).Received; got != 0 {
		t.Fatalf("collected %d messages long after the budget, want 0 (a fresh activation)", got)
	}
}

// An entity sending its share waits for its messages' answers without taking
// messages itself (the answers come back as continuations): when a receiver is
// slow to answer, the sender must still be there to answer its bigSend.
func TestABigSenderOutwaitsItsIdleTimeForASlowReceiver(t *testing.T) {
	const idle = 100 * time.Millisecond
	rt := oneMember(t, idle)
	budget := int64(10 * time.Second)

	// big-1 computes for several idle times; the one message big-0 sends it waits behind that
	busy := make(chan error, 1)
	go func() {
		_, err := rt.RequestMicro("big-1", &grains.MicroCall{Op: "math", N: 50_000_000}, 10*time.Second)
		busy <- err
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	request(t, rt, "big-0", &grains.MicroCall{Op: "bigSend", Round: "r", Index: 0, Count: 1, Entities: 2, Seed: 1, Budget: budget})
	if err := <-busy; err != nil {
		t.Fatalf("big-1 math: %v", err)
	}
	t.Logf("bigSend answered after %v", time.Since(start))
	if got := request(t, rt, "big-1", &grains.MicroCall{Op: "bigCollect", Round: "r", Budget: budget}).Received; got != 1 {
		t.Fatalf("big-1 counted %d messages, want 1", got)
	}
}
