package gotest

import (
	"context"
	"errors"
	"sync"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
)

// fakeStore is the checkout's store in memory, with the same per-order
// idempotency as store.Store, and failures to inject.
type fakeStore struct {
	mu           sync.Mutex
	price, stock map[string]int64
	credits      map[string]int64
	items        map[string][]store.Item
	checkedOut   map[string]bool
	reserved     map[[2]string]int64
	charged      map[string]charge
	orders       map[string]int64
	coPurchased  map[string]bool
	// failReserve fails the next n Reserve calls of a product with a transient error.
	failReserve map[string]int
	calls       map[string]int
}

func newFakeStore() *fakeStore {
	return &fakeStore{
		price: map[string]int64{}, stock: map[string]int64{}, credits: map[string]int64{},
		items: map[string][]store.Item{}, checkedOut: map[string]bool{}, reserved: map[[2]string]int64{},
		charged: map[string]charge{}, orders: map[string]int64{}, coPurchased: map[string]bool{},
		failReserve: map[string]int{}, calls: map[string]int{},
	}
}

type charge struct {
	user  string
	total int64
}

var errTransient = errors.New("connection reset (injected)")

func (f *fakeStore) ReadCart(_ context.Context, cartID, userID string) ([]store.Item, *store.Failure, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["ReadCart"]++
	items, ok := f.items[cartID]
	if !ok {
		return nil, &store.Failure{Status: 404, Code: "not-found", Message: "cart"}, nil
	}
	if _, ok := f.credits[userID]; !ok {
		return nil, &store.Failure{Status: 404, Code: "not-found", Message: "user"}, nil
	}
	if f.checkedOut[cartID] {
		return nil, store.Conflict("cart-checked-out", "checked out"), nil
	}
	if len(items) == 0 {
		return nil, store.Conflict("empty-cart", "empty"), nil
	}
	return items, nil, nil
}

func (f *fakeStore) Reserve(_ context.Context, orderID, productID string, amount int64) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["Reserve"]++
	if f.failReserve[productID] > 0 {
		f.failReserve[productID]--
		return 0, false, errTransient
	}
	if _, ok := f.reserved[[2]string{orderID, productID}]; ok {
		return f.price[productID], true, nil
	}
	if f.stock[productID] < amount {
		return 0, false, nil
	}
	f.stock[productID] -= amount
	f.reserved[[2]string{orderID, productID}] = amount
	return f.price[productID], true, nil
}

func (f *fakeStore) Release(_ context.Context, orderID, productID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["Release"]++
	k := [2]string{orderID, productID}
	if amount, ok := f.reserved[k]; ok {
		f.stock[productID] += amount
		delete(f.reserved, k)
	}
	return nil
}

func (f *fakeStore) Charge(_ context.Context, orderID, userID string, total int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["Charge"]++
	if _, ok := f.charged[orderID]; ok {
		return true, nil
	}
	if f.credits[userID] < total {
		return false, nil
	}
	f.credits[userID] -= total
	f.charged[orderID] = charge{userID, total}
	return true, nil
}

func (f *fakeStore) Refund(_ context.Context, orderID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["Refund"]++
	if c, ok := f.charged[orderID]; ok {
		f.credits[c.user] += c.total
		delete(f.charged, orderID)
	}
	return nil
}

func (f *fakeStore) Complete(_ context.Context, orderID, cartID, _ string, total int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls["Complete"]++
	if _, ok := f.orders[orderID]; ok {
		return true, nil
	}
	if f.checkedOut[cartID] {
		return false, nil
	}
	f.checkedOut[cartID] = true
	f.orders[orderID] = total
	return true, nil
}

func (f *fakeStore) RecordCoPurchase(_ context.Context, orderID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.coPurchased[orderID] = true
	return nil
}
