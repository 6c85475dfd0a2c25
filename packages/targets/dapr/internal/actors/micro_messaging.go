package actors

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// ChecksumModulus is SPEC 8's divide checksum modulus, 2^31 - 1.
const ChecksumModulus = 1<<31 - 1

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

// divide: the root (Items nil) generates the input from the seed; every entity
// sorts a slice of at most leaf items itself, or splits it into fanout parts,
// sends each to a new child entity and merges their sorted answers.
func (a *Micro) divide(id string, c *MicroCall, budget time.Duration) *MicroReply {
	root := c.Items == nil
	items := c.Items
	if root {
		items = DivideInput(c.Count, c.Seed)
	}
	start := time.Now()
	sorted, entities, fail := a.divideSlice(id, items, c, budget)
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

func (a *Micro) divideSlice(id string, items []int32, c *MicroCall, budget time.Duration) ([]int32, int, *MicroReply) {
	if len(items) <= c.Leaf {
		out := slices.Clone(items)
		slices.Sort(out)
		return out, 1, nil
	}
	parts := c.Fanout
	replies := make([]*MicroReply, parts)
	var wg sync.WaitGroup
	for i := 0; i < parts; i++ {
		lo, hi := len(items)*i/parts, len(items)*(i+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = a.rt.callMicro(fmt.Sprintf("%s.%d", id, i),
				&MicroCall{Op: "divide", Items: items[lo:hi], Fanout: c.Fanout, Leaf: c.Leaf, Budget: c.Budget}, budget, "")
		}()
	}
	wg.Wait()
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
			x, y := runs[i], runs[i+1]
			m := make([]int32, 0, len(x)+len(y))
			p, q := 0, 0
			for p < len(x) && q < len(y) {
				if x[p] <= y[q] {
					m = append(m, x[p])
					p++
				} else {
					m = append(m, y[q])
					q++
				}
			}
			m = append(append(m, x[p:]...), y[q:]...)
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

// BigTargets is the receiver sequence of big-index: count entities other than itself, drawn from a PCG seeded with (seed, index).
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

// big coordinates one many-to-many round in three steps: every entity is
// activated; every entity sends its share to random others; every entity
// reports how many it received. totalNs covers the last two steps.
//
// Every call of a round carries the round's id as its Dapr reentrancy id.
// Dapr runs one call of an actor at a time; big-i sending (a call that lasts
// until its messages were received) and big-j sending to big-i would wait for
// each other forever. Calls of one reentrancy chain may enter an actor that a
// call of the same chain holds, so receiving goes on while an entity sends.
func (a *Micro) big(round string, c *MicroCall, budget time.Duration) *MicroReply {
	n := c.Entities
	if fail := a.everyBig(n, budget, round, func(int) *MicroCall { return &MicroCall{Op: "bigReady"} }, nil); fail != nil {
		return fail
	}
	start := time.Now()
	if fail := a.everyBig(n, budget, round, func(i int) *MicroCall {
		s := c.Messages / n
		if i < c.Messages%n {
			s++
		}
		return &MicroCall{Op: "bigSend", Round: round, Index: i, Count: s, Entities: n, Seed: c.Seed, Budget: c.Budget}
	}, nil); fail != nil {
		return fail
	}
	var delivered int64
	var mu sync.Mutex
	if fail := a.everyBig(n, budget, round, func(int) *MicroCall { return &MicroCall{Op: "bigCollect", Round: round} },
		func(_ int, r *MicroReply) { mu.Lock(); delivered += r.Received; mu.Unlock() }); fail != nil {
		return fail
	}
	return &MicroReply{Received: delivered, TotalNs: time.Since(start).Nanoseconds()}
}

// bigParallel bounds the coordinator's concurrent calls (one per entity, up to 10,000 entities).
const bigParallel = 64

// everyBig sends call(i) to every big-i, at most bigParallel at once, and waits for all answers; the first failure is returned.
func (a *Micro) everyBig(n int, budget time.Duration, round string, call func(i int) *MicroCall, each func(i int, r *MicroReply)) *MicroReply {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		fail *MicroReply
	)
	sem := make(chan struct{}, bigParallel)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r := a.rt.callMicro(fmt.Sprintf("big-%d", i), call(i), budget, round)
			if r.Status != 0 {
				mu.Lock()
				if fail == nil {
					fail = r
				}
				mu.Unlock()
				return
			}
			if each != nil {
				each(i, r)
			}
		}()
	}
	wg.Wait()
	return fail
}

// bigWindow is how many of its messages a big entity has in flight at once:
// each message is a Dapr actor call, answered once its receiver counted it.
const bigWindow = 2

// bigSend sends this entity's share of a round to the entities BigTargets
// draws, bigWindow at a time, and answers when every one was received.
func (a *Micro) bigSend(c *MicroCall, budget time.Duration) *MicroReply {
	targets := make([]int, 0, c.Count)
	BigTargets(c.Seed, c.Index, c.Entities, c.Count, func(j int) { targets = append(targets, j) })
	work := make(chan int)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		fail *MicroReply
	)
	per := min(a.rt.Timeout, budget)
	for w := 0; w < bigWindow; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				r := a.rt.callMicro(fmt.Sprintf("big-%d", j), &MicroCall{Op: "bigMsg", Round: c.Round}, per, c.Round)
				if r.Status != 0 {
					mu.Lock()
					if fail == nil {
						fail = r
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range targets {
		work <- j
	}
	close(work)
	wg.Wait()
	if fail != nil {
		return fail
	}
	return &MicroReply{}
}
