package grains

import (
	"context"
	"sync"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/store"
)

// cart: its items, whether it was checked out, and the checkout saga (SPEC 2.1).
// The cart grain coordinates its own checkout: Proto.Actor hands a grain one
// message at a time, so two checkouts of one cart, or an add racing a
// checkout, run one after the other and a cart is charged at most once.
type cart struct {
	state *store.Cart
}

func (c *cart) load(ctx context.Context, rt *Runtime, id string) error {
	row, err := rt.Store.LoadCart(ctx, id)
	c.state = row
	return err
}

func (c *cart) save(rt *Runtime, id string, next store.Cart) error {
	ctx, cancel := dbctx(rt)
	defer cancel()
	if err := rt.Store.SaveCart(ctx, id, next); err != nil {
		return err
	}
	c.state = &next
	return nil
}

func (c *cart) handle(rt *Runtime, id string, call *Call, trace *TraceLink) *Reply {
	if call.Op == "create" {
		if err := c.save(rt, id, store.Cart{}); err != nil {
			return internal(err)
		}
		return &Reply{}
	}
	if c.state == nil {
		return fail(404, "not-found", "cart %s not found", id)
	}
	switch call.Op {
	case "get":
		items := make([]CartItemView, len(c.state.Items))
		for i, it := range c.state.Items {
			items[i] = CartItemView{ProductID: it.ProductID, Amount: it.Amount}
		}
		return &Reply{Cart: &CartView{ID: id, Items: items, CheckedOut: c.state.CheckedOut}}
	case "add":
		return c.add(rt, id, call, trace)
	case "checkout":
		return c.checkout(rt, id, call, trace)
	}
	return fail(400, "bad-request", "cart: unknown operation %q", call.Op)
}

func (c *cart) add(rt *Runtime, id string, call *Call, trace *TraceLink) *Reply {
	if c.state.CheckedOut {
		return fail(409, "cart-checked-out", "cart %s is checked out", id)
	}
	if r := rt.must(KindProduct, call.ProductID, &Call{Op: "exists", Trace: trace}); r.Status != 0 {
		return r
	}
	next := store.Cart{Items: append([]store.CartItem(nil), c.state.Items...)}
	found := false
	for i := range next.Items {
		if next.Items[i].ProductID == call.ProductID {
			next.Items[i].Amount += call.Amount
			found = true
		}
	}
	if !found {
		next.Items = append(next.Items, store.CartItem{ProductID: call.ProductID, Amount: call.Amount})
	}
	if err := c.save(rt, id, next); err != nil {
		return internal(err)
	}
	return &Reply{}
}

// fanOut sends one call per item concurrently and waits for all answers (fan-in).
func fanOut(rt *Runtime, items []store.CartItem, call func(store.CartItem) *Call) []*Reply {
	replies := make([]*Reply, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = rt.must(KindProduct, it.ProductID, call(it))
		}()
	}
	wg.Wait()
	return replies
}

// restore is the compensation: put back the stock of the items that were retracted.
func restore(rt *Runtime, items []store.CartItem, trace *TraceLink) {
	for i, r := range fanOut(rt, items, func(it store.CartItem) *Call { return &Call{Op: "restore", Amount: it.Amount, Trace: trace} }) {
		if r.Status != 0 {
			rt.Log.Error("compensation failed: stock not put back", "product", items[i].ProductID, "amount", items[i].Amount, "error", r.Message)
		}
	}
}

func (c *cart) checkout(rt *Runtime, id string, call *Call, trace *TraceLink) *Reply {
	if c.state.CheckedOut {
		return fail(409, "cart-checked-out", "cart %s is already checked out", id)
	}
	items := c.state.Items
	if len(items) == 0 {
		return fail(409, "empty-cart", "cart %s is empty", id)
	}
	if r := rt.must(KindUser, call.UserID, &Call{Op: "exists", Trace: trace}); r.Status != 0 {
		return r
	}

	// fan out: every product retracts its amount or nothing; fan in: all answers
	replies := fanOut(rt, items, func(it store.CartItem) *Call { return &Call{Op: "retract", Amount: it.Amount, Trace: trace} })
	var retracted []store.CartItem
	var failure *Reply
	var total int64
	for i, r := range replies {
		if r.Status == 0 {
			retracted = append(retracted, items[i])
			total += r.Price * items[i].Amount
		} else if failure == nil || (failure.Status == 409 && r.Status != 409) {
			failure = r // a system failure outranks a business one
		}
	}
	if failure != nil {
		restore(rt, retracted, trace)
		return failure
	}

	if r := rt.must(KindUser, call.UserID, &Call{Op: "retract", Credits: total, Trace: trace}); r.Status != 0 {
		restore(rt, items, trace)
		return r
	}
	if r := rt.must(KindOrder, call.OrderID, &Call{Op: "create", CartID: id, UserID: call.UserID, Total: total, Trace: trace}); r.Status != 0 {
		rt.must(KindUser, call.UserID, &Call{Op: "refund", Credits: total, Trace: trace})
		restore(rt, items, trace)
		return r
	}
	next := store.Cart{Items: items, CheckedOut: true, OrderID: call.OrderID}
	if err := c.save(rt, id, next); err != nil {
		rt.Log.Error("order recorded but cart not marked checked out", "cart", id, "order", call.OrderID, "error", err)
		return internal(err)
	}

	// off the latency path: "frequently bought together" (SPEC 2.1 step 6)
	if len(items) > 1 {
		ids := make([]string, len(items))
		for i, it := range items {
			ids[i] = it.ProductID
		}
		go func() {
			for i, r := range fanOut(rt, items, func(store.CartItem) *Call { return &Call{Op: "coPurchase", Others: ids} }) {
				if r.Status != 0 {
					rt.Log.Error("co-purchase update lost", "product", items[i].ProductID, "order", call.OrderID, "error", r.Message)
				}
			}
		}()
	}
	return &Reply{Result: &CheckoutView{OrderID: call.OrderID, Total: total}}
}
