package actors

import "context"

// orderState is the "order" key of an order actor.
// statusVoid marks an order id whose checkout was compensated: it can never be created.
const statusVoid = "void"

type orderState struct {
	CartID string `json:"cartId"`
	UserID string `json:"userId"`
	Status string `json:"status"`
	Total  int64  `json:"total"`
}

// Order is the order actor: a completed checkout. Only completed orders are
// visible (a 409 checkout records nothing); an order id that a settled
// checkout gave up is recorded as void, and stays 404.
type Order struct {
	base
	loaded bool
	state  *orderState
}

func (a *Order) Type() string { return KindOrder }

// Handle is the actor's one method (Call.Op names the operation).
func (a *Order) Handle(ctx context.Context, call *Call) (*Reply, error) {
	return a.call(ctx, KindOrder, call, a.handle, func() { a.loaded, a.state = false, nil })
}

func (a *Order) handle(rt *Runtime, actorID, id string, call *Call, _ *TraceLink) *Reply {
	if !a.loaded {
		var st orderState
		found, err := rt.load(KindOrder, actorID, "order", &st)
		if err != nil {
			return internal(err)
		}
		a.loaded = true
		if found {
			a.state = &st
		}
	}
	switch call.Op {
	case "create":
		if a.state != nil {
			if a.state.Status == statusVoid {
				return fail(409, "order-settled", "order %s was compensated already", id)
			}
			// a second delivery of the same create (Dapr's built-in retries)
			return &Reply{}
		}
		next := orderState{CartID: call.CartID, UserID: call.UserID, Status: "completed", Total: call.Total}
		if err := rt.commit(KindOrder, actorID, set("order", next)); err != nil {
			return internal(err)
		}
		a.state = &next
		return &Reply{}
	case "settle":
		// the cart settling an unfinished checkout asks: completed, or never
		// to be? An order not created yet is voided, so that a create sent by
		// a node that died is refused when it arrives later
		if a.state == nil {
			next := orderState{CartID: call.CartID, Status: statusVoid}
			if err := rt.commit(KindOrder, actorID, set("order", next)); err != nil {
				return internal(err)
			}
			a.state = &next
		}
		if a.state.Status == statusVoid {
			return fail(404, "not-found", "order %s was not completed", id)
		}
		return &Reply{}
	case "get":
		if a.state == nil || a.state.Status == statusVoid {
			return fail(404, "not-found", "order %s not found", id)
		}
		return &Reply{Order: &OrderView{ID: id, CartID: a.state.CartID, UserID: a.state.UserID, Status: a.state.Status, Total: a.state.Total}}
	}
	return unknownOp(KindOrder, call)
}
