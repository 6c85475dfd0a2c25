package grains

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// KindMicro is the grain kind of the microbenchmark entities (SPEC 8): the
// invocation-overhead entities (keyed by ?key=, default "micro"), ping-i and
// pong-i, big-i, and one coordinator per messaging request.
const KindMicro = "micro"

// MicroCall is a request to a micro grain (JSON in a protobuf BytesValue, like Call).
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
	// Budget is how long the grain may wait on the grains it calls (nanoseconds); it scales with the request.
	Budget int64 `json:"budget,omitempty"`
}

// MicroReply is a micro grain's answer; Status 0 is success, as in Reply.
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

// MicroErrorReply turns a failed grain request into a reply: 504 when it timed out, 503 when unreachable.
func MicroErrorReply(err error) *MicroReply {
	switch {
	case errors.Is(err, actor.ErrTimeout):
		return microFail(504, "timeout", "%v", err)
	case errors.Is(err, ErrUnavailable):
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

// DivideInput is SPEC 8's divide input: x0 = seed, x(k+1) = (1103515245 x(k) + 12345) mod 2^31, x(1..items) mod 1,000,000.
func DivideInput(items int, seed int64) []int32 {
	out := make([]int32, items)
	x := seed
	for i := range out {
		x = (1103515245*x + 12345) % (1 << 31)
		out[i] = int32(x % 1_000_000)
	}
	return out
}

// BigTargets is the receiver sequence of big-index: count entities other than itself, drawn from a PCG seeded with (seed, index).
// Senders and the coordinator draw the same sequence, so the coordinator knows how many messages each entity must receive.
func BigTargets(seed int64, index, entities, count int, visit func(target int)) {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(index)))
	for k := 0; k < count; k++ {
		j := rng.IntN(entities - 1)
		if j >= index {
			j++
		}
		visit(j)
	}
}

// RequestMicro sends a MicroCall to micro grain id and waits up to timeout for its answer (retrying only undelivered requests, as Call).
func (rt *Runtime) RequestMicro(id string, c *MicroCall, timeout time.Duration) (*MicroReply, error) {
	res, err := rt.request(KindMicro, id, encode(c), c.Op, timeout)
	if err != nil {
		return nil, err
	}
	b, ok := res.(*wrapperspb.BytesValue)
	if !ok {
		return nil, fmt.Errorf("micro grain answered %T, want a BytesValue", res)
	}
	var r MicroReply
	if err := json.Unmarshal(b.GetValue(), &r); err != nil {
		return nil, fmt.Errorf("micro grain answer: %w", err)
	}
	return &r, nil
}

// callMicro is RequestMicro for grain-to-grain requests: a failure becomes a reply.
func (rt *Runtime) callMicro(id string, c *MicroCall, timeout time.Duration) *MicroReply {
	r, err := rt.RequestMicro(id, c, timeout)
	if err != nil {
		return MicroErrorReply(err)
	}
	return r
}

// microGrain is one micro entity. Unlike the shop grains it has no persisted
// state of its own (io writes through the store) and it may answer later than
// its turn (sleep, big's await), so it is an actor of its own.
type microGrain struct {
	rt *Runtime
	id string
	// big: messages received per round
	bigCounts map[string]int
}

// holdForRound keeps a big entity active while its round may still need it:
// the messages it counted are in memory only, and a bigSend waits on its
// messages' answers, which arrive as continuations that do not count as
// messages for the idle timer. Passivated in the middle of a round, an entity
// would lose its count or never answer bigSend. It is let go after bigCollect,
// or after the round's budget when the coordinator gave up.
func (g *microGrain) holdForRound(ctx actor.Context, budget time.Duration) {
	if g.rt.Idle > 0 {
		ctx.SetReceiveTimeout(max(g.rt.Idle, budget))
	}
}

func (g *microGrain) releaseAfterRound(ctx actor.Context) {
	if g.rt.Idle > 0 && len(g.bigCounts) == 0 {
		ctx.SetReceiveTimeout(g.rt.Idle)
	}
}

func (g *microGrain) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *cluster.ClusterInit:
		g.id = msg.Identity.Identity
		if g.rt.Idle > 0 {
			ctx.SetReceiveTimeout(g.rt.Idle)
		}
	case *actor.ReceiveTimeout:
		ctx.Stop(ctx.Self())
	case *wrapperspb.BytesValue:
		start := time.Now()
		var c MicroCall
		if err := json.Unmarshal(msg.GetValue(), &c); err != nil {
			ctx.Respond(encode(microFail(400, "bad-request", "micro grain message: %v", err)))
			return
		}
		g.receive(ctx, &c, start)
	}
}

func (g *microGrain) receive(ctx actor.Context, c *MicroCall, start time.Time) {
	answer := func(r *MicroReply) {
		if r.Status == 0 {
			r.HandlerNs = time.Since(start).Nanoseconds()
		}
		ctx.Respond(encode(r))
	}
	budget := time.Duration(c.Budget)
	switch c.Op {
	case "empty":
		answer(&MicroReply{})
	case "math":
		inside := 0
		for i := 0; i < c.N; i++ {
			x, y := rand.Float64(), rand.Float64()
			if x*x+y*y <= 1 {
				inside++
			}
		}
		answer(&MicroReply{Pi: 4 * float64(inside) / float64(c.N)})
	case "sleep":
		// The answer is sent by a timer, so the grain takes its next message at once.
		sender, root := ctx.Sender(), g.rt.Cluster.ActorSystem.Root
		time.AfterFunc(time.Duration(c.Ms)*time.Millisecond, func() {
			if sender != nil {
				root.Send(sender, encode(&MicroReply{HandlerNs: time.Since(start).Nanoseconds()}))
			}
		})
	case "io":
		answer(g.io(c))
	case "pingpong":
		answer(g.pingpong(c, budget))
		ctx.Stop(ctx.Self()) // a coordinator serves one request
	case "ping":
		answer(g.ping(c, budget))
	case "pong":
		answer(&MicroReply{Payload: c.Payload})
	case "divide":
		r := g.divide(c, budget)
		answer(r)
		// A divide entity serves one request; it leaves once it answered.
		ctx.Stop(ctx.Self())
	case "big":
		answer(g.big(c, budget))
		ctx.Stop(ctx.Self()) // a coordinator serves one request
	case "bigReady":
		g.holdForRound(ctx, budget)
		answer(&MicroReply{})
	case "bigSend":
		g.holdForRound(ctx, budget)
		g.bigSend(ctx, c, start)
	case "bigMsg":
		g.holdForRound(ctx, budget)
		if g.bigCounts == nil {
			g.bigCounts = map[string]int{}
		}
		g.bigCounts[c.Round]++
		answer(&MicroReply{})
	case "bigCollect":
		n := g.bigCounts[c.Round]
		delete(g.bigCounts, c.Round)
		g.releaseAfterRound(ctx)
		answer(&MicroReply{Received: int64(n)})
	default:
		ctx.Respond(encode(microFail(400, "bad-request", "micro grain: unknown op %q", c.Op)))
	}
}

func (g *microGrain) io(c *MicroCall) *MicroReply {
	ctx, cancel := context.WithTimeout(context.Background(), g.rt.Timeout)
	defer cancel()
	if err := g.rt.Store.WriteMicro(ctx, g.id, Pattern(c.Bytes)); err != nil {
		return microFail(503, "unavailable", "writing micro payload %s: %v", g.id, err)
	}
	read, err := g.rt.Store.ReadMicro(ctx, g.id)
	if err != nil {
		return microFail(503, "unavailable", "reading micro payload %s: %v", g.id, err)
	}
	sum := sha256.Sum256(read)
	return &MicroReply{Sha256: hex.EncodeToString(sum[:])}
}

// pingpong coordinates one request: every pair's ping runs its round trips concurrently.
func (g *microGrain) pingpong(c *MicroCall, budget time.Duration) *MicroReply {
	replies := make([]*MicroReply, c.Pairs)
	done := make(chan int, c.Pairs)
	for i := range replies {
		go func(i int) {
			replies[i] = g.rt.callMicro(fmt.Sprintf("ping-%d", i), &MicroCall{Op: "ping", Index: i, Messages: c.Messages, Bytes: c.Bytes, Budget: c.Budget}, budget)
			done <- i
		}(i)
	}
	out := &MicroReply{Histogram: make([]int64, len(HistogramBounds)+1)}
	var first, last int64
	for range replies {
		r := replies[<-done]
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
func (g *microGrain) ping(c *MicroCall, budget time.Duration) *MicroReply {
	pong := fmt.Sprintf("pong-%d", c.Index)
	payload := Pattern(c.Bytes)
	hist := make([]int64, len(HistogramBounds)+1)
	startWall := time.Now()
	// A round trip may take what is left of the request's budget, not a grain
	// request's 10 s: with 64 pairs of 64 KiB round trips sharing one stream
	// between the members, a starved machine held single round trips past 10 s
	// while the request as a whole stayed well within its budget.
	deadline := startWall.Add(budget)
	for k := 0; k < c.Messages; k++ {
		t := time.Now()
		per := deadline.Sub(t)
		if per <= 0 {
			return microFail(504, "timeout", "%s: the budget of %s ran out after %d of %d round trips", pong, budget, k, c.Messages)
		}
		r, err := g.rt.RequestMicro(pong, &MicroCall{Op: "pong", Payload: payload}, per)
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
