package actors

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	runtimev1pb "github.com/dapr/dapr/pkg/proto/runtime/v1"
)

// KindMicro is the actor type of the microbenchmark entities (SPEC 8): the
// invocation-overhead entities (keyed by ?key=, default "micro"), ping-i and
// pong-i, the divide nodes, big-i, and one coordinator per messaging request.
const KindMicro = "micro"

// MicroMethod is the micro actor's method (Handle stays the shop actors').
const MicroMethod = "Micro"

// MicroCall is a request to a micro actor.
type MicroCall struct {
	Op       string  `json:"op"`
	N        int     `json:"n,omitempty"`
	Ms       int     `json:"ms,omitempty"`
	Bytes    int     `json:"bytes,omitempty"`
	Pairs    int     `json:"pairs,omitempty"`
	Messages int     `json:"messages,omitempty"`
	Payload  []byte  `json:"payload,omitempty"`
	Items    []int32 `json:"items,omitempty"`
	Count    int     `json:"count,omitempty"`
	Fanout   int     `json:"fanout,omitempty"`
	Leaf     int     `json:"leaf,omitempty"`
	Seed     int64   `json:"seed,omitempty"`
	Entities int     `json:"entities,omitempty"`
	Index    int     `json:"index,omitempty"`
	Round    string  `json:"round,omitempty"`
	// Budget is how long the actor may wait on the actors it calls (nanoseconds); it scales with the request.
	Budget int64 `json:"budget,omitempty"`
}

// MicroReply is a micro actor's answer; Status 0 is success, as in Reply.
type MicroReply struct {
	Status    int     `json:"status,omitempty"`
	Code      string  `json:"code,omitempty"`
	Message   string  `json:"message,omitempty"`
	HandlerNs int64   `json:"handlerNs"`
	TotalNs   int64   `json:"totalNs,omitempty"`
	Pi        float64 `json:"pi,omitempty"`
	Sha256    string  `json:"sha256,omitempty"`
	Payload   []byte  `json:"payload,omitempty"`
	// Histogram counts round trips per HistogramBounds bucket, the last one for longer ones.
	Histogram []int64 `json:"histogram,omitempty"`
	StartWall int64   `json:"startWall,omitempty"`
	EndWall   int64   `json:"endWall,omitempty"`
	Sorted    []int32 `json:"sorted,omitempty"`
	Entities  int     `json:"entities,omitempty"`
	First     int32   `json:"first,omitempty"`
	Last      int32   `json:"last,omitempty"`
	Checksum  int64   `json:"checksum,omitempty"`
	Messages  int64   `json:"messages,omitempty"`
	Received  int64   `json:"received,omitempty"`
}

func microFail(status int, code, format string, args ...any) *MicroReply {
	return &MicroReply{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// MicroErrorReply turns a failed actor call into a reply: 503 when the actor could not be reached in time.
func MicroErrorReply(err error) *MicroReply {
	if errors.Is(err, ErrUnavailable) {
		return microFail(503, "unavailable", "%v", err)
	}
	return microFail(500, "internal", "%v", err)
}

// HistogramBounds are SPEC 8's round-trip upper bounds: 1, 2, 5 x 10^k ns for k = 3..9.
var HistogramBounds = func() []int64 {
	var b []int64
	for p := int64(1000); p <= 1_000_000_000; p *= 10 {
		b = append(b, p, 2*p, 5*p)
	}
	return b
}()

func bucket(ns int64) int {
	for i, b := range HistogramBounds {
		if ns <= b {
			return i
		}
	}
	return len(HistogramBounds)
}

// Pattern is SPEC 8's ASCII payload: byte i is 'a' + i mod 26.
func Pattern(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte('a' + i%26)
	}
	return p
}

// RequestMicro invokes micro actor id and waits up to timeout for its answer.
// chain, when not empty, is the Dapr reentrancy id of the call: every call of
// one chain may enter a micro actor while another call of the chain is in it
// (README: "Micro routes").
func (rt *Runtime) RequestMicro(id string, c *MicroCall, timeout time.Duration, chain string) (*MicroReply, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	req := &runtimev1pb.InvokeActorRequest{ActorType: KindMicro, ActorId: ActorID(id), Method: MicroMethod, Data: data}
	if chain != "" {
		req.Metadata = map[string]string{"Dapr-Reentrancy-Id": chain}
	}
	var last error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt*attempt) * 25 * time.Millisecond)
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		res, err := rt.Client.GrpcClient().InvokeActor(ctx, req)
		cancel()
		if err == nil {
			var r MicroReply
			if err := json.Unmarshal(res.GetData(), &r); err != nil {
				return nil, fmt.Errorf("micro/%s answer: %w", id, err)
			}
			return &r, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: micro/%s %s: no answer within %s: %v", ErrUnavailable, id, c.Op, timeout, err)
		}
		if !notPlaced(err) {
			return nil, fmt.Errorf("micro/%s %s: %w", id, c.Op, err)
		}
		last = fmt.Errorf("%w: micro/%s: %v", ErrUnavailable, id, err)
	}
	return nil, last
}

// callMicro is RequestMicro for actor-to-actor requests: a failure becomes a reply.
func (rt *Runtime) callMicro(id string, c *MicroCall, timeout time.Duration, chain string) *MicroReply {
	r, err := rt.RequestMicro(id, c, timeout, chain)
	if err != nil {
		return MicroErrorReply(err)
	}
	return r
}

// Micro is one micro entity. Its calls may overlap (sleep, big: reentrant
// chains), so what it keeps in memory is behind a mutex.
type Micro struct {
	base
	mu sync.Mutex
	// big: messages received per round
	bigCounts map[string]int
}

func (a *Micro) Type() string { return KindMicro }

// Micro is the actor's one method (MicroCall.Op names the operation).
func (a *Micro) Micro(_ context.Context, c *MicroCall) (*MicroReply, error) {
	start := time.Now()
	if c == nil {
		return microFail(400, "bad-request", "micro: empty call"), nil
	}
	r := a.receive(c)
	if r.Status == 0 {
		r.HandlerNs = time.Since(start).Nanoseconds()
	}
	return r, nil
}

func (a *Micro) receive(c *MicroCall) *MicroReply {
	id := EntityID(a.ID())
	budget := time.Duration(c.Budget)
	switch c.Op {
	case "empty":
		return &MicroReply{}
	case "math":
		inside := 0
		for i := 0; i < c.N; i++ {
			x, y := rand.Float64(), rand.Float64()
			if x*x+y*y <= 1 {
				inside++
			}
		}
		return &MicroReply{Pi: 4 * float64(inside) / float64(c.N)}
	case "sleep":
		time.Sleep(time.Duration(c.Ms) * time.Millisecond)
		return &MicroReply{}
	case "io":
		return a.io(c)
	case "pingpong":
		return a.pingpong(c, budget)
	case "ping":
		return a.ping(c, budget)
	case "pong":
		return &MicroReply{Payload: c.Payload}
	case "divide":
		return a.divide(id, c, budget)
	case "big":
		return a.big(id, c, budget)
	case "bigReady":
		return &MicroReply{}
	case "bigSend":
		return a.bigSend(c, budget)
	case "bigMsg":
		a.mu.Lock()
		if a.bigCounts == nil {
			a.bigCounts = map[string]int{}
		}
		a.bigCounts[c.Round]++
		a.mu.Unlock()
		return &MicroReply{}
	case "bigCollect":
		a.mu.Lock()
		n := a.bigCounts[c.Round]
		delete(a.bigCounts, c.Round)
		a.mu.Unlock()
		return &MicroReply{Received: int64(n)}
	}
	return microFail(400, "bad-request", "micro: unknown op %q", c.Op)
}

// io writes the payload into this actor's state (key "io", the actor state
// store the shop actors use, committed) and reads it back before hashing.
func (a *Micro) io(c *MicroCall) *MicroReply {
	rt, actorID := a.rt, a.ID()
	if err := rt.commit(KindMicro, actorID, set("io", string(Pattern(c.Bytes)))); err != nil {
		return microFail(503, "unavailable", "writing micro payload: %v", err)
	}
	var read string
	found, err := rt.load(KindMicro, actorID, "io", &read)
	if err != nil || !found {
		return microFail(503, "unavailable", "reading micro payload back: found=%v %v", found, err)
	}
	sum := sha256.Sum256([]byte(read))
	return &MicroReply{Sha256: hex.EncodeToString(sum[:])}
}

// pingpong coordinates one request: every pair's ping runs its round trips concurrently.
func (a *Micro) pingpong(c *MicroCall, budget time.Duration) *MicroReply {
	replies := make([]*MicroReply, c.Pairs)
	var wg sync.WaitGroup
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = a.rt.callMicro(fmt.Sprintf("ping-%d", i), &MicroCall{Op: "ping", Index: i, Messages: c.Messages, Bytes: c.Bytes, Budget: c.Budget}, budget, "")
		}()
	}
	wg.Wait()
	out := &MicroReply{Histogram: make([]int64, len(HistogramBounds)+1)}
	var first, last int64
	for _, r := range replies {
		if r.Status != 0 {
			return r
		}
		for b, n := range r.Histogram {
			out.Histogram[b] += n
			out.Messages += n
		}
		if first == 0 || r.StartWall < first {
			first = r.StartWall
		}
		if r.EndWall > last {
			last = r.EndWall
		}
	}
	out.TotalNs = last - first
	return out
}

// ping sends its round trips to its pong one after another and times each.
func (a *Micro) ping(c *MicroCall, budget time.Duration) *MicroReply {
	pong := fmt.Sprintf("pong-%d", c.Index)
	payload := Pattern(c.Bytes)
	hist := make([]int64, len(HistogramBounds)+1)
	startWall := time.Now()
	per := min(a.rt.Timeout, budget)
	for k := 0; k < c.Messages; k++ {
		t := time.Now()
		r, err := a.rt.RequestMicro(pong, &MicroCall{Op: "pong", Payload: payload}, per, "")
		if err != nil {
			return MicroErrorReply(err)
		}
		if r.Status != 0 {
			return r
		}
		rtt := time.Since(t).Nanoseconds()
		if len(r.Payload) != len(payload) {
			return microFail(500, "internal", "%s sent back %d bytes, want %d", pong, len(r.Payload), len(payload))
		}
		hist[bucket(rtt)]++
	}
	end := startWall.UnixNano() + time.Since(startWall).Nanoseconds()
	return &MicroReply{Histogram: hist, StartWall: startWall.UnixNano(), EndWall: end}
}
