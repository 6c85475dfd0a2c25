package actors

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// CartItem is one line of a cart.
type CartItem struct {
	ProductID string `json:"productId"`
	Amount    int64  `json:"amount"`
}

// cartState is the "cart" key of a cart actor.
type cartState struct {
	Items      []CartItem `json:"items"`
	CheckedOut bool       `json:"checkedOut"`
	OrderID    string     `json:"orderId,omitempty"`
}

// pendingCheckout is the "pending" key: a checkout that started and has not
// ended yet. It exists only while one runs (or after a crash cut one short),
// so the start-up sweep finds unfinished checkouts by this key alone.
type pendingCheckout struct {
	OrderID string `json:"orderId"`
	UserID  string `json:"userId"`
}

// PendingKey is the state key of an unfinished checkout (the sweep looks for it).
const PendingKey = "pending"

// Cart is the cart actor: its items, whether it was checked out, and the
// checkout saga (SPEC 2.1), which the cart coordinates itself. Dapr runs one
// call of an actor at a time (turn-based), so two checkouts of one cart, or
// an add racing a checkout, run one after the other and a cart is charged at
// most once.
//
// A checkout first records itself (key "pending"); product retractions and
// the user's charge are recorded per order next to the new stock or credits.
// A checkout cut short by a crash is settled when the cart activates again,
// or by the sweep every node runs at start (op "settle"): it is completed if
// its order was recorded, else compensated; compensation is idempotent (only
// what this order took is put back, once).
type Cart struct {
	base
	loaded  bool
	state   *cartState
	pending *pendingCheckout
}

func (a *Cart) Type() string { return KindCart }

// Handle is the actor's one method (Call.Op names the operation).
func (a *Cart) Handle(ctx context.Context, call *Call) (*Reply, error) {
	return a.call(ctx, KindCart, call, a.handle, func() { a.loaded, a.state, a.pending = false, nil, nil })
}

func (a *Cart) load(rt *Runtime, actorID string) error {
	if a.loaded {
		return nil
	}
	var st cartState
	found, err := rt.load(KindCart, actorID, "cart", &st)
	if err != nil {
		return err
	}
	var p pendingCheckout
	hasPending, err := rt.load(KindCart, actorID, PendingKey, &p)
	if err != nil {
		return err
	}
	a.loaded = true
	if found {
		a.state = &st
	}
	if hasPending {
		a.pending = &p
	}
	return nil
}

// save commits the cart's next state and whether a checkout is pending, in one transaction.
func (a *Cart) save(rt *Runtime, actorID string, next cartState, pending *pendingCheckout) error {
	ops := []op{set("cart", next)}
	if pending != nil {
		ops = append(ops, set(PendingKey, pending))
	} else if a.pending != nil {
		ops = append(ops, del(PendingKey))
	}
	if err := rt.commit(KindCart, actorID, ops...); err != nil {
		return err
	}
	a.state, a.pending = &next, pending
	return nil
}

func (a *Cart) handle(rt *Runtime, actorID, id string, call *Call, trace *TraceLink) *Reply {
	if err := a.load(rt, actorID); err != nil {
		return internal(err)
	}
	if call.Op == "create" {
		if err := a.save(rt, actorID, cartState{Items: []CartItem{}}, nil); err != nil {
			return internal(err)
		}
		return &Reply{}
	}
	if a.state == nil {
		return fail(404, "not-found", "cart %s not found", id)
	}
	// an unfinished checkout (cut short by a crash or a failed write) is settled before anything else
	if a.pending != nil {
		if err := a.resolve(rt, actorID, id, trace); err != nil {
			return fail(503, "unavailable", "cart %s: settling checkout %s: %v", id, a.pending.OrderID, err)
		}
	}
	switch call.Op {
	case "settle":
		return &Reply{}
	case "get":
		items := make([]CartItemView, len(a.state.Items))
		for i, it := range a.state.Items {
			items[i] = CartItemView{ProductID: it.ProductID, Amount: it.Amount}
		}
		return &Reply{Cart: &CartView{ID: id, Items: items, CheckedOut: a.state.CheckedOut}}
	case "add":
		return a.add(rt, actorID, id, call, trace)
	case "checkout":
		return a.checkout(rt, actorID, id, call, trace)
	}
	return unknownOp(KindCart, call)
}

func (a *Cart) add(rt *Runtime, actorID, id string, call *Call, trace *TraceLink) *Reply {
	if a.state.CheckedOut {
		return fail(409, "cart-checked-out", "cart %s is checked out", id)
	}
	if r := rt.must(KindProduct, call.ProductID, &Call{Op: "exists", Trace: trace}); r.Status != 0 {
		return r
	}
	next := cartState{Items: append([]CartItem(nil), a.state.Items...)}
	found := false
	for i := range next.Items {
		if next.Items[i].ProductID == call.ProductID {
			next.Items[i].Amount += call.Amount
			found = true
		}
	}
	if !found {
		next.Items = append(next.Items, CartItem{ProductID: call.ProductID, Amount: call.Amount})
	}
	if err := a.save(rt, actorID, next, nil); err != nil {
		return internal(err)
	}
	return &Reply{}
}

// fanOut sends one call per item concurrently and waits for all answers (fan-in).
func fanOut(rt *Runtime, items []CartItem, call func(CartItem) *Call) []*Reply {
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
func compensate(rt *Runtime, items []CartItem, orderID, userID string, trace *TraceLink) error {
	var failed []string
	for i, r := range fanOut(rt, items, func(CartItem) *Call { return &Call{Op: "restore", OrderID: orderID, Trace: trace} }) {
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
func (a *Cart) resolve(rt *Runtime, actorID, id string, trace *TraceLink) error {
	orderID, userID, items := a.pending.OrderID, a.pending.UserID, a.state.Items
	r := rt.must(KindOrder, orderID, &Call{Op: "settle", CartID: id, Trace: trace})
	switch r.Status {
	case 0:
		if err := a.save(rt, actorID, cartState{Items: items, CheckedOut: true, OrderID: orderID}, nil); err != nil {
			return err
		}
		rt.Log.Warn("interrupted checkout completed", "cart", id, "order", orderID)
		coPurchase(rt, items, orderID)
		return nil
	case 404:
		if err := compensate(rt, items, orderID, userID, trace); err != nil {
			return err
		}
		if err := a.save(rt, actorID, cartState{Items: items}, nil); err != nil {
			return err
		}
		rt.Log.Warn("interrupted checkout compensated", "cart", id, "order", orderID)
		return nil
	}
	return fmt.Errorf("order %s: %s", orderID, r.Message)
}

// abandon ends a checkout that failed for a business reason (409): everything is put back, the cart stays open.
func (a *Cart) abandon(rt *Runtime, actorID, id string, trace *TraceLink, reason *Reply) *Reply {
	if err := compensate(rt, a.state.Items, a.pending.OrderID, a.pending.UserID, trace); err != nil {
		rt.Log.Error("compensation failed; the cart will retry it", "cart", id, "error", err)
		return reason
	}
	if err := a.save(rt, actorID, cartState{Items: a.state.Items}, nil); err != nil {
		rt.Log.Error("cart not cleared after compensation; the cart will settle it", "cart", id, "error", err)
	}
	return reason
}

// settle ends a checkout that failed for a system reason (5xx, timeout): the
// outcome of the last step is unknown, so the checkout is resolved from the
// order's record, and the failure is answered.
func (a *Cart) settle(rt *Runtime, actorID, id string, trace *TraceLink, failure *Reply) *Reply {
	if err := a.resolve(rt, actorID, id, trace); err != nil {
		rt.Log.Error("checkout not settled; the cart will retry", "cart", id, "error", err)
	}
	return failure
}

// coPurchase updates "frequently bought together" off the latency path (SPEC
// 2.1 step 6): it runs after the cart's turn has answered.
func coPurchase(rt *Runtime, items []CartItem, orderID string) {
	if len(items) < 2 {
		return
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ProductID
	}
	go func() {
		for i, r := range fanOut(rt, items, func(CartItem) *Call { return &Call{Op: "coPurchase", Others: ids} }) {
			if r.Status != 0 {
				rt.Log.Error("co-purchase update lost", "product", items[i].ProductID, "order", orderID, "error", r.Message)
			}
		}
	}()
}

func (a *Cart) checkout(rt *Runtime, actorID, id string, call *Call, trace *TraceLink) *Reply {
	if a.state.CheckedOut {
		return fail(409, "cart-checked-out", "cart %s is already checked out", id)
	}
	items := a.state.Items
	if len(items) == 0 {
		return fail(409, "empty-cart", "cart %s is empty", id)
	}
	if r := rt.must(KindUser, call.UserID, &Call{Op: "exists", Trace: trace}); r.Status != 0 {
		return r
	}
	// A fresh order id per attempt: Dapr's built-in actor retries may deliver
	// this checkout again after a node died in it, and the first attempt's
	// order id is voided when that attempt is settled.
	orderID := NewOrderID()
	if err := a.save(rt, actorID, *a.state, &pendingCheckout{OrderID: orderID, UserID: call.UserID}); err != nil {
		return internal(err)
	}
	// fan out: every product retracts its amount or nothing; fan in: all answers
	replies := fanOut(rt, items, func(it CartItem) *Call {
		return &Call{Op: "retract", Amount: it.Amount, OrderID: orderID, Trace: trace}
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
		return a.settle(rt, actorID, id, trace, system)
	}
	if business != nil {
		return a.abandon(rt, actorID, id, trace, business)
	}
	if r := rt.must(KindUser, call.UserID, &Call{Op: "retract", Credits: total, OrderID: orderID, Trace: trace}); r.Status == 409 {
		return a.abandon(rt, actorID, id, trace, r)
	} else if r.Status != 0 {
		return a.settle(rt, actorID, id, trace, r)
	}
	if r := rt.must(KindOrder, orderID, &Call{Op: "create", CartID: id, UserID: call.UserID, Total: total, Trace: trace}); r.Status != 0 {
		return a.settle(rt, actorID, id, trace, r)
	}
	if err := a.save(rt, actorID, cartState{Items: items, CheckedOut: true, OrderID: orderID}, nil); err != nil {
		// the order is recorded: the cart completes the checkout when it settles it
		return internal(err)
	}
	coPurchase(rt, items, orderID)
	return &Reply{Result: &CheckoutView{OrderID: orderID, Total: total}}
}
