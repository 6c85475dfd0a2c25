package actors

import "context"

// orderState is the "order" key of an order actor.
type orderState struct {
	CartID string `json:"cartId"`
	UserID string `json:"userId"`
	Status string `json:"status"`
	Total  int64  `json:"total"`
}

// Order is the order actor: a completed checkout. Only completed orders are
// recorded (a 409 checkout records nothing).
type Order struct {
	base
	loaded bool
	state  *orderState
}

func (a *Order) Type() string { return KindOrder }

// Handle is the actor's one method (Call.Op names the operation).
func (a *Order) Handle(_ context.Context, call *Call) (*Reply, error) {
	return a.call(KindOrder, call, a.handle)
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
		next := orderState{CartID: call.CartID, UserID: call.UserID, Status: "completed", Total: call.Total}
		if err := rt.commit(KindOrder, actorID, set("order", next)); err != nil {
			return internal(err)
		}
		a.state = &next
		return &Reply{}
	case "get":
		if a.state == nil {
			return fail(404, "not-found", "order %s not found", id)
		}
		return &Reply{Order: &OrderView{ID: id, CartID: a.state.CartID, UserID: a.state.UserID, Status: a.state.Status, Total: a.state.Total}}
	}
	return unknownOp(KindOrder, call)
}
