package actors

import (
	"context"
	"runtime/debug"

	"github.com/dapr/go-sdk/actor"
)

// handler is what an actor does with one call; actorID is its Dapr id, id the entity's.
type handler func(rt *Runtime, actorID, id string, call *Call, trace *TraceLink) *Reply

// serve runs one call of an actor: it writes the actor's function span (SPEC
// 3) when the call is traced and turns a panic into a 500 answer. Business
// failures travel in the Reply, never as an error: the Go SDK answers an error
// with a bare 500 and drops its message.
func (rt *Runtime) serve(kind, actorID string, call *Call, h handler) (reply *Reply) {
	var span *Span
	var trace *TraceLink
	id := EntityID(actorID)
	if rt.Spans != nil && call.Trace != nil {
		span = &Span{TraceID: call.Trace.TraceID, SpanID: NewSpanID(), ParentID: call.Trace.ParentID, Kind: "function",
			Entity: kind, Op: call.Op, Key: id, Start: NowMicros()}
		trace = &TraceLink{TraceID: span.TraceID, ParentID: span.SpanID}
	}
	defer func() {
		if p := recover(); p != nil {
			rt.Log.Error("actor call panicked", "actor", kind+"/"+id, "op", call.Op, "panic", p, "stack", string(debug.Stack()))
			reply = fail(500, "internal", "%s/%s %s: %v", kind, id, call.Op, p)
		}
		if span != nil {
			span.End = NowMicros()
			rt.Spans.Write(*span)
		}
	}()
	return h(rt, actorID, id, call, trace)
}

// base is what every actor type embeds: the SDK's actor plumbing and the runtime.
type base struct {
	actor.ServerImplBaseCtx
	rt *Runtime
}

// call runs h for one call in the actor's turn of this process (turns.go).
// The actor object keeps what it read and wrote between calls, as Dapr's SDKs
// keep an active actor's state: a call reads a key from the state store only
// the first time the object needs it. Two things make the object forget it
// first. An actor this process was told to deactivate (daprd's DELETE, sent
// when the actor is idle or has moved to another node: Runtime.departed)
// reads every call from the store from then on: in the kill test an object
// outlived its actor's stay on this node (the actor moved to node 1 and came
// back to this object when node 1 died, its kept stock missing node 1's
// retractions), and daprd can hand a call to this process after it drained
// the actor, which makes an object the next move does not drain. And a call
// that did not succeed forgets afterwards: a write whose answer was lost may
// have committed or not. ctx is the request daprd sent; it ends when daprd
// gives the call up.
func (b *base) call(ctx context.Context, kind string, call *Call, h handler, forget func()) (*Reply, error) {
	if call == nil {
		return fail(400, "bad-request", "%s: empty call", kind), nil
	}
	release, err := b.rt.turns.Acquire(ctx, kind+"/"+b.ID())
	if err != nil {
		// nobody waits for the answer any more; the call did not run
		return fail(503, "unavailable", "%s/%s %s: abandoned before its turn: %v", kind, EntityID(b.ID()), call.Op, err), nil
	}
	defer release()
	if b.rt.departed.has(kind, b.ID()) {
		forget()
	}
	reply := b.rt.serve(kind, b.ID(), call, h)
	if reply.Status != 0 {
		forget()
	}
	return reply, nil
}

// Factories are the actor types this app hosts, as the Go SDK registers them.
func (rt *Runtime) Factories() []actor.FactoryContext {
	return []actor.FactoryContext{
		func() actor.ServerContext { return &Product{base: base{rt: rt}} },
		func() actor.ServerContext { return &User{base: base{rt: rt}} },
		func() actor.ServerContext { return &Cart{base: base{rt: rt}} },
		func() actor.ServerContext { return &Order{base: base{rt: rt}} },
		func() actor.ServerContext { return &Micro{base: base{rt: rt}} },
	}
}

// unknownOp answers a call no handler of the actor knows.
func unknownOp(kind string, call *Call) *Reply {
	return fail(400, "bad-request", "%s: unknown operation %q", kind, call.Op)
}
