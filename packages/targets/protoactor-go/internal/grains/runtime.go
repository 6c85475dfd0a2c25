package grains

import (
	"context"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/store"
)

// Runtime is what every grain of one member shares: the cluster, the store,
// the co-purchase writer and the span writer (nil when tracing is off).
type Runtime struct {
	Cluster *cluster.Cluster
	Store   *store.Store
	Writer  *store.CoPurchaseWriter
	Spans   *SpanWriter
	Log     *slog.Logger
	// Timeout of one grain request.
	Timeout time.Duration
	// Idle is how long a user, cart or order grain stays active without messages (passivation).
	Idle time.Duration
}

// entity is the behaviour of one grain kind: load its state on activation, handle calls.
type entity interface {
	load(ctx context.Context, rt *Runtime, id string) error
	handle(rt *Runtime, id string, call *Call, trace *TraceLink) *Reply
}

// grain adapts an entity to a Proto.Actor actor: one message at a time,
// state loaded from PostgreSQL when the grain activates.
type grain struct {
	rt        *Runtime
	kind      string
	id        string
	entity    entity
	loaded    bool
	passivate bool
}

func (g *grain) ensureLoaded() *Reply {
	if g.loaded {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.rt.Timeout)
	defer cancel()
	if err := g.entity.load(ctx, g.rt, g.id); err != nil {
		return fail(503, "unavailable", "loading %s %s: %v", g.kind, g.id, err)
	}
	g.loaded = true
	return nil
}

func (g *grain) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *cluster.ClusterInit:
		g.id = msg.Identity.Identity
		if g.passivate && g.rt.Idle > 0 {
			ctx.SetReceiveTimeout(g.rt.Idle)
		}
	case *actor.ReceiveTimeout:
		ctx.Stop(ctx.Self())
	case *wrapperspb.BytesValue:
		call, err := decodeCall(msg)
		if err != nil {
			ctx.Respond(encode(fail(400, "bad-request", "%v", err)))
			return
		}
		var start int64
		var link *TraceLink
		spanID := ""
		if g.rt.Spans != nil && call.Trace != nil {
			start = NowMicros()
			spanID = NewSpanID()
			link = &TraceLink{TraceID: call.Trace.TraceID, ParentID: spanID}
		}
		// "create" comes only with a fresh id (a new UUID): nothing to load.
		// Otherwise state is loaded on the first message; a failed load is retried by the next one.
		if call.Op == "create" {
			g.loaded = true
		}
		reply := g.ensureLoaded()
		if reply == nil {
			reply = g.entity.handle(g.rt, g.id, call, link)
		}
		if link != nil {
			g.rt.Spans.Write(Span{TraceID: call.Trace.TraceID, SpanID: spanID, ParentID: call.Trace.ParentID, Kind: "function",
				Entity: g.kind, Op: call.Op, Key: g.id, Start: start, End: NowMicros()})
		}
		ctx.Respond(encode(reply))
	}
}

// Kinds are the cluster kinds this member hosts.
func (rt *Runtime) Kinds() []*cluster.Kind {
	kind := func(name string, passivate bool, make func() entity) *cluster.Kind {
		return cluster.NewKind(name, actor.PropsFromProducer(func() actor.Actor {
			return &grain{rt: rt, kind: name, entity: make(), passivate: passivate}
		}))
	}
	return []*cluster.Kind{
		// products stay active: their co-purchase counts are written behind (store.CoPurchaseWriter)
		kind(KindProduct, false, func() entity { return &product{} }),
		kind(KindUser, true, func() entity { return &user{} }),
		kind(KindCart, true, func() entity { return &cart{} }),
		kind(KindOrder, true, func() entity { return &order{} }),
		cluster.NewKind(KindMicro, actor.PropsFromProducer(func() actor.Actor { return &microGrain{rt: rt} })),
	}
}

func dbctx(rt *Runtime) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), rt.Timeout)
}
