package grains

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
)

// ErrUnavailable: the grain could not be reached (no member hosts its kind yet, or it kept moving).
var ErrUnavailable = errors.New("grain unavailable")

const maxAttempts = 6

// Call sends a request to grain kind/id and waits for its answer.
//
// Only failures where the message was certainly not processed are retried: no
// activation could be placed yet, or the message hit a dead letter (the grain
// was passivating, or its member left). A timeout is not retried, since the
// grain may have acted; Proto.Actor's own cluster Request retries timeouts as
// well, which would make a non-idempotent call (retract stock) at-least-once.
func (rt *Runtime) Call(kind, id string, call *Call) (*Reply, error) {
	res, err := rt.request(kind, id, encode(call), call.Op, rt.Timeout)
	if err != nil {
		return nil, err
	}
	return decodeReply(res)
}

// pid finds the activation of grain kind/id (placing it if needed), retrying as request does; nil if it cannot be placed.
func (rt *Runtime) pid(kind, id string) *actor.PID {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt*attempt) * 20 * time.Millisecond)
		}
		if pid, _ := rt.Cluster.PidCache.Get(id, kind); pid != nil {
			return pid
		}
		if pid := rt.Cluster.Get(id, kind); pid != nil {
			rt.Cluster.PidCache.Set(id, kind, pid)
			return pid
		}
	}
	return nil
}

// request is Call for any message: it waits up to timeout for the grain's answer.
func (rt *Runtime) request(kind, id string, msg any, op string, timeout time.Duration) (any, error) {
	var last error = ErrUnavailable
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt*attempt) * 20 * time.Millisecond)
		}
		pid, _ := rt.Cluster.PidCache.Get(id, kind)
		if pid == nil {
			pid = rt.Cluster.Get(id, kind)
			if pid == nil {
				last = fmt.Errorf("%w: no activation for %s/%s", ErrUnavailable, kind, id)
				continue
			}
			rt.Cluster.PidCache.Set(id, kind, pid)
		}
		res, err := rt.Cluster.ActorSystem.Root.RequestFuture(pid, msg, timeout).Result()
		if errors.Is(err, actor.ErrDeadLetter) || errors.Is(err, remote.ErrDeadLetter) {
			rt.Cluster.PidCache.Remove(id, kind)
			last = fmt.Errorf("%w: %s/%s: %v", ErrUnavailable, kind, id, err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s/%s %s: %w", kind, id, op, err)
		}
		return res, nil
	}
	return nil, last
}

// Must is Call for grain-to-grain requests: a failure to reach the grain becomes a 503/500 reply.
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
