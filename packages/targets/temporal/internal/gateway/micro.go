package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/micro"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/shop"
)

// The ranges of SPEC 8 (the same as @sfbench/core's micro schemas).
const (
	mathNMax       = 10_000_000
	sleepMsMax     = 10_000
	ioBytesMax     = 1 << 20
	pairsMax       = 64
	pingMsgsMax    = 100_000
	pingBytesMax   = 65_536
	divideItemsMax = 1_000_000
	fanoutMin      = 2
	fanoutMax      = 16
	leafMin        = 16
	leafMax        = 100_000
	leafDefault    = 1000
	bigEntitiesMax = 10_000
	bigMsgsMax     = 1_000_000
)

// invokeTimeout bounds one update of an entity (plus its sleep).
const invokeTimeout = 30 * time.Second

// Budgets of the messaging workflows: a fixed part plus a share per unit of
// work several times what one workflow task or signal costs on a loaded
// 2-core machine, so only a stuck run reaches them; the workflow is given
// the same as its execution timeout, so none outlives its request for long.
func pingpongBudget(pairs, messages int) time.Duration {
	return time.Minute + time.Duration(pairs*messages)*100*time.Millisecond
}

func divideBudget(items, leaf int) time.Duration {
	return time.Minute + time.Duration(items/leaf+1)*500*time.Millisecond
}

func bigBudget(entities, messages int) time.Duration {
	return time.Minute + time.Duration(messages)*50*time.Millisecond + time.Duration(entities)*200*time.Millisecond
}

// microKey is the entity of an invocation-overhead request: ?key= or "micro".
func microKey(r *request) (string, error) {
	vs, ok := r.query["key"]
	if !ok || len(vs) == 0 {
		return "micro", nil
	}
	return vs[0], checkID("key", vs[0])
}

// invoke sends one update to the entity workflow of key, starting the
// workflow when it does not run yet (update-with-start), and waits for the
// handler's answer.
func (s *Server) invoke(r *request, key string, c micro.Call, extra time.Duration) (micro.Reply, error) {
	ctx, cancel := context.WithTimeout(r.http.Context(), invokeTimeout+extra)
	defer cancel()
	c.Key = key
	start := s.temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       micro.EntityWorkflowID(key),
		TaskQueue:                shop.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, micro.Entity, key)
	handle, err := s.temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName:   micro.UpdateInvoke,
			Args:         []any{c},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	var reply micro.Reply
	if err == nil {
		err = handle.Get(ctx, &reply)
	}
	if err != nil {
		return reply, workflowError("micro entity "+key, err)
	}
	return reply, nil
}

func microEmpty(s *Server, r *request) (any, error) {
	key, err := microKey(r)
	if err != nil {
		return nil, err
	}
	reply, err := s.invoke(r, key, micro.Call{Op: "empty"}, 0)
	if err != nil {
		return nil, err
	}
	return map[string]any{"handlerNs": reply.HandlerNs}, nil
}

func microMath(s *Server, r *request) (any, error) {
	n, err := queryInt(r.query, "n", 1, mathNMax, 1000)
	if err != nil {
		return nil, err
	}
	key, err := microKey(r)
	if err != nil {
		return nil, err
	}
	reply, err := s.invoke(r, key, micro.Call{Op: "math", N: n}, 0)
	if err != nil {
		return nil, err
	}
	return map[string]any{"n": n, "pi": reply.Pi, "handlerNs": reply.HandlerNs}, nil
}

func microSleep(s *Server, r *request) (any, error) {
	ms, err := queryInt(r.query, "ms", 0, sleepMsMax, 100)
	if err != nil {
		return nil, err
	}
	key, err := microKey(r)
	if err != nil {
		return nil, err
	}
	reply, err := s.invoke(r, key, micro.Call{Op: "sleep", Ms: ms}, time.Duration(ms)*time.Millisecond)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ms": ms, "handlerNs": reply.HandlerNs}, nil
}

func microIO(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	key, err := idField(f, "key")
	if err != nil {
		return nil, err
	}
	bytes, err := rangeField(f, "bytes", 1, ioBytesMax, 0, true)
	if err != nil {
		return nil, err
	}
	reply, err := s.invoke(r, key, micro.Call{Op: "io", Bytes: bytes}, 0)
	if err != nil {
		return nil, err
	}
	return map[string]any{"key": key, "bytes": bytes, "sha256": reply.Sha256, "handlerNs": reply.HandlerNs}, nil
}

// run executes a messaging workflow under a fresh id and waits for its result.
func (s *Server) run(r *request, name string, budget time.Duration, workflow any, in any, out any) error {
	ctx, cancel := context.WithTimeout(r.http.Context(), budget)
	defer cancel()
	run, err := s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       fmt.Sprintf("%s-%s", name, newID()),
		TaskQueue:                shop.TaskQueue,
		WorkflowExecutionTimeout: budget,
		EnableEagerStart:         true,
	}, workflow, in)
	if err == nil {
		err = run.Get(ctx, out)
	}
	if err != nil {
		return workflowError(name, err)
	}
	return nil
}

func microPingpong(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	pairs, err := rangeField(f, "pairs", 1, pairsMax, 0, true)
	if err != nil {
		return nil, err
	}
	messages, err := rangeField(f, "messages", 1, pingMsgsMax, 0, true)
	if err != nil {
		return nil, err
	}
	bytes, err := rangeField(f, "bytes", 0, pingBytesMax, 0, true)
	if err != nil {
		return nil, err
	}
	var res micro.PingPongResult
	if err := s.run(r, "pingpong", pingpongBudget(pairs, messages), micro.PingPong, micro.PingPongInput{Pairs: pairs, Messages: messages, Bytes: bytes}, &res); err != nil {
		return nil, err
	}
	histogram := make([][2]any, len(res.Histogram))
	for i, n := range res.Histogram {
		histogram[i] = [2]any{nil, n}
		if i < len(micro.HistogramBounds) {
			histogram[i][0] = micro.HistogramBounds[i]
		}
	}
	return map[string]any{"pairs": pairs, "messages": res.Messages, "bytes": bytes, "totalNs": res.TotalNs,
		"histogram": histogram, "handlerNs": res.HandlerNs}, nil
}

func microDivide(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	items, err := rangeField(f, "items", 1, divideItemsMax, 0, true)
	if err != nil {
		return nil, err
	}
	fanout, err := rangeField(f, "fanout", fanoutMin, fanoutMax, 0, true)
	if err != nil {
		return nil, err
	}
	leaf, err := rangeField(f, "leaf", leafMin, leafMax, leafDefault, false)
	if err != nil {
		return nil, err
	}
	seed, err := rangeField(f, "seed", 0, maxInt, 0, true)
	if err != nil {
		return nil, err
	}
	var res micro.DivideResult
	if err := s.run(r, "divide", divideBudget(items, leaf), micro.Divide, micro.DivideInput{Items: items, Fanout: fanout, Leaf: leaf, Seed: int64(seed)}, &res); err != nil {
		return nil, err
	}
	return map[string]any{"items": items, "first": res.First, "last": res.Last, "checksum": res.Checksum,
		"entities": res.Entities, "totalNs": res.TotalNs, "handlerNs": res.HandlerNs}, nil
}

func microBig(s *Server, r *request) (any, error) {
	f, err := object(r.body, false)
	if err != nil {
		return nil, err
	}
	entities, err := rangeField(f, "entities", 2, bigEntitiesMax, 0, true)
	if err != nil {
		return nil, err
	}
	messages, err := rangeField(f, "messages", 1, bigMsgsMax, 0, true)
	if err != nil {
		return nil, err
	}
	seed, err := rangeField(f, "seed", 0, maxInt, 0, true)
	if err != nil {
		return nil, err
	}
	var res micro.BigResult
	if err := s.run(r, "big", bigBudget(entities, messages), micro.Big, micro.BigInput{Entities: entities, Messages: messages, Seed: int64(seed)}, &res); err != nil {
		return nil, err
	}
	return map[string]any{"entities": entities, "messages": messages, "delivered": res.Delivered,
		"totalNs": res.TotalNs, "handlerNs": res.HandlerNs}, nil
}

// rangeField reads an integer field in [min, max]; absent gives def, or a 400 when required.
func rangeField(fields map[string]json.RawMessage, name string, min, max, def int, required bool) (int, error) {
	if _, ok := fields[name]; !ok {
		if required {
			return 0, bad("%s: required, an integer from %d to %d", name, min, max)
		}
		return def, nil
	}
	v, _, err := intField(fields, name, 0, true)
	if err != nil || v < int64(min) || v > int64(max) {
		var got json.RawMessage = fields[name]
		return 0, bad("%s: must be an integer from %d to %d, got %s", name, min, max, string(got))
	}
	return int(v), nil
}
