package grains

import (
	"context"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/store"
)

// order: a completed checkout. Only completed orders are recorded (a 409 checkout records nothing).
type order struct {
	state *store.Order
}

func (o *order) load(ctx context.Context, rt *Runtime, id string) error {
	row, err := rt.Store.LoadOrder(ctx, id)
	o.state = row
	return err
}

func (o *order) handle(rt *Runtime, id string, call *Call, _ *TraceLink) *Reply {
	switch call.Op {
	case "create":
		next := store.Order{CartID: call.CartID, UserID: call.UserID, Status: "completed", Total: call.Total}
		ctx, cancel := dbctx(rt)
		defer cancel()
		if err := rt.Store.SaveOrder(ctx, id, next); err != nil {
			return internal(err)
		}
		o.state = &next
		return &Reply{}
	case "get":
		if o.state == nil {
			return fail(404, "not-found", "order %s not found", id)
		}
		return &Reply{Order: &OrderView{ID: id, CartID: o.state.CartID, UserID: o.state.UserID, Status: o.state.Status, Total: o.state.Total}}
	}
	return fail(400, "bad-request", "order: unknown operation %q", call.Op)
}
