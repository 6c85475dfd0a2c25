// Package actors holds the Dapr virtual actors of the benchmark application:
// one actor type per entity, hosted through the Dapr Go SDK, state kept in
// the actor state store and committed before an actor answers.
package actors

import "fmt"

// Actor types (Dapr actor types, one per entity).
const (
	KindProduct = "product"
	KindUser    = "user"
	KindCart    = "cart"
	KindOrder   = "order"
)

// Call is a request to an actor: the JSON body of one Dapr actor invocation
// of the actor's Handle method.
type Call struct {
	Op        string     `json:"op"`
	Price     *int64     `json:"price,omitempty"`
	Stock     *int64     `json:"stock,omitempty"`
	Amount    int64      `json:"amount,omitempty"`
	Credits   int64      `json:"credits,omitempty"`
	ProductID string     `json:"productId,omitempty"`
	UserID    string     `json:"userId,omitempty"`
	CartID    string     `json:"cartId,omitempty"`
	OrderID   string     `json:"orderId,omitempty"`
	Total     int64      `json:"total,omitempty"`
	Top       int        `json:"top,omitempty"`
	Exclude   []string   `json:"exclude,omitempty"`
	Others    []string   `json:"others,omitempty"`
	Trace     *TraceLink `json:"trace,omitempty"`
}

// Reply is an actor's answer. Status 0 is success; otherwise an HTTP status
// with an error code and message (SPEC 2 error bodies).
type Reply struct {
	Status  int           `json:"status,omitempty"`
	Code    string        `json:"code,omitempty"`
	Message string        `json:"message,omitempty"`
	Product *ProductView  `json:"product,omitempty"`
	User    *UserView     `json:"user,omitempty"`
	Cart    *CartView     `json:"cart,omitempty"`
	Order   *OrderView    `json:"order,omitempty"`
	Price   int64         `json:"priceOut,omitempty"`
	Ids     []string      `json:"ids,omitempty"`
	Result  *CheckoutView `json:"result,omitempty"`
}

type ProductView struct {
	ID    string `json:"id"`
	Price int64  `json:"price"`
	Stock int64  `json:"stock"`
}

type UserView struct {
	ID      string `json:"id"`
	Credits int64  `json:"credits"`
}

type CartItemView struct {
	ProductID string `json:"productId"`
	Amount    int64  `json:"amount"`
}

type CartView struct {
	ID         string         `json:"id"`
	Items      []CartItemView `json:"items"`
	CheckedOut bool           `json:"checkedOut"`
}

type OrderView struct {
	ID     string `json:"id"`
	CartID string `json:"cartId"`
	UserID string `json:"userId"`
	Status string `json:"status"`
	Total  int64  `json:"total"`
}

type CheckoutView struct {
	OrderID string `json:"orderId"`
	Total   int64  `json:"total"`
}

func fail(status int, code, format string, args ...any) *Reply {
	return &Reply{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func internal(err error) *Reply {
	return &Reply{Status: 500, Code: "internal", Message: err.Error()}
}
