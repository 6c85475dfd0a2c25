package grains

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/store"
)

// cart: its items, whether it was checked out, and the checkout saga (SPEC 2.1).
// The cart grain coordinates its own checkout: Proto.Actor hands a grain one
// message at a time, so two checkouts of one cart, or an add racing a
// checkout, run one after the other and a cart is charged at most once.
//
// A checkout first records itself in the cart row (pending order and user);
// product retractions and the user's charge are recorded per order next to
// the new stock or credits, in the same statement. A checkout interrupted by
// a crash is found when the cart activates again (or by the launcher's sweep
// at start): it is completed if its order was recorded, else compensated, and
// compensation is idempotent (only what this order took is put back, once).
type cart struct {
	state *store.Cart
}

func (c *cart) load(ctx context.Context, rt *Runtime, id string) error {
	row, err := rt.Store.LoadCart(ctx, id)
	if err != nil {
		return err
	}
	c.state = row
	if row != nil && row.PendingOrder != "" {
		return c.resolve(rt, id, nil)
	}
	return nil
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
	// only after a failed write: an unfinished checkout is settled before anything else
	if c.state.PendingOrder != "" {
		if err := c.resolve(rt, id, trace); err != nil {
			return fail(503, "unavailable", "cart %s: settling checkout %s: %v", id, c.state.PendingOrder, err)
		}
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

// compensate puts back what order orderID took: every product's retraction and the user's charge (each at most once).
func compensate(rt *Runtime, items []store.CartItem, orderID, userID string, trace *TraceLink) error {
	var failed []string
	for i, r := range fanOut(rt, items, func(store.CartItem) *Call { return &Call{Op: "restore", OrderID: orderID, Trace: trace} }) {
		if r.Status != 0 {
			failed = append(failed, fmt.Sprintf("product %s: %s", items[i].ProductID, r.Message))
		}
	}
	if userID != "" {
		if r := rt.must(KindUser, userID, &Call{Op: "refund", OrderID: orderID, Trace: trace}); r.Status != 0 && r.Status != 404 {
			failed = append(failed, fmt.Sprintf("user %s: %s", userID, r.Message))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("compensation of order %s incomplete: %s", orderID, strings.Join(failed, "; "))
	}
	return nil
}

// resolve settles the cart's pending checkout: completed when its order was recorded, else compensated.
func (c *cart) resolve(rt *Runtime, id string, trace *TraceLink) error {
	orderID, userID, items := c.state.PendingOrder, c.state.PendingUser, c.state.Items
	r := rt.must(KindOrder, orderID, &Call{Op: "get", Trace: trace})
	switch r.Status {
	case 0:
		if err := c.save(rt, id, store.Cart{Items: items, CheckedOut: true, OrderID: orderID}); err != nil {
			return err
		}
		rt.Log.Warn("interrupted checkout completed", "cart", id, "order", orderID)
		coPurchase(rt, items, orderID)
		return nil
	case 404:
		if err := compensate(rt, items, orderID, userID, trace); err != nil {
			return err
		}
		if err := c.save(rt, id, store.Cart{Items: items}); err != nil {
			return err
		}
		rt.Log.Warn("interrupted checkout compensated", "cart", id, "order", orderID)
		return nil
	}
	return fmt.Errorf("order %s: %s", orderID, r.Message)
}

// abandon ends a checkout that failed for a business reason (409): everything is put back, the cart stays open.
func (c *cart) abandon(rt *Runtime, id string, trace *TraceLink, reason *Reply) *Reply {
	if err := compensate(rt, c.state.Items, c.state.PendingOrder, c.state.PendingUser, trace); err != nil {
		rt.Log.Error("compensation failed; the cart will retry it", "cart", id, "error", err)
		return reason
	}
	if err := c.save(rt, id, store.Cart{Items: c.state.Items}); err != nil {
		rt.Log.Error("cart not cleared after compensation; the cart will settle it", "cart", id, "error", err)
	}
	return reason
}

// settle ends a checkout that failed for a system reason (5xx, timeout): the outcome of the last step
// is unknown, so the checkout is resolved from the order's record, and the failure is answered.
func (c *cart) settle(rt *Runtime, id string, trace *TraceLink, failure *Reply) *Reply {
	if err := c.resolve(rt, id, trace); err != nil {
		rt.Log.Error("checkout not settled; the cart will retry", "cart", id, "error", err)
	}
	return failure
}

// coPurchase updates "frequently bought together" off the latency path (SPEC 2.1 step 6).
func coPurchase(rt *Runtime, items []store.CartItem, orderID string) {
	if len(items) < 2 {
		return
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ProductID
	}
	go func() {
		for i, r := range fanOut(rt, items, func(store.CartItem) *Call { return &Call{Op: "coPurchase", Others: ids} }) {
			if r.Status != 0 {
				rt.Log.Error("co-purchase update lost", "product", items[i].ProductID, "order", orderID, "error", r.Message)
			}
		}
	}()
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
	if err := c.save(rt, id, store.Cart{Items: items, PendingOrder: call.OrderID, PendingUser: call.UserID}); err != nil {
		return internal(err)
	}

	// fan out: every product retracts its amount or nothing; fan in: all answers
	replies := fanOut(rt, items, func(it store.CartItem) *Call {
		return &Call{Op: "retract", Amount: it.Amount, OrderID: call.OrderID, Trace: trace}
	})
	var business, system *Reply
	var total int64
	for i, r := range replies {
		switch {
		case r.Status == 0:
			total += r.Price * items[i].Amount
		case r.Status == 409 && business == nil:
			business = r
		case r.Status != 409:
			system = r
		}
	}
	if system != nil {
		return c.settle(rt, id, trace, system)
	}
	if business != nil {
		return c.abandon(rt, id, trace, business)
	}

	if r := rt.must(KindUser, call.UserID, &Call{Op: "retract", Credits: total, OrderID: call.OrderID, Trace: trace}); r.Status == 409 {
		return c.abandon(rt, id, trace, r)
	} else if r.Status != 0 {
		return c.settle(rt, id, trace, r)
	}
	if r := rt.must(KindOrder, call.OrderID, &Call{Op: "create", CartID: id, UserID: call.UserID, Total: total, Trace: trace}); r.Status != 0 {
		return c.settle(rt, id, trace, r)
	}
	if err := c.save(rt, id, store.Cart{Items: items, CheckedOut: true, OrderID: call.OrderID}); err != nil {
		// the order is recorded: the cart completes the checkout when it settles it
		return internal(err)
	}
	coPurchase(rt, items, call.OrderID)
	return &Reply{Result: &CheckoutView{OrderID: call.OrderID, Total: total}}
}
