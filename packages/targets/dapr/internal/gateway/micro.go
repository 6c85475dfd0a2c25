package gateway

import (
	"encoding/json"
	"time"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/actors"
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

// Budgets: how long the actors of a messaging request may take before it is
// answered 503 unavailable. Each is the actor call timeout (10 s) plus a share
// per unit of work several times what one Dapr actor call (app -> sidecar ->
// sidecar -> app and back) cost on a 2-core machine under a load average of
// 14, so only a lost call or a dead node runs into it.
// pingpong: per round trip of all pairs (they share the machine's cores).
func pingpongBudget(pairs, messages, bytes int, timeout time.Duration) time.Duration {
	return timeout + time.Duration(pairs*messages)*(10*time.Millisecond+time.Duration(bytes)*100*time.Nanosecond)
}

func divideBudget(items int, timeout time.Duration) time.Duration {
	return timeout + time.Duration(items)*50*time.Microsecond
}

func bigBudget(entities, messages int, timeout time.Duration) time.Duration {
	return timeout + time.Duration(messages)*10*time.Millisecond + time.Duration(entities)*10*time.Millisecond
}

// microKey is the entity of an invocation-overhead request: ?key= or "micro".
func microKey(r *request) (string, error) {
	vs, ok := r.query["key"]
	if !ok || len(vs) == 0 {
		return "micro", nil
	}
	return vs[0], checkID("key", vs[0])
}

// micro calls a micro actor; a non-success reply becomes the HTTP error.
func (s *Server) micro(id string, c *actors.MicroCall, timeout time.Duration) (*actors.MicroReply, error) {
	return s.microChain(id, c, timeout, "")
}

// microChain is micro with a Dapr reentrancy id (see actors.RequestMicro).
func (s *Server) microChain(id string, c *actors.MicroCall, timeout time.Duration, chain string) (*actors.MicroReply, error) {
	reply, err := s.rt.RequestMicro(id, c, timeout, chain)
	if err != nil {
		reply = actors.MicroErrorReply(err)
	}
	if reply.Status != 0 {
		return nil, &actorError{&actors.Reply{Status: reply.Status, Code: reply.Code, Message: reply.Message}}
	}
	return reply, nil
}

func microEmpty(s *Server, r *request) (any, error) {
	key, err := microKey(r)
	if err != nil {
		return nil, err
	}
	reply, err := s.micro(key, &actors.MicroCall{Op: "empty"}, s.rt.Timeout)
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
	reply, err := s.micro(key, &actors.MicroCall{Op: "math", N: n}, s.rt.Timeout)
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
	// Every sleep of one entity is one Dapr reentrancy chain: Dapr runs one call
	// of an actor at a time, and a sleep must not hold back the entity's other
	// sleeps (SPEC 8), so they may all be inside the actor at once.
	reply, err := s.microChain(key, &actors.MicroCall{Op: "sleep", Ms: ms}, s.rt.Timeout+time.Duration(ms)*time.Millisecond, "sleep/"+actors.ActorID(key))
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
	reply, err := s.micro(key, &actors.MicroCall{Op: "io", Bytes: bytes}, s.rt.Timeout)
	if err != nil {
		return nil, err
	}
	return map[string]any{"key": key, "bytes": bytes, "sha256": reply.Sha256, "handlerNs": reply.HandlerNs}, nil
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
	budget := pingpongBudget(pairs, messages, bytes, s.rt.Timeout)
	reply, err := s.micro("pingpong-"+newID(), &actors.MicroCall{Op: "pingpong", Pairs: pairs, Messages: messages, Bytes: bytes, Budget: int64(budget)}, budget+s.rt.Timeout)
	if err != nil {
		return nil, err
	}
	histogram := make([][2]any, len(reply.Histogram))
	for i, n := range reply.Histogram {
		histogram[i] = [2]any{nil, n}
		if i < len(actors.HistogramBounds) {
			histogram[i][0] = actors.HistogramBounds[i]
		}
	}
	return map[string]any{"pairs": pairs, "messages": reply.Messages, "bytes": bytes, "totalNs": reply.TotalNs,
		"histogram": histogram, "handlerNs": reply.HandlerNs}, nil
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
	budget := divideBudget(items, s.rt.Timeout)
	reply, err := s.micro("divide-"+newID(), &actors.MicroCall{Op: "divide", Count: items, Fanout: fanout, Leaf: leaf, Seed: int64(seed), Budget: int64(budget)}, budget+s.rt.Timeout)
	if err != nil {
		return nil, err
	}
	return map[string]any{"items": items, "first": reply.First, "last": reply.Last, "checksum": reply.Checksum,
		"entities": reply.Entities, "totalNs": reply.TotalNs, "handlerNs": reply.HandlerNs}, nil
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
	budget := bigBudget(entities, messages, s.rt.Timeout)
	reply, err := s.micro("big-run-"+newID(), &actors.MicroCall{Op: "big", Entities: entities, Messages: messages, Seed: int64(seed), Budget: int64(budget)}, budget+s.rt.Timeout)
	if err != nil {
		return nil, err
	}
	return map[string]any{"entities": entities, "messages": messages, "delivered": reply.Received,
		"totalNs": reply.TotalNs, "handlerNs": reply.HandlerNs}, nil
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
