// Package micro is SPEC 8 on Temporal. An entity is a workflow keyed by its
// workflow id: the invocation-overhead routes are Updates of a long-lived
// entity workflow (started by the first update: update-with-start), and the
// messaging routes are workflows that talk through Temporal's own messaging
// (child workflows, signals to other workflows).
package micro

import (
	"context"
	"math/rand/v2"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
)

// UpdateInvoke is the entity workflow's update.
const UpdateInvoke = "invoke"

// EntityWorkflowID is the workflow id of the entity ?key= names.
func EntityWorkflowID(key string) string { return "micro/" + key }

// Call is one invocation of an entity.
type Call struct {
	Op    string `json:"op"`
	N     int    `json:"n,omitempty"`
	Ms    int    `json:"ms,omitempty"`
	Key   string `json:"key,omitempty"`
	Bytes int    `json:"bytes,omitempty"`
}

// Reply is the entity's answer; HandlerNs is the time the update handler took.
type Reply struct {
	HandlerNs int64   `json:"handlerNs"`
	Pi        float64 `json:"pi,omitempty"`
	Sha256    string  `json:"sha256,omitempty"`
}

// IOStore is the store /micro/io writes to (the same the shop uses).
type IOStore interface {
	MicroIO(ctx context.Context, key string, n int) (string, error)
}

// Activities are the entity's side effects and its CPU work.
type Activities struct{ Store IOStore }

// IO writes the payload under key and answers the hash of what it read back.
func (a *Activities) IO(ctx context.Context, key string, n int) (string, error) {
	return a.Store.MicroIO(ctx, key, n)
}

// Math is a Monte Carlo estimate of pi with n samples. It is a local
// activity: workflow code must stay quick (the SDK's deadlock detector
// fails a workflow task that holds its thread for a second) and 10^7
// samples may not on a loaded machine.
func (a *Activities) Math(ctx context.Context, n int) (float64, error) {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	inside := 0
	for i := 0; i < n; i++ {
		x, y := r.Float64(), r.Float64()
		if x*x+y*y <= 1 {
			inside++
		}
	}
	return 4 * float64(inside) / float64(n), nil
}

// Entity is one micro entity. Its update handlers run as workflow coroutines,
// so a sleeping invocation does not hold back the entity's others. When the
// server suggests it (the history grew long), it continues as new once no
// handler is running.
func Entity(ctx workflow.Context, key string) error {
	var a *Activities
	err := workflow.SetUpdateHandler(ctx, UpdateInvoke, func(ctx workflow.Context, c Call) (Reply, error) {
		start := time.Now()
		var r Reply
		switch c.Op {
		case "math":
			lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
			if err := workflow.ExecuteLocalActivity(lctx, a.Math, c.N).Get(ctx, &r.Pi); err != nil {
				return r, err
			}
		case "sleep":
			if c.Ms > 0 {
				if err := workflow.Sleep(ctx, time.Duration(c.Ms)*time.Millisecond); err != nil {
					return r, err
				}
			}
		case "io":
			actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
			if err := workflow.ExecuteActivity(actx, a.IO, key, c.Bytes).Get(ctx, &r.Sha256); err != nil {
				return r, err
			}
		}
		r.HandlerNs = time.Since(start).Nanoseconds()
		return r, nil
	})
	if err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool {
		return workflow.GetInfo(ctx).GetContinueAsNewSuggested() && workflow.AllHandlersFinished(ctx)
	}); err != nil {
		return err
	}
	return workflow.NewContinueAsNewError(ctx, Entity, key)
}

// payload is SPEC 8's pattern, the one /micro/io writes.
func payload(n int) []byte { return store.Pattern(n) }
