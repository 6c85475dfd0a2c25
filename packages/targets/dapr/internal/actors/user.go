package actors

import "context"

// User is the user actor: credits (key "credits") and one key "c/<order>" per
// charge, written with the credits it took, so a refund gives back exactly
// that order's charge, once (and leaves -1, as product's compensation does).
type User struct {
	base
	loaded, exists bool
	credits        int64
}

func (a *User) Type() string { return KindUser }

// Handle is the actor's one method (Call.Op names the operation).
func (a *User) Handle(ctx context.Context, call *Call) (*Reply, error) {
	return a.call(ctx, KindUser, call, a.handle, func() { a.loaded, a.exists = false, false })
}

func chargeKey(orderID string) string { return "c/" + orderID }

func (a *User) handle(rt *Runtime, actorID, id string, call *Call, _ *TraceLink) *Reply {
	if !a.loaded {
		found, err := rt.load(KindUser, actorID, "credits", &a.credits)
		if err != nil {
			return internal(err)
		}
		a.loaded, a.exists = true, found
	}
	if call.Op == "create" {
		if err := rt.commit(KindUser, actorID, set("credits", call.Credits)); err != nil {
			return internal(err)
		}
		a.credits, a.exists = call.Credits, true
		return &Reply{}
	}
	if !a.exists {
		return fail(404, "not-found", "user %s not found", id)
	}
	switch call.Op {
	case "get", "exists":
		return &Reply{User: &UserView{ID: id, Credits: a.credits}}
	case "addCredits":
		next := a.credits + call.Credits
		if err := rt.commit(KindUser, actorID, set("credits", next)); err != nil {
			return internal(err)
		}
		a.credits = next
		return &Reply{}
	case "retract":
		// idempotent per order, and refused once the order was compensated (as product's)
		var done int64
		found, err := rt.load(KindUser, actorID, chargeKey(call.OrderID), &done)
		if err != nil {
			return internal(err)
		}
		if found && done >= 0 {
			return &Reply{}
		}
		if found {
			return fail(409, "order-settled", "order %s was compensated already", call.OrderID)
		}
		if a.credits < call.Credits {
			return fail(409, "insufficient-credits", "user %s has %d credits, the order costs %d", id, a.credits, call.Credits)
		}
		next := a.credits - call.Credits
		if err := rt.commit(KindUser, actorID, set("credits", next), set(chargeKey(call.OrderID), call.Credits)); err != nil {
			return internal(err)
		}
		a.credits = next
		return &Reply{}
	case "refund":
		// gives back this order's charge, once, and leaves a tombstone
		var charged int64
		found, err := rt.load(KindUser, actorID, chargeKey(call.OrderID), &charged)
		if err != nil {
			return internal(err)
		}
		if found && charged < 0 {
			return &Reply{}
		}
		next := a.credits
		if found {
			next += charged
		}
		if err := rt.commit(KindUser, actorID, set("credits", next), set(chargeKey(call.OrderID), tombstone)); err != nil {
			return internal(err)
		}
		a.credits = next
		return &Reply{}
	}
	return unknownOp(KindUser, call)
}
