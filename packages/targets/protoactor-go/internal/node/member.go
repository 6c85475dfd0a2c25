// Package node starts Proto.Actor cluster members: the actor system, remoting
// on a free loopback port, a cluster provider in the manner of Proto.Actor's
// automanaged one (members find each other by polling each member's /_health
// on a list of loopback addresses; LoopbackProvider) and distributed-hash
// identity lookup (the owner of a grain is chosen by rendezvous hashing over
// the members).
package node

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/labstack/echo"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/grains"
	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/store"
)

// ClusterName is the Proto.Actor cluster name of every member.
const ClusterName = "sfbench"

// MemberOptions describe one member process.
type MemberOptions struct {
	// Membership is this member's listener for the cluster provider's /_health (on 127.0.0.1).
	Membership net.Listener
	// Hosts are the membership addresses of all members, this one included.
	Hosts       []string
	DatabaseURL string
	PoolSize    int
	Trace       bool
	Log         *slog.Logger
}

// Member is a started cluster member.
type Member struct {
	Runtime *grains.Runtime
	store   *store.Store
}

// StartMember joins the cluster and hosts every grain kind.
func StartMember(opts MemberOptions) (*Member, error) {
	st, err := store.Open(context.Background(), opts.DatabaseURL, opts.PoolSize)
	if err != nil {
		return nil, err
	}
	rt := &grains.Runtime{
		Store:   st,
		Writer:  store.NewCoPurchaseWriter(st, opts.Log),
		Log:     opts.Log,
		Timeout: 10 * time.Second,
		// A workload iteration's user, cart and order are used for under a second
		// and read again only by the audit (from their rows). Kept for 2 minutes,
		// about 70,000 of them (200 iterations/s x 3 x 120 s) stayed alive at the
		// knee, and after one overload the member spent 7-9 core-ms per checkout
		// instead of 4.5 and never got back to its knee; passivated after 10 s it
		// stayed at 4.3-5.0.
		Idle: 10 * time.Second,
	}
	if opts.Trace {
		rt.Spans = grains.NewSpanWriter(os.Stdout)
	}
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return opts.Log }))

	// The provider serves /_health on our listener (bound to 127.0.0.1 by the
	// launcher); its answer is automanaged's node model.
	web := echo.New()
	web.HideBanner, web.HidePort = true, true
	web.Listener = opts.Membership
	membershipPort := opts.Membership.Addr().(*net.TCPAddr).Port
	provider := NewLoopbackProvider(web, opts.Hosts, 500*time.Millisecond, 2*time.Second, slowMemberGrace, opts.Log)

	cfg := cluster.Configure(ClusterName, provider, disthash.New(), remote.Configure("127.0.0.1", 0, remoteLimits...),
		cluster.WithKinds(rt.Kinds()...), cluster.WithRequestTimeout(rt.Timeout))
	c := cluster.New(system, cfg)
	rt.Cluster = c
	web.GET("/_health", func(ctx echo.Context) error {
		host, port, err := system.GetHostPort()
		if err != nil {
			return ctx.NoContent(http.StatusServiceUnavailable)
		}
		return ctx.JSON(http.StatusOK, automanaged.NewNode(ClusterName, system.ID, host, port, membershipPort, c.GetClusterKinds()))
	})
	// A member that leaves the topology is blocked for good (Proto.Actor lets no
	// id back in), and the grains it owned answer 504 from then on: say so at
	// the level the target logs, with the members left, so a 504 can be traced.
	system.EventStream.Subscribe(func(evt interface{}) {
		if t, ok := evt.(*cluster.ClusterTopology); ok && len(t.Left) > 0 {
			left := make([]string, len(t.Left))
			for i, m := range t.Left {
				left[i] = m.Id
			}
			opts.Log.Warn("members left the cluster for good", slog.Any("left", left), slog.Int("members", len(t.Members)))
		}
	})
	c.StartMember()
	return &Member{Runtime: rt, store: st}, nil
}

// slowMemberGrace is how long a member that is alive (its port takes
// connections) may leave its /_health unanswered before the others drop it:
// longer than a grain call's timeout, so a member starved of CPU on a loaded
// machine is waited for like any slow answer, and a hung one still leaves.
const slowMemberGrace = 30 * time.Second

// remoteLimits raise gRPC's 4 MiB message limit: a remoting batch carries up
// to 1000 messages, and micro's divide sends slices of up to 500,000 items.
var remoteLimits = []remote.ConfigOption{
	remote.WithServerOptions(grpc.MaxRecvMsgSize(maxRemoteMessage)),
	remote.WithDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRemoteMessage), grpc.MaxCallSendMsgSize(maxRemoteMessage))),
}

const maxRemoteMessage = 512 << 20

// Members is how many members the cluster topology holds now.
func (m *Member) Members() int { return m.Runtime.Cluster.MemberList.Length() }

// Ready reports whether every grain kind answers through the cluster (a 404 of an unknown id counts as an answer).
func (m *Member) Ready() error {
	for _, kind := range []string{grains.KindProduct, grains.KindUser, grains.KindCart, grains.KindOrder} {
		r, err := m.Runtime.Call(kind, "sfbench-health-probe", &grains.Call{Op: "get"})
		if err != nil {
			return fmt.Errorf("%s grain: %w", kind, err)
		}
		if r.Status >= 500 {
			return fmt.Errorf("%s grain: %s", kind, r.Message)
		}
	}
	return nil
}

// SettleInterrupted activates every cart whose checkout a crash interrupted;
// on activation the cart completes or compensates it. Answers how many there were.
func (m *Member) SettleInterrupted(ctx context.Context) (int, error) {
	ids, err := m.store.PendingCarts(ctx)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		r, err := m.Runtime.Call(grains.KindCart, id, &grains.Call{Op: "get"})
		if err != nil {
			return 0, fmt.Errorf("cart %s: %w", id, err)
		}
		if r.Status >= 500 {
			return 0, fmt.Errorf("cart %s: %s", id, r.Message)
		}
	}
	return len(ids), nil
}

// Stop leaves the cluster, writes pending co-purchase counts and closes the pool.
func (m *Member) Stop() {
	m.Runtime.Cluster.Shutdown(true)
	m.Runtime.Writer.Close()
	if m.Runtime.Spans != nil {
		m.Runtime.Spans.Flush()
	}
	m.store.Close()
}
