package actors

import "sync"

// MaxVisits bounds one freq-items query: larger ones are refused with 400
// rather than run for minutes (as node-postgres does).
const MaxVisits = 100_000

// concurrency of the top() requests of one query
const freqParallel = 64

// siblings are the children of one visit: they share the exclusion set V' = V ∪ C.
type siblings struct {
	exclude []string
	members []string
}

// FreqItems answers visit(root, depth, {root}) of SPEC 2.2.
//
// The traversal is coordinated here, outside any actor, level by level: each
// product actor only answers top(n, V) from its own counts and never calls
// another actor. An actor that waited for other actors' answers inside its
// message loop would deadlock on a cycle (p asks q, q asks p, both busy);
// here a product visited by several branches at once just answers several
// top() requests one after the other.
func (rt *Runtime) FreqItems(root string, top, depth int, trace *TraceLink) ([]string, *Reply) {
	first := rt.must(KindProduct, root, &Call{Op: "top", Top: top, Exclude: []string{root}, Trace: trace})
	if first.Status != 0 {
		return nil, first
	}
	answer := map[string]struct{}{}
	for _, q := range first.Ids {
		answer[q] = struct{}{}
	}
	var level []siblings
	if len(first.Ids) > 0 {
		level = []siblings{{exclude: append([]string{root}, first.Ids...), members: first.Ids}}
	}
	visits := 1
	for remaining := depth - 1; remaining >= 1 && len(level) > 0; remaining-- {
		for _, s := range level {
			visits += len(s.members)
		}
		if visits > MaxVisits {
			return nil, fail(400, "bad-request", "top=%d&depth=%d would visit more than %d products", top, depth, MaxVisits)
		}
		tops, failure := rt.topOfLevel(level, top, trace)
		if failure != nil {
			return nil, failure
		}
		var next []siblings
		for g, s := range level {
			for m := range s.members {
				c := tops[g][m]
				for _, q := range c {
					answer[q] = struct{}{}
				}
				if remaining > 1 && len(c) > 0 {
					ex := make([]string, 0, len(s.exclude)+len(c))
					next = append(next, siblings{exclude: append(append(ex, s.exclude...), c...), members: c})
				}
			}
		}
		level = next
	}
	ids := make([]string, 0, len(answer))
	for q := range answer {
		ids = append(ids, q)
	}
	return ids, nil
}

// topOfLevel asks every member of every group for top(n, group's V), at most freqParallel at once.
func (rt *Runtime) topOfLevel(level []siblings, n int, trace *TraceLink) ([][][]string, *Reply) {
	tops := make([][][]string, len(level))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		failure *Reply
	)
	sem := make(chan struct{}, freqParallel)
	for g, s := range level {
		tops[g] = make([][]string, len(s.members))
		for m, p := range s.members {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				r := rt.must(KindProduct, p, &Call{Op: "top", Top: n, Exclude: s.exclude, Trace: trace})
				if r.Status != 0 {
					mu.Lock()
					if failure == nil {
						failure = fail(500, "internal", "top(%s): %s", p, r.Message)
						if r.Status == 503 {
							failure.Status, failure.Code = 503, "unavailable"
						}
					}
					mu.Unlock()
					return
				}
				tops[g][m] = r.Ids
			}()
		}
	}
	wg.Wait()
	if failure != nil {
		return nil, failure
	}
	return tops, nil
}
