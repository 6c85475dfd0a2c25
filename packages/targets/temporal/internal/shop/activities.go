package shop

import (
	"context"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/trace"
)

// Store is what the activities need of the application's state (store.Store;
// the unit tests give them a fake).
type Store interface {
	ReadCart(ctx context.Context, cartID, userID string) ([]store.Item, *store.Failure, error)
	Reserve(ctx context.Context, orderID, productID string, amount int64) (int64, bool, error)
	Release(ctx context.Context, orderID, productID string) error
	Charge(ctx context.Context, orderID, userID string, total int64) (bool, error)
	Refund(ctx context.Context, orderID string) error
	Complete(ctx context.Context, orderID, cartID, userID string, total int64) (bool, error)
	RecordCoPurchase(ctx context.Context, orderID string) error
}

// Activities are the checkout's and co-purchase's side effects: each one
// statement or transaction over the store, idempotent per order, because
// Temporal runs an activity at least once. An activity of a traced checkout
// writes a function span of the entity it changes to Spans (nil: tracing off).
type Activities struct {
	Store Store
	Spans *trace.Writer
}

// CartRead is ReadCart's answer: the items, or why the checkout ends here.
type CartRead struct {
	Items   []store.Item   `json:"items,omitempty"`
	Failure *store.Failure `json:"failure,omitempty"`
}

// ReadCart is checkout step 1.
func (a *Activities) ReadCart(ctx context.Context, cartID, userID string) (CartRead, error) {
	defer trace.Function(ctx, a.Spans, "cart", "read", cartID)()
	items, failure, err := a.Store.ReadCart(ctx, cartID, userID)
	return CartRead{Items: items, Failure: failure}, err
}

// Reservation is one product's part of an order.
type Reservation struct {
	OrderID   string `json:"orderId"`
	ProductID string `json:"productId"`
	Amount    int64  `json:"amount"`
}

// Reserved is ReserveStock's answer: the product's price, or OK false when its stock is short.
type Reserved struct {
	OK    bool  `json:"ok"`
	Price int64 `json:"price"`
}

// ReserveStock retracts one product's amount (checkout step 2).
func (a *Activities) ReserveStock(ctx context.Context, r Reservation) (Reserved, error) {
	defer trace.Function(ctx, a.Spans, "product", "retract", r.ProductID)()
	price, ok, err := a.Store.Reserve(ctx, r.OrderID, r.ProductID, r.Amount)
	return Reserved{OK: ok, Price: price}, err
}

// ReleaseStock is ReserveStock's compensation.
func (a *Activities) ReleaseStock(ctx context.Context, r Reservation) error {
	defer trace.Function(ctx, a.Spans, "product", "release", r.ProductID)()
	return a.Store.Release(ctx, r.OrderID, r.ProductID)
}

// Payment is an order's charge.
type Payment struct {
	OrderID string `json:"orderId"`
	UserID  string `json:"userId"`
	Total   int64  `json:"total"`
}

// ChargeUser retracts the total from the user (checkout step 4); false when the credits are short.
func (a *Activities) ChargeUser(ctx context.Context, p Payment) (bool, error) {
	defer trace.Function(ctx, a.Spans, "user", "charge", p.UserID)()
	return a.Store.Charge(ctx, p.OrderID, p.UserID, p.Total)
}

// RefundUser is ChargeUser's compensation.
func (a *Activities) RefundUser(ctx context.Context, p Payment) error {
	defer trace.Function(ctx, a.Spans, "user", "refund", p.UserID)()
	return a.Store.Refund(ctx, p.OrderID)
}

// CompleteOrder marks the cart checked out and records the order (checkout
// step 5); false when another order checked the cart out first.
func (a *Activities) CompleteOrder(ctx context.Context, in CheckoutInput, total int64) (bool, error) {
	defer trace.Function(ctx, a.Spans, "order", "create", in.OrderID)()
	return a.Store.Complete(ctx, in.OrderID, in.CartID, in.UserID, total)
}

// RecordCoPurchase counts the order's product pairs (checkout step 6).
func (a *Activities) RecordCoPurchase(ctx context.Context, orderID string) error {
	return a.Store.RecordCoPurchase(ctx, orderID)
}
