package gotest

import (
	"context"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/shop"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
)

// shopFixture: products a (price 3, stock 10) and b (price 5, stock 1), user u
// with 100 credits, cart c holding 2 a and 1 b (total 11).
func shopFixture() *fakeStore {
	f := newFakeStore()
	f.price["a"], f.stock["a"] = 3, 10
	f.price["b"], f.stock["b"] = 5, 1
	f.credits["u"] = 100
	f.items["c"] = []store.Item{{ProductID: "a", Amount: 2}, {ProductID: "b", Amount: 1}}
	return f
}

func runCheckout(t *testing.T, f *fakeStore, in shop.CheckoutInput) shop.CheckoutResult {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(shop.Checkout)
	env.RegisterActivity(&shop.Activities{Store: f})
	env.ExecuteWorkflow(shop.Checkout, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the checkout workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("the checkout workflow failed: %v", err)
	}
	var res shop.CheckoutResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

func expectState(t *testing.T, f *fakeStore, stockA, stockB, credits int64) {
	t.Helper()
	if f.stock["a"] != stockA || f.stock["b"] != stockB || f.credits["u"] != credits {
		t.Fatalf("stock a %d b %d, credits %d; expected a %d b %d, credits %d", f.stock["a"], f.stock["b"], f.credits["u"], stockA, stockB, credits)
	}
}

func expectFailure(t *testing.T, res shop.CheckoutResult, code string) {
	t.Helper()
	if res.Failure == nil || res.Failure.Code != code || res.Failure.Status != 409 {
		t.Fatalf("expected a 409 %s, got %+v", code, res)
	}
}

func TestCheckoutRetractsStockChargesAndCompletes(t *testing.T) {
	f := shopFixture()
	res := runCheckout(t, f, shop.CheckoutInput{OrderID: "o1", CartID: "c", UserID: "u"})
	if res.Failure != nil || res.OrderID != "o1" || res.Total != 11 {
		t.Fatalf("expected order o1 with total 11, got %+v", res)
	}
	expectState(t, f, 8, 0, 89)
	if !f.checkedOut["c"] || f.orders["o1"] != 11 {
		t.Fatalf("expected cart c checked out and order o1 recorded, got %v %v", f.checkedOut, f.orders)
	}
}

func TestCheckoutCompensatesReservedStockWhenOneProductLacksStock(t *testing.T) {
	f := shopFixture()
	f.items["c"] = []store.Item{{ProductID: "a", Amount: 2}, {ProductID: "b", Amount: 2}}
	res := runCheckout(t, f, shop.CheckoutInput{OrderID: "o1", CartID: "c", UserID: "u"})
	expectFailure(t, res, "insufficient-stock")
	expectState(t, f, 10, 1, 100)
	if f.calls["Release"] != 1 || f.calls["Charge"] != 0 || f.checkedOut["c"] {
		t.Fatalf("expected one release (a's), no charge, cart open; calls %v", f.calls)
	}
}

func TestCheckoutPutsBackAllStockWhenCreditsAreShort(t *testing.T) {
	f := shopFixture()
	f.credits["u"] = 10
	res := runCheckout(t, f, shop.CheckoutInput{OrderID: "o1", CartID: "c", UserID: "u"})
	expectFailure(t, res, "insufficient-credits")
	expectState(t, f, 10, 1, 10)
	if len(f.reserved) != 0 || len(f.orders) != 0 {
		t.Fatalf("expected no reservation and no order left, got %v %v", f.reserved, f.orders)
	}
}

func TestCheckoutRefundsAndReleasesWhenTheCartWasCheckedOutMeanwhile(t *testing.T) {
	f := shopFixture()
	// Another order checks the cart out between this checkout's read and its completion.
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(shop.Checkout)
	env.RegisterActivity(&shop.Activities{Store: f})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == "CompleteOrder" {
			f.mu.Lock()
			f.checkedOut["c"] = true
			f.mu.Unlock()
		}
	})
	env.ExecuteWorkflow(shop.Checkout, shop.CheckoutInput{OrderID: "o1", CartID: "c", UserID: "u"})
	var res shop.CheckoutResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	expectFailure(t, res, "cart-checked-out")
	expectState(t, f, 10, 1, 100)
}

func TestCheckoutRetriesAFailedReservationWithoutRetractingTwice(t *testing.T) {
	f := shopFixture()
	f.failReserve["a"] = 2
	res := runCheckout(t, f, shop.CheckoutInput{OrderID: "o1", CartID: "c", UserID: "u"})
	if res.Failure != nil || res.Total != 11 {
		t.Fatalf("expected total 11 after retries, got %+v", res)
	}
	expectState(t, f, 8, 0, 89)
	if f.calls["Reserve"] != 4 {
		t.Fatalf("expected 4 reservation attempts (a three times, b once), got %d", f.calls["Reserve"])
	}
}

func TestCheckoutPassesReadCartRefusalsOn(t *testing.T) {
	f := shopFixture()
	f.items["empty"] = nil
	expectFailure(t, runCheckout(t, f, shop.CheckoutInput{OrderID: "o1", CartID: "empty", UserID: "u"}), "empty-cart")
	res := runCheckout(t, f, shop.CheckoutInput{OrderID: "o2", CartID: "c", UserID: "nobody"})
	if res.Failure == nil || res.Failure.Status != 404 {
		t.Fatalf("expected 404 for an unknown user, got %+v", res)
	}
	if f.calls["Reserve"] != 0 {
		t.Fatalf("expected no reservation, got %d", f.calls["Reserve"])
	}
}

func TestCoPurchaseRecordsTheOrder(t *testing.T) {
	f := shopFixture()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(shop.CoPurchase)
	env.RegisterActivity(&shop.Activities{Store: f})
	env.ExecuteWorkflow(shop.CoPurchase, "o1")
	if err := env.GetWorkflowError(); err != nil || !f.coPurchased["o1"] {
		t.Fatalf("expected order o1 counted, err %v", err)
	}
}
