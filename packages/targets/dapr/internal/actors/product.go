package actors

import (
	"context"
	"sort"
)

// productState is the "product" key of a product actor.
type productState struct {
	Price int64 `json:"price"`
	Stock int64 `json:"stock"`
}

// Product is the product actor: price and stock (key "product"), the
// co-purchase counts count[id][*] (key "counts"), and one key "r/<order>"
// per retraction, written in the same transaction as the stock it took, so
// that a compensation puts back exactly what its order took, once; a
// compensation leaves -1 there, which refuses the order's retraction if it
// arrives later (sent by a node that died before it was delivered).
type Product struct {
	base
	loaded, exists bool
	state          productState
	counts         map[string]int64 // nil until first needed
}

func (a *Product) Type() string { return KindProduct }

// Handle is the actor's one method (Call.Op names the operation).
func (a *Product) Handle(ctx context.Context, call *Call) (*Reply, error) {
	return a.call(ctx, KindProduct, call, a.handle, func() { a.loaded, a.exists, a.counts = false, false, nil })
}

func (a *Product) load(rt *Runtime, actorID string) error {
	if a.loaded {
		return nil
	}
	found, err := rt.load(KindProduct, actorID, "product", &a.state)
	if err != nil {
		return err
	}
	a.loaded, a.exists = true, found
	return nil
}

func (a *Product) loadCounts(rt *Runtime, actorID string) error {
	if a.counts != nil {
		return nil
	}
	counts := map[string]int64{}
	if _, err := rt.load(KindProduct, actorID, "counts", &counts); err != nil {
		return err
	}
	a.counts = counts
	return nil
}

func (a *Product) view(id string) *Reply {
	return &Reply{Product: &ProductView{ID: id, Price: a.state.Price, Stock: a.state.Stock}}
}

func retractionKey(orderID string) string { return "r/" + orderID }

// tombstone is the record of a compensated order: nothing taken, and nothing may be taken any more.
const tombstone = int64(-1)

func (a *Product) handle(rt *Runtime, actorID, id string, call *Call, _ *TraceLink) *Reply {
	if err := a.load(rt, actorID); err != nil {
		return internal(err)
	}
	if !a.exists && call.Op != "create" && call.Op != "upsert" {
		return fail(404, "not-found", "product %s not found", id)
	}
	switch call.Op {
	case "get", "exists":
		return a.view(id)
	case "create", "upsert":
		next := a.state
		if !a.exists {
			next = productState{}
		}
		if call.Price != nil {
			next.Price = *call.Price
		}
		if call.Stock != nil {
			next.Stock += *call.Stock
		}
		if err := rt.commit(KindProduct, actorID, set("product", next)); err != nil {
			return internal(err)
		}
		a.state, a.exists = next, true
		return a.view(id)
	case "retract":
		// idempotent per order: Dapr's built-in actor retries may deliver a
		// retraction twice, and a compensated order's late retraction is refused
		var done int64
		found, err := rt.load(KindProduct, actorID, retractionKey(call.OrderID), &done)
		if err != nil {
			return internal(err)
		}
		if found && done > 0 {
			return &Reply{Price: a.state.Price}
		}
		if found {
			return fail(409, "order-settled", "order %s was compensated already", call.OrderID)
		}
		if a.state.Stock < call.Amount {
			return fail(409, "insufficient-stock", "product %s has %d in stock, %d wanted", id, a.state.Stock, call.Amount)
		}
		next := productState{Price: a.state.Price, Stock: a.state.Stock - call.Amount}
		if err := rt.commit(KindProduct, actorID, set("product", next), set(retractionKey(call.OrderID), call.Amount)); err != nil {
			return internal(err)
		}
		a.state = next
		return &Reply{Price: a.state.Price}
	case "restore":
		// puts back what this order retracted, once, and leaves a tombstone
		// (-1) so that a retraction of the order arriving later is refused
		var amount int64
		found, err := rt.load(KindProduct, actorID, retractionKey(call.OrderID), &amount)
		if err != nil {
			return internal(err)
		}
		if found && amount < 0 {
			return &Reply{}
		}
		next := a.state
		if found {
			next.Stock += amount
		}
		if err := rt.commit(KindProduct, actorID, set("product", next), set(retractionKey(call.OrderID), tombstone)); err != nil {
			return internal(err)
		}
		a.state = next
		return &Reply{}
	case "coPurchase":
		if err := a.loadCounts(rt, actorID); err != nil {
			return internal(err)
		}
		next := make(map[string]int64, len(a.counts)+len(call.Others))
		for q, c := range a.counts {
			next[q] = c
		}
		for _, q := range call.Others {
			if q != id {
				next[q]++
			}
		}
		if err := rt.commit(KindProduct, actorID, set("counts", next)); err != nil {
			return internal(err)
		}
		a.counts = next
		return &Reply{}
	case "top":
		if err := a.loadCounts(rt, actorID); err != nil {
			return internal(err)
		}
		return &Reply{Ids: TopN(a.counts, call.Top, call.Exclude)}
	}
	return unknownOp(KindProduct, call)
}

// TopN is top(p, n, V) of SPEC 2.2: the n ids with the highest count, ties by
// ascending id, none of them in exclude.
func TopN(counts map[string]int64, n int, exclude []string) []string {
	skip := make(map[string]struct{}, len(exclude))
	for _, e := range exclude {
		skip[e] = struct{}{}
	}
	ids := make([]string, 0, len(counts))
	for q, c := range counts {
		if _, excluded := skip[q]; !excluded && c > 0 {
			ids = append(ids, q)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if counts[ids[i]] != counts[ids[j]] {
			return counts[ids[i]] > counts[ids[j]]
		}
		return ids[i] < ids[j]
	})
	if len(ids) > n {
		ids = ids[:n]
	}
	return ids
}
