package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	dapr "github.com/dapr/go-sdk/client"
)

// ErrUnavailable: the actor could not be reached in time (no sidecar hosts its type yet, or its host went away).
var ErrUnavailable = errors.New("actor unavailable")

// HandleMethod is the one method every actor type exposes; Call.Op says what to do.
const HandleMethod = "Handle"

// maxAttempts bounds the retries of a call placement could not route yet.
const maxAttempts = 8

// Runtime is what the actors and the gateway share in one app process: the
// sidecar client, the span writer and the call timeout.
type Runtime struct {
	Client  dapr.Client
	Spans   *SpanWriter // nil when tracing is off
	Timeout time.Duration
	Log     *slog.Logger
	// turns holds each shop actor's calls in this process to one at a time (turns.go)
	turns Turns
	// departed holds the actors daprd deactivated here (host.go)
	departed departedActors
}

// notPlaced says the sidecar found no host for the actor: placement has not
// disseminated a table with the type yet, or is rebalancing after a node
// left. The call certainly did not run, so it is safe to retry.
func notPlaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "did not find address for actor") || strings.Contains(msg, "actors runtime") && strings.Contains(msg, "not ready")
}

// Call invokes the Handle method of actor kind/id through the sidecar and waits
// up to the runtime's timeout for its answer. A call that may have run is never
// retried: a retried retraction would take stock twice.
func (rt *Runtime) Call(kind, id string, call *Call) (*Reply, error) {
	return rt.CallWithin(kind, id, call, rt.Timeout)
}

// CallWithin is Call with its own timeout (the micro coordinators run longer than one call).
func (rt *Runtime) CallWithin(kind, id string, call *Call, timeout time.Duration) (*Reply, error) {
	data, err := json.Marshal(call)
	if err != nil {
		return nil, err
	}
	var out []byte
	if err := rt.invoke(kind, ActorID(id), data, timeout, &out); err != nil {
		return nil, fmt.Errorf("%s/%s %s: %w", kind, id, call.Op, err)
	}
	var r Reply
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("%s/%s %s: answer: %w", kind, id, call.Op, err)
	}
	return &r, nil
}

// invoke is one actor invocation with the retries of notPlaced.
func (rt *Runtime) invoke(kind, actorID string, data []byte, timeout time.Duration, out *[]byte) error {
	deadline := time.Now().Add(timeout)
	var last error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt*attempt) * 25 * time.Millisecond)
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		res, err := rt.Client.InvokeActor(ctx, &dapr.InvokeActorRequest{ActorType: kind, ActorID: actorID, Method: HandleMethod, Data: data})
		cancel()
		if err == nil {
			*out = res.Data
			return nil
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || time.Now().After(deadline) {
			return fmt.Errorf("%w: no answer within %s: %v", ErrUnavailable, timeout, err)
		}
		if !notPlaced(err) {
			return err
		}
		last = fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return last
}

// must is Call for actor-to-actor requests: a failure to reach the actor becomes a 503/500 reply.
func (rt *Runtime) must(kind, id string, call *Call) *Reply {
	r, err := rt.Call(kind, id, call)
	if err != nil {
		if errors.Is(err, ErrUnavailable) {
			return fail(503, "unavailable", "%v", err)
		}
		return internal(err)
	}
	return r
}

// departedActors is the set of actors this process was told to deactivate.
// Their objects read their state from the store on every call (base.call):
// once an actor has left, this process cannot tell from its calls whether
// another node wrote its state since.
type departedActors struct {
	ids sync.Map // kind + "/" + actor id
}

// add records daprd's deactivation of actor kind/actorID.
func (d *departedActors) add(kind, actorID string) { d.ids.Store(kind+"/"+actorID, struct{}{}) }

func (d *departedActors) has(kind, actorID string) bool {
	_, ok := d.ids.Load(kind + "/" + actorID)
	return ok
}
