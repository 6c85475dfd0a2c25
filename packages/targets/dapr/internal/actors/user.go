package actors

import "context"

// User is the user actor: credits (key "credits") and one key "c/<order>" per
// charge, written with the credits it took, so a refund gives back exactly
// that order's charge, once.
type User struct {
	base
	loaded, exists bool
	credits        int64
}

func (a *User) Type() string { return KindUser }

// Handle is the actor's one method (Call.Op names the operation).
func (a *User) Handle(_ context.Context, call *Call) (*Reply, error) {
	return a.call(KindUser, call, a.handle)
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
		// idempotent: gives back this order's charge, if there was one
		var charged int64
		found, err := rt.load(KindUser, actorID, chargeKey(call.OrderID), &charged)
		if err != nil {
			return internal(err)
		}
		if !found {
			return &Reply{}
		}
		next := a.credits + charged
		if err := rt.commit(KindUser, actorID, set("credits", next), del(chargeKey(call.OrderID))); err != nil {
			return internal(err)
		}
		a.credits = next
		return &Reply{}
	}
	return unknownOp(KindUser, call)
}
