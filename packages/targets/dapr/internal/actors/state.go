package actors

import (
	"context"
	"encoding/json"
	"fmt"

	dapr "github.com/dapr/go-sdk/client"
)

// op is one write of an actor state transaction: set key to value, or delete key.
type op struct {
	key   string
	value any
	del   bool
}

func set(key string, value any) op { return op{key: key, value: value} }
func del(key string) op            { return op{key: key, del: true} }

// stateCtx bounds one state store round trip.
func (rt *Runtime) stateCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), rt.Timeout)
}

// load reads one key of an actor's state into v; false when the key does not exist.
func (rt *Runtime) load(kind, actorID, key string, v any) (bool, error) {
	ctx, cancel := rt.stateCtx()
	defer cancel()
	res, err := rt.Client.GetActorState(ctx, &dapr.GetActorStateRequest{ActorType: kind, ActorID: actorID, KeyName: key})
	if err != nil {
		return false, fmt.Errorf("read %s/%s %s: %w", kind, actorID, key, err)
	}
	if len(res.Data) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(res.Data, v); err != nil {
		return false, fmt.Errorf("read %s/%s %s: %w", kind, actorID, key, err)
	}
	return true, nil
}

// commit writes ops as one transaction of the actor state store: all of them
// or none, committed in PostgreSQL before the sidecar answers.
func (rt *Runtime) commit(kind, actorID string, ops ...op) error {
	tx := make([]*dapr.ActorStateOperation, 0, len(ops))
	for _, o := range ops {
		if o.del {
			tx = append(tx, &dapr.ActorStateOperation{OperationType: "delete", Key: o.key})
			continue
		}
		raw, err := json.Marshal(o.value)
		if err != nil {
			return err
		}
		tx = append(tx, &dapr.ActorStateOperation{OperationType: "upsert", Key: o.key, Value: raw})
	}
	ctx, cancel := rt.stateCtx()
	defer cancel()
	if err := rt.Client.SaveStateTransactionally(ctx, kind, actorID, tx); err != nil {
		return fmt.Errorf("write %s/%s: %w", kind, actorID, err)
	}
	return nil
}
