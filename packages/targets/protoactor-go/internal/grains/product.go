package grains

import (
	"context"
	"sort"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/store"
)

// product: price, stock and the co-purchase counts count[id][*].
type product struct {
	exists bool
	state  store.Product
	counts map[string]int64
}

func (p *product) load(ctx context.Context, rt *Runtime, id string) error {
	row, err := rt.Store.LoadProduct(ctx, id)
	if err != nil {
		return err
	}
	counts, err := rt.Store.LoadCoPurchase(ctx, id)
	if err != nil {
		return err
	}
	p.exists, p.counts = row != nil, counts
	if row != nil {
		p.state = *row
	}
	return nil
}

// save writes next and adopts it only when the write succeeded.
func (p *product) save(rt *Runtime, id string, next store.Product) error {
	ctx, cancel := dbctx(rt)
	defer cancel()
	if err := rt.Store.SaveProduct(ctx, id, next); err != nil {
		return err
	}
	p.state, p.exists = next, true
	return nil
}

func (p *product) view(id string) *Reply {
	return &Reply{Product: &ProductView{ID: id, Price: p.state.Price, Stock: p.state.Stock}}
}

func (p *product) handle(rt *Runtime, id string, call *Call, _ *TraceLink) *Reply {
	if !p.exists && call.Op != "create" && call.Op != "upsert" {
		return fail(404, "not-found", "product %s not found", id)
	}
	switch call.Op {
	case "get", "exists":
		return p.view(id)
	case "create", "upsert":
		if p.counts == nil {
			p.counts = map[string]int64{}
		}
		next := p.state
		if !p.exists {
			next = store.Product{}
		}
		if call.Price != nil {
			next.Price = *call.Price
		}
		if call.Stock != nil {
			next.Stock += *call.Stock
		}
		if err := p.save(rt, id, next); err != nil {
			return internal(err)
		}
		return p.view(id)
	case "retract":
		if p.state.Stock < call.Amount {
			return fail(409, "insufficient-stock", "product %s has %d in stock, %d wanted", id, p.state.Stock, call.Amount)
		}
		ctx, cancel := dbctx(rt)
		defer cancel()
		stock := p.state.Stock - call.Amount
		if err := rt.Store.RetractStock(ctx, id, call.OrderID, call.Amount, stock); err != nil {
			return internal(err)
		}
		p.state.Stock = stock
		return &Reply{Price: p.state.Price}
	case "restore":
		// idempotent: puts back what this order retracted, if anything
		ctx, cancel := dbctx(rt)
		defer cancel()
		stock, restored, err := rt.Store.RestoreStock(ctx, id, call.OrderID)
		if err != nil {
			return internal(err)
		}
		if restored {
			p.state.Stock = stock
		}
		return &Reply{}
	case "coPurchase":
		for _, q := range call.Others {
			if q != id {
				p.counts[q]++
				rt.Writer.Add(id, q, 1)
			}
		}
		return &Reply{}
	case "top":
		return &Reply{Ids: TopN(p.counts, call.Top, call.Exclude)}
	}
	return fail(400, "bad-request", "product: unknown operation %q", call.Op)
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
