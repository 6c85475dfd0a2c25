package grains

import (
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
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

// big coordinates one many-to-many round: every entity is told how many
// messages it will receive and answers once they all arrived; then every
// entity sends its share, one-way, to random others.
func (g *microGrain) big(c *MicroCall, budget time.Duration) *MicroReply {
	n, round := c.Entities, g.id
	expect := make([]int, n)
	share := func(i int) int {
		s := c.Messages / n
		if i < c.Messages%n {
			s++
		}
		return s
	}
	for i := 0; i < n; i++ {
		BigTargets(c.Seed, i, n, share(i), func(j int) { expect[j]++ })
	}
	awaits := make(chan *MicroReply, n)
	for j := 0; j < n; j++ {
		go func(j int) {
			awaits <- g.rt.callMicro(fmt.Sprintf("big-%d", j), &MicroCall{Op: "bigAwait", Round: round, Expect: expect[j]}, budget)
		}(j)
	}
	start := time.Now()
	sends := make(chan *MicroReply, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			sends <- g.rt.callMicro(fmt.Sprintf("big-%d", i),
				&MicroCall{Op: "bigSend", Round: round, Index: i, Count: share(i), Entities: n, Seed: c.Seed}, budget)
		}(i)
	}
	var fail *MicroReply
	for i := 0; i < n; i++ {
		if r := <-sends; r.Status != 0 && fail == nil {
			fail = r
		}
	}
	var delivered int64
	for j := 0; j < n; j++ {
		r := <-awaits
		if r.Status != 0 && fail == nil {
			fail = r
		}
		delivered += r.Received
	}
	if fail != nil {
		return fail
	}
	return &MicroReply{Received: delivered, TotalNs: time.Since(start).Nanoseconds()}
}

// bigSend sends this entity's share of a round, one-way, to the entities BigTargets draws.
func (g *microGrain) bigSend(ctx actor.Context, c *MicroCall) {
	msg := encode(&MicroCall{Op: "bigMsg", Round: c.Round})
	BigTargets(c.Seed, c.Index, c.Entities, c.Count, func(j int) {
		id := fmt.Sprintf("big-%d", j)
		pid, _ := g.rt.Cluster.PidCache.Get(id, KindMicro)
		if pid == nil {
			if pid = g.rt.Cluster.Get(id, KindMicro); pid == nil {
				return // not placed: the message is lost (at-most-once), and the round's await times out
			}
			g.rt.Cluster.PidCache.Set(id, KindMicro, pid)
		}
		ctx.Send(pid, msg)
	})
}

// bigCount adds received messages of a round and answers the round's await once it has them all.
func (g *microGrain) bigCount(ctx actor.Context, round string, add int) {
	if g.bigCounts == nil {
		g.bigCounts = map[string]int{}
	}
	g.bigCounts[round] += add
	w, ok := g.bigWaiters[round]
	if !ok || g.bigCounts[round] < w.expect {
		return
	}
	if w.sender != nil {
		ctx.Send(w.sender, encode(&MicroReply{Received: int64(g.bigCounts[round]), HandlerNs: time.Since(w.start).Nanoseconds()}))
	}
	delete(g.bigWaiters, round)
	delete(g.bigCounts, round)
}
