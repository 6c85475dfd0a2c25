// Package shop is the checkout of SPEC 2.1 as Temporal workflows: a saga
// whose activities retract stock per product in parallel, charge the user,
// complete the order, and compensate in reverse when a step is refused; and
// the co-purchase update, a workflow of its own started after the answer.
package shop

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
)

// TaskQueue is the one task queue of the target's workflows and activities.
const TaskQueue = "sfbench"

// CheckoutInput is one checkout: the gateway chooses the order id.
type CheckoutInput struct {
	OrderID string `json:"orderId"`
	CartID  string `json:"cartId"`
	UserID  string `json:"userId"`
}

// CheckoutResult is the answer: the order and its total, or the SPEC 2.1 refusal.
type CheckoutResult struct {
	OrderID string         `json:"orderId,omitempty"`
	Total   int64          `json:"total"`
	Failure *store.Failure `json:"failure,omitempty"`
}

// CheckoutWorkflowID is the workflow id of a cart's checkout: one cart has
// at most one checkout running, and a retried checkout of a cart finds it.
func CheckoutWorkflowID(cartID string) string { return "checkout/" + cartID }

// CoPurchaseWorkflowID is the workflow id of an order's co-purchase update.
func CoPurchaseWorkflowID(orderID string) string { return "co-purchase/" + orderID }

// activityOptions: a store statement takes milliseconds; StartToClose bounds
// one attempt of one that hangs (a lost connection), and the retries go on
// until it succeeds, since every activity is idempotent and a checkout must
// not stop half-way with stock retracted.
var activityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    50 * time.Millisecond,
		BackoffCoefficient: 2,
		MaximumInterval:    2 * time.Second,
	},
}

// Checkout is SPEC 2.1 steps 1-5.
func Checkout(ctx workflow.Context, in CheckoutInput) (CheckoutResult, error) {
	ctx = workflow.WithActivityOptions(ctx, activityOptions)
	var a *Activities

	var cart CartRead
	if err := workflow.ExecuteActivity(ctx, a.ReadCart, in.CartID, in.UserID).Get(ctx, &cart); err != nil {
		return CheckoutResult{}, err
	}
	if cart.Failure != nil {
		return CheckoutResult{Failure: cart.Failure}, nil
	}

	// Fan-out: every product retracts concurrently; fan-in: wait for all.
	futures := make([]workflow.Future, len(cart.Items))
	for i, it := range cart.Items {
		futures[i] = workflow.ExecuteActivity(ctx, a.ReserveStock, Reservation{OrderID: in.OrderID, ProductID: it.ProductID, Amount: it.Amount})
	}
	var reserved []Reservation
	var lacking []string
	var total int64
	fits := true
	var failed error
	for i, f := range futures {
		var r Reserved
		if err := f.Get(ctx, &r); err != nil {
			failed = err
			continue
		}
		it := cart.Items[i]
		if !r.OK {
			lacking = append(lacking, it.ProductID)
			continue
		}
		reserved = append(reserved, Reservation{OrderID: in.OrderID, ProductID: it.ProductID, Amount: it.Amount})
		var ok bool
		if total, ok = store.MulTotal(total, r.Price, it.Amount); !ok {
			fits = false
		}
	}
	compensations := &saga{}
	for _, r := range reserved {
		compensations.add(a.ReleaseStock, r)
	}
	if failed != nil {
		compensations.run(ctx)
		return CheckoutResult{}, failed
	}
	if len(lacking) > 0 {
		compensations.run(ctx)
		return CheckoutResult{Failure: store.Conflict("insufficient-stock", "not enough stock of %v", lacking)}, nil
	}

	payment := Payment{OrderID: in.OrderID, UserID: in.UserID, Total: total}
	charged := false
	if fits {
		if err := workflow.ExecuteActivity(ctx, a.ChargeUser, payment).Get(ctx, &charged); err != nil {
			compensations.run(ctx)
			return CheckoutResult{}, err
		}
	}
	if !charged {
		compensations.run(ctx)
		return CheckoutResult{Failure: store.Conflict("insufficient-credits", "user %q has fewer than %d credits", in.UserID, total)}, nil
	}
	compensations.add(a.RefundUser, payment)

	var completed bool
	if err := workflow.ExecuteActivity(ctx, a.CompleteOrder, in, total).Get(ctx, &completed); err != nil {
		compensations.run(ctx)
		return CheckoutResult{}, err
	}
	if !completed {
		compensations.run(ctx)
		return CheckoutResult{Failure: store.Conflict("cart-checked-out", "cart %q is already checked out", in.CartID)}, nil
	}
	return CheckoutResult{OrderID: in.OrderID, Total: total}, nil
}

// saga collects compensations as the steps succeed and runs them in reverse.
type saga struct{ steps []compensation }

type compensation struct {
	activity any
	arg      any
}

func (s *saga) add(activity, arg any) { s.steps = append(s.steps, compensation{activity, arg}) }

// run puts everything back, concurrently (releases of different products do
// not depend on each other), on a context that a cancellation of the
// checkout does not cancel: compensation must finish.
func (s *saga) run(ctx workflow.Context) {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	futures := make([]workflow.Future, 0, len(s.steps))
	for i := len(s.steps) - 1; i >= 0; i-- {
		futures = append(futures, workflow.ExecuteActivity(ctx, s.steps[i].activity, s.steps[i].arg))
	}
	for _, f := range futures {
		_ = f.Get(ctx, nil)
	}
}

// CoPurchase is SPEC 2.1 step 6 for one completed order.
func CoPurchase(ctx workflow.Context, orderID string) error {
	ctx = workflow.WithActivityOptions(ctx, activityOptions)
	var a *Activities
	return workflow.ExecuteActivity(ctx, a.RecordCoPurchase, orderID).Get(ctx, nil)
}
