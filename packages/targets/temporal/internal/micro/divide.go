package micro

import (
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"
)

// DivideInput is one /micro/divide request.
type DivideInput struct {
	Items  int   `json:"items"`
	Fanout int   `json:"fanout"`
	Leaf   int   `json:"leaf"`
	Seed   int64 `json:"seed"`
}

// DivideResult is the sorted input's summary.
type DivideResult struct {
	First     int32 `json:"first"`
	Last      int32 `json:"last"`
	Checksum  int64 `json:"checksum"`
	Entities  int   `json:"entities"`
	TotalNs   int64 `json:"totalNs"`
	HandlerNs int64 `json:"handlerNs"`
}

// NodeInput is a divide entity's slice.
type NodeInput struct {
	Values []int32 `json:"values"`
	Fanout int     `json:"fanout"`
	Leaf   int     `json:"leaf"`
}

// NodeResult is an entity's sorted slice and how many entities sorted it.
type NodeResult struct {
	Sorted   []int32 `json:"sorted"`
	Entities int     `json:"entities"`
}

// Generate is SPEC 8's input: x(k+1) = (1103515245 x(k) + 12345) mod 2^31, values x(1..n) mod 10^6.
func Generate(seed int64, n int) []int32 {
	out := make([]int32, n)
	x := seed
	for i := range out {
		x = (1103515245*x + 12345) % (1 << 31)
		out[i] = int32(x % 1_000_000)
	}
	return out
}

// Split cuts n items into parts sizes as even as possible (they differ by at most one).
func Split(n, parts int) []int {
	sizes := make([]int, parts)
	for i := range sizes {
		sizes[i] = n / parts
		if i < n%parts {
			sizes[i]++
		}
	}
	return sizes
}

// Checksum is sum of sorted[i] * (i + 1) mod 2^31 - 1.
func Checksum(sorted []int32) int64 {
	const m = 1<<31 - 1
	var sum int64
	for i, v := range sorted {
		sum = (sum + int64(v)%m*int64(i+1)%m) % m
	}
	return sum
}

// Divide is the root entity: it generates the input and sorts it as a node.
func Divide(ctx workflow.Context, in DivideInput) (DivideResult, error) {
	begin := workflow.Now(ctx)
	r, err := node(ctx, NodeInput{Values: Generate(in.Seed, in.Items), Fanout: in.Fanout, Leaf: in.Leaf})
	if err != nil {
		return DivideResult{}, err
	}
	elapsed := workflow.Now(ctx).Sub(begin).Nanoseconds()
	return DivideResult{First: r.Sorted[0], Last: r.Sorted[len(r.Sorted)-1], Checksum: Checksum(r.Sorted),
		Entities: r.Entities, TotalNs: elapsed, HandlerNs: elapsed}, nil
}

// DivideNode is a child entity: a leaf sorts its slice, a parent sends each
// part to a child workflow of its own and merges their sorted answers.
func DivideNode(ctx workflow.Context, in NodeInput) (NodeResult, error) { return node(ctx, in) }

func node(ctx workflow.Context, in NodeInput) (NodeResult, error) {
	if len(in.Values) <= in.Leaf {
		sorted := slices.Clone(in.Values)
		slices.Sort(sorted)
		return NodeResult{Sorted: sorted, Entities: 1}, nil
	}
	self := workflow.GetInfo(ctx).WorkflowExecution.ID
	var futures []workflow.ChildWorkflowFuture
	at := 0
	for i, size := range Split(len(in.Values), in.Fanout) {
		part := NodeInput{Values: in.Values[at : at+size], Fanout: in.Fanout, Leaf: in.Leaf}
		at += size
		futures = append(futures, workflow.ExecuteChildWorkflow(childOptions(ctx, fmt.Sprintf("%s.%d", self, i)), DivideNode, part))
	}
	out := NodeResult{Entities: 1}
	parts := make([][]int32, len(futures))
	for i, f := range futures {
		var r NodeResult
		if err := f.Get(ctx, &r); err != nil {
			return out, err
		}
		parts[i] = r.Sorted
		out.Entities += r.Entities
	}
	out.Sorted = merge(parts)
	return out, nil
}

// merge merges sorted slices.
func merge(parts [][]int32) []int32 {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]int32, 0, n)
	idx := make([]int, len(parts))
	for len(out) < n {
		best := -1
		for i, p := range parts {
			if idx[i] < len(p) && (best < 0 || p[idx[i]] < parts[best][idx[best]]) {
				best = i
			}
		}
		out = append(out, parts[best][idx[best]])
		idx[best]++
	}
	return out
}
