package grains

import "context"

// user: credits.
type user struct {
	exists  bool
	credits int64
}

func (u *user) load(ctx context.Context, rt *Runtime, id string) error {
	credits, found, err := rt.Store.LoadUser(ctx, id)
	u.credits, u.exists = credits, found
	return err
}

func (u *user) save(rt *Runtime, id string, credits int64) error {
	ctx, cancel := dbctx(rt)
	defer cancel()
	if err := rt.Store.SaveUser(ctx, id, credits); err != nil {
		return err
	}
	u.credits, u.exists = credits, true
	return nil
}

func (u *user) handle(rt *Runtime, id string, call *Call, _ *TraceLink) *Reply {
	if call.Op == "create" {
		if err := u.save(rt, id, call.Credits); err != nil {
			return internal(err)
		}
		return &Reply{}
	}
	if !u.exists {
		return fail(404, "not-found", "user %s not found", id)
	}
	switch call.Op {
	case "get", "exists":
		return &Reply{User: &UserView{ID: id, Credits: u.credits}}
	case "addCredits":
		if err := u.save(rt, id, u.credits+call.Credits); err != nil {
			return internal(err)
		}
		return &Reply{}
	case "retract":
		if u.credits < call.Credits {
			return fail(409, "insufficient-credits", "user %s has %d credits, the order costs %d", id, u.credits, call.Credits)
		}
		ctx, cancel := dbctx(rt)
		defer cancel()
		credits := u.credits - call.Credits
		if err := rt.Store.ChargeUser(ctx, id, call.OrderID, call.Credits, credits); err != nil {
			return internal(err)
		}
		u.credits = credits
		return &Reply{}
	case "refund":
		// idempotent: gives back this order's charge, if there was one
		ctx, cancel := dbctx(rt)
		defer cancel()
		credits, refunded, err := rt.Store.RefundUser(ctx, id, call.OrderID)
		if err != nil {
			return internal(err)
		}
		if refunded {
			u.credits = credits
		}
		return &Reply{}
	}
	return fail(400, "bad-request", "user: unknown operation %q", call.Op)
}
