package grains

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
)

// ChecksumModulus is SPEC 8's divide checksum modulus, 2^31 - 1.
const ChecksumModulus = 1<<31 - 1

// divide: the root (Items nil) generates the input from the seed; every entity
// sorts a slice of at most leaf items itself, or splits it into fanout parts,
// sends each to a new child entity and merges their sorted answers.
func (g *microGrain) divide(c *MicroCall, budget time.Duration) *MicroReply {
	root := c.Items == nil
	items := c.Items
	if root {
		items = DivideInput(c.Count, c.Seed)
	}
	start := time.Now()
	sorted, entities, fail := g.divideSlice(items, c, budget)
	if fail != nil {
		return fail
	}
	if !root {
		return &MicroReply{Sorted: sorted, Entities: entities}
	}
	total := time.Since(start).Nanoseconds()
	var sum int64
	for i, v := range sorted {
		sum = (sum + int64(v)*int64(i+1)) % ChecksumModulus
	}
	return &MicroReply{First: sorted[0], Last: sorted[len(sorted)-1], Checksum: sum, Entities: entities, TotalNs: total}
}

func (g *microGrain) divideSlice(items []int32, c *MicroCall, budget time.Duration) ([]int32, int, *MicroReply) {
	if len(items) <= c.Leaf {
		out := slices.Clone(items)
		slices.Sort(out)
		return out, 1, nil
	}
	parts := c.Fanout
	replies := make([]*MicroReply, parts)
	done := make(chan struct{}, parts)
	for i := 0; i < parts; i++ {
		lo, hi := len(items)*i/parts, len(items)*(i+1)/parts
		go func(i int) {
			replies[i] = g.rt.callMicro(fmt.Sprintf("%s.%d", g.id, i),
				&MicroCall{Op: "divide", Items: items[lo:hi], Fanout: c.Fanout, Leaf: c.Leaf, Budget: c.Budget}, budget)
			done <- struct{}{}
		}(i)
	}
	for i := 0; i < parts; i++ {
		<-done
	}
	entities := 1
	runs := make([][]int32, 0, parts)
	for _, r := range replies {
		if r.Status != 0 {
			return nil, 0, r
		}
		entities += r.Entities
		runs = append(runs, r.Sorted)
	}
	return mergeRuns(runs, len(items)), entities, nil
}

// mergeRuns merges sorted runs pairwise (fan-in of the children's answers).
func mergeRuns(runs [][]int32, n int) []int32 {
	for len(runs) > 1 {
		next := make([][]int32, 0, (len(runs)+1)/2)
		for i := 0; i+1 < len(runs); i += 2 {
			a, b := runs[i], runs[i+1]
			m := make([]int32, 0, len(a)+len(b))
			x, y := 0, 0
			for x < len(a) && y < len(b) {
				if a[x] <= b[y] {
					m = append(m, a[x])
					x++
				} else {
					m = append(m, b[y])
					y++
				}
			}
			m = append(append(m, a[x:]...), b[y:]...)
			next = append(next, m)
		}
		if len(runs)%2 == 1 {
			next = append(next, runs[len(runs)-1])
		}
		runs = next
	}
	if len(runs) == 0 {
		return make([]int32, 0, n)
	}
	return runs[0]
}

// big coordinates one many-to-many round in three steps: every entity is
// activated; every entity sends its share to random others; every entity
// reports how many it received. totalNs covers the last two steps.
func (g *microGrain) big(c *MicroCall, budget time.Duration) *MicroReply {
	n, round := c.Entities, g.id
	if fail := g.everyBig(n, budget, func(int) *MicroCall { return &MicroCall{Op: "bigReady", Budget: c.Budget} }, nil); fail != nil {
		return fail
	}
	start := time.Now()
	if fail := g.everyBig(n, budget, func(i int) *MicroCall {
		s := c.Messages / n
		if i < c.Messages%n {
			s++
		}
		return &MicroCall{Op: "bigSend", Round: round, Index: i, Count: s, Entities: n, Seed: c.Seed, Budget: c.Budget}
	}, nil); fail != nil {
		return fail
	}
	var delivered int64
	if fail := g.everyBig(n, budget, func(int) *MicroCall { return &MicroCall{Op: "bigCollect", Round: round, Budget: c.Budget} },
		func(_ int, r *MicroReply) { delivered += r.Received }); fail != nil {
		return fail
	}
	return &MicroReply{Received: delivered, TotalNs: time.Since(start).Nanoseconds()}
}

// everyBig sends call(i) to every big-i concurrently and waits for all answers; the first failure is returned.
func (g *microGrain) everyBig(n int, budget time.Duration, call func(i int) *MicroCall, each func(i int, r *MicroReply)) *MicroReply {
	type answer struct {
		i int
		r *MicroReply
	}
	answers := make(chan answer, n)
	for i := 0; i < n; i++ {
		go func(i int) { answers <- answer{i, g.rt.callMicro(fmt.Sprintf("big-%d", i), call(i), budget)} }(i)
	}
	var fail *MicroReply
	for k := 0; k < n; k++ {
		a := <-answers
		if a.r.Status != 0 && fail == nil {
			fail = a.r
		}
		if a.r.Status == 0 && each != nil {
			each(a.i, a.r)
		}
	}
	return fail
}

// bigWindow is how many of its messages a big entity has in flight at once.
// Each message is acknowledged by its receiver once counted: without that
// back-pressure, 10,000 entities put a million messages into the remoting
// queues at once, and the members' gossip and health checks starve behind them
// until the cluster drops a member.
const bigWindow = 2

// bigSend sends this entity's share of a round to the entities BigTargets
// draws, bigWindow at a time, and answers when every one was received. It
// waits with ReenterAfter, so the entity goes on receiving (and acknowledging)
// the messages the others send it meanwhile.
func (g *microGrain) bigSend(ctx actor.Context, c *MicroCall, start time.Time) {
	sender := ctx.Sender()
	targets := make([]int, 0, c.Count)
	BigTargets(c.Seed, c.Index, c.Entities, c.Count, func(j int) { targets = append(targets, j) })
	msg := encode(&MicroCall{Op: "bigMsg", Round: c.Round, Budget: c.Budget})
	next, inFlight := 0, 0
	// a message that hit a dead letter (the receiver's activation was passivating
	// or moved) was certainly not counted: it is sent again to a fresh activation,
	// as Runtime.request does, up to maxAttempts times
	deadLetters := map[int]int{}
	var failure *MicroReply
	var pump func()
	pump = func() {
		for failure == nil && inFlight < bigWindow && next < len(targets) {
			j := targets[next]
			id := fmt.Sprintf("big-%d", j)
			next++
			pid := g.rt.pid(KindMicro, id)
			if pid == nil {
				failure = microFail(503, "unavailable", "%s could not be placed", id)
				break
			}
			inFlight++
			ctx.ReenterAfter(ctx.RequestFuture(pid, msg, time.Duration(c.Budget)), func(_ any, err error) {
				inFlight--
				if (errors.Is(err, actor.ErrDeadLetter) || errors.Is(err, remote.ErrDeadLetter)) && deadLetters[j] < maxAttempts {
					deadLetters[j]++
					g.rt.Cluster.PidCache.Remove(id, KindMicro)
					targets = append(targets, j)
					err = nil
				}
				if err != nil && failure == nil {
					failure = MicroErrorReply(fmt.Errorf("%s bigMsg: %w", id, err))
				}
				pump()
			})
		}
		if inFlight > 0 || (failure == nil && next < len(targets)) {
			return
		}
		reply := failure
		if reply == nil {
			reply = &MicroReply{HandlerNs: time.Since(start).Nanoseconds()}
		}
		if sender != nil {
			ctx.Send(sender, encode(reply))
		}
	}
	pump()
}
