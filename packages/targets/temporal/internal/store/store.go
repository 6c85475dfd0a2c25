// Package store is the application's state in the target's own PostgreSQL:
// the statements the gateway runs for single-entity routes and the ones the
// workflows' activities run. Every write is one transaction.
package store

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed schema.sql
var schema string

// Failure is an answer other than success: the HTTP status, the SPEC error code and a message.
type Failure struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (f *Failure) Error() string { return f.Message }

func notFound(entity, id string) *Failure {
	return &Failure{Status: 404, Code: "not-found", Message: fmt.Sprintf("%s %q not found", entity, id)}
}

// Conflict is a 409 with a SPEC 2.1 code.
func Conflict(code, format string, args ...any) *Failure {
	return &Failure{Status: 409, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Store is a pool of connections to the target's PostgreSQL.
type Store struct{ pool *pgxpool.Pool }

// Open connects with at most size connections and creates the schema, retrying
// while the server is still starting (a restart after kill -9 races its recovery).
func Open(ctx context.Context, url string, size int) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	cfg.MaxConns = int32(size)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		_, err = pool.Exec(ctx, schema)
		if err == nil {
			return &Store{pool}, nil
		}
		if attempt >= 60 || ctx.Err() != nil {
			pool.Close()
			return nil, fmt.Errorf("creating the schema: %w", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Product is GET /products/{id}.
type Product struct {
	ID    string `json:"id"`
	Price int64  `json:"price"`
	Stock int64  `json:"stock"`
}

// User is GET /users/{id}.
type User struct {
	ID      string `json:"id"`
	Credits int64  `json:"credits"`
}

// Item is one product of a cart.
type Item struct {
	ProductID string `json:"productId"`
	Amount    int64  `json:"amount"`
}

// Cart is GET /shopping-carts/{id}.
type Cart struct {
	ID         string `json:"id"`
	Items      []Item `json:"items"`
	CheckedOut bool   `json:"checkedOut"`
}

// Order is GET /orders/{id}.
type Order struct {
	ID      string  `json:"id"`
	CartID  string  `json:"cartId"`
	UserID  string  `json:"userId"`
	Status  string  `json:"status"`
	Total   int64   `json:"total"`
	Failure *string `json:"failure,omitempty"`
}

func (s *Store) tx(ctx context.Context, f func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, f)
}

// CreateProduct inserts a product.
func (s *Store) CreateProduct(ctx context.Context, id string, price, stock int64) error {
	_, err := s.pool.Exec(ctx, "INSERT INTO products (id, price, stock) VALUES ($1, $2, $3)", id, price, stock)
	return err
}

// UpsertProduct sets the price and adds the stock, creating the product when it is new.
func (s *Store) UpsertProduct(ctx context.Context, id string, price, stock *int64) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO products AS p (id, price, stock) VALUES ($1, COALESCE($2, 0), COALESCE($3, 0))
		ON CONFLICT (id) DO UPDATE SET price = COALESCE($2, p.price), stock = p.stock + COALESCE($3, 0)`, id, price, stock)
	return err
}

// GetProduct reads a product.
func (s *Store) GetProduct(ctx context.Context, id string) (*Product, error) {
	p := Product{ID: id}
	err := s.pool.QueryRow(ctx, "SELECT price, stock FROM products WHERE id = $1", id).Scan(&p.Price, &p.Stock)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("product", id)
	}
	return &p, err
}

// CreateUser inserts a user.
func (s *Store) CreateUser(ctx context.Context, id string, credits int64) error {
	_, err := s.pool.Exec(ctx, "INSERT INTO users (id, credits) VALUES ($1, $2)", id, credits)
	return err
}

// GetUser reads a user.
func (s *Store) GetUser(ctx context.Context, id string) (*User, error) {
	u := User{ID: id}
	err := s.pool.QueryRow(ctx, "SELECT credits FROM users WHERE id = $1", id).Scan(&u.Credits)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("user", id)
	}
	return &u, err
}

// AddCredits adds to a user's credits.
func (s *Store) AddCredits(ctx context.Context, id string, credits int64) error {
	tag, err := s.pool.Exec(ctx, "UPDATE users SET credits = credits + $2 WHERE id = $1", id, credits)
	if err == nil && tag.RowsAffected() == 0 {
		return notFound("user", id)
	}
	return err
}

// CreateCart inserts an empty cart.
func (s *Store) CreateCart(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, "INSERT INTO carts (id) VALUES ($1)", id)
	return err
}

// GetCart reads a cart and its items.
func (s *Store) GetCart(ctx context.Context, id string) (*Cart, error) {
	c := Cart{ID: id, Items: []Item{}}
	err := s.pool.QueryRow(ctx, "SELECT checked_out FROM carts WHERE id = $1", id).Scan(&c.CheckedOut)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("cart", id)
	}
	if err != nil {
		return nil, err
	}
	c.Items, err = items(ctx, s.pool, id)
	return &c, err
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func items(ctx context.Context, q querier, cartID string) ([]Item, error) {
	rows, err := q.Query(ctx, "SELECT product_id, amount FROM cart_items WHERE cart_id = $1 ORDER BY product_id", cartID)
	if err != nil {
		return nil, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Item, error) {
		var it Item
		return it, r.Scan(&it.ProductID, &it.Amount)
	})
	if list == nil {
		list = []Item{}
	}
	return list, err
}

// AddToCart adds amount of a product to a cart that is not checked out.
func (s *Store) AddToCart(ctx context.Context, cartID, productID string, amount int64) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		var checkedOut, productFound bool
		err := tx.QueryRow(ctx, `SELECT c.checked_out, EXISTS (SELECT 1 FROM products p WHERE p.id = $2)
			FROM carts c WHERE c.id = $1 FOR NO KEY UPDATE OF c`, cartID, productID).Scan(&checkedOut, &productFound)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("cart", cartID)
		}
		if err != nil {
			return err
		}
		if !productFound {
			return notFound("product", productID)
		}
		if checkedOut {
			return Conflict("cart-checked-out", "cart %q is already checked out", cartID)
		}
		_, err = tx.Exec(ctx, `INSERT INTO cart_items AS i (cart_id, product_id, amount) VALUES ($1, $2, $3)
			ON CONFLICT (cart_id, product_id) DO UPDATE SET amount = i.amount + $3`, cartID, productID, amount)
		return err
	})
}

// GetOrder reads an order.
func (s *Store) GetOrder(ctx context.Context, id string) (*Order, error) {
	o := Order{ID: id}
	err := s.pool.QueryRow(ctx, "SELECT cart_id, user_id, status, total, failure FROM orders WHERE id = $1", id).
		Scan(&o.CartID, &o.UserID, &o.Status, &o.Total, &o.Failure)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("order", id)
	}
	return &o, err
}

// ReadCart is checkout step 1: the cart's items, or why the checkout cannot start.
func (s *Store) ReadCart(ctx context.Context, cartID, userID string) ([]Item, *Failure, error) {
	var checkedOut, userFound bool
	err := s.pool.QueryRow(ctx, "SELECT c.checked_out, EXISTS (SELECT 1 FROM users u WHERE u.id = $2) FROM carts c WHERE c.id = $1",
		cartID, userID).Scan(&checkedOut, &userFound)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("cart", cartID), nil
	}
	if err != nil {
		return nil, nil, err
	}
	if !userFound {
		return nil, notFound("user", userID), nil
	}
	if checkedOut {
		return nil, Conflict("cart-checked-out", "cart %q is already checked out", cartID), nil
	}
	list, err := items(ctx, s.pool, cartID)
	if err != nil {
		return nil, nil, err
	}
	if len(list) == 0 {
		return nil, Conflict("empty-cart", "cart %q is empty", cartID), nil
	}
	return list, nil, nil
}

// Reserve retracts amount of a product for an order, atomically or not at all,
// and answers its price; ok is false when the stock is short. A second call for
// the same order and product answers what the first did.
func (s *Store) Reserve(ctx context.Context, orderID, productID string, amount int64) (price int64, ok bool, err error) {
	err = s.tx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, "SELECT price FROM reservations WHERE order_id = $1 AND product_id = $2", orderID, productID).Scan(&price)
		if err == nil {
			ok = true
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		err = tx.QueryRow(ctx, "UPDATE products SET stock = stock - $2 WHERE id = $1 AND stock >= $2 RETURNING price", productID, amount).Scan(&price)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		_, err = tx.Exec(ctx, "INSERT INTO reservations (order_id, product_id, amount, price) VALUES ($1, $2, $3, $4)", orderID, productID, amount, price)
		return err
	})
	return price, ok, err
}

// Release puts back what Reserve retracted for an order (compensation); a second call does nothing.
func (s *Store) Release(ctx context.Context, orderID, productID string) error {
	_, err := s.pool.Exec(ctx, `WITH r AS (DELETE FROM reservations WHERE order_id = $1 AND product_id = $2 RETURNING amount)
		UPDATE products p SET stock = p.stock + r.amount FROM r WHERE p.id = $2`, orderID, productID)
	return err
}

// Charge retracts total from a user for an order, atomically or not at all;
// ok is false when the credits are short. A second call answers what the first did.
func (s *Store) Charge(ctx context.Context, orderID, userID string, total int64) (ok bool, err error) {
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM charges WHERE order_id = $1", orderID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			ok = true
			return nil
		}
		tag, err := tx.Exec(ctx, "UPDATE users SET credits = credits - $2 WHERE id = $1 AND credits >= $2", userID, total)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		ok = true
		_, err = tx.Exec(ctx, "INSERT INTO charges (order_id, user_id, total) VALUES ($1, $2, $3)", orderID, userID, total)
		return err
	})
	return ok, err
}

// Refund puts back what Charge retracted for an order (compensation); a second call does nothing.
func (s *Store) Refund(ctx context.Context, orderID string) error {
	_, err := s.pool.Exec(ctx, `WITH c AS (DELETE FROM charges WHERE order_id = $1 RETURNING user_id, total)
		UPDATE users u SET credits = u.credits + c.total FROM c WHERE u.id = c.user_id`, orderID)
	return err
}

// Complete marks the cart checked out and records the completed order, in one
// transaction; ok is false when the cart was checked out by another order.
func (s *Store) Complete(ctx context.Context, orderID, cartID, userID string, total int64) (ok bool, err error) {
	err = s.tx(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM orders WHERE id = $1", orderID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			ok = true
			return nil
		}
		tag, err := tx.Exec(ctx, "UPDATE carts SET checked_out = true WHERE id = $1 AND NOT checked_out", cartID)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		ok = true
		_, err = tx.Exec(ctx, "INSERT INTO orders (id, cart_id, user_id, status, total) VALUES ($1, $2, $3, 'completed', $4)", orderID, cartID, userID, total)
		return err
	})
	return ok, err
}

// RecordCoPurchase counts every pair of distinct products of a completed
// order once: the order's flag and the counts change in one transaction.
// Pairs are written in (p, q) order, the same lock order in every
// transaction, so concurrent orders do not deadlock.
func (s *Store) RecordCoPurchase(ctx context.Context, orderID string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE orders SET co_purchased = true WHERE id = $1 AND status = 'completed' AND NOT co_purchased", orderID)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO co_purchase AS c (p, q, count)
			SELECT a.product_id, b.product_id, 1 FROM reservations a JOIN reservations b
			  ON a.order_id = b.order_id AND a.product_id <> b.product_id
			WHERE a.order_id = $1 ORDER BY 1, 2
			ON CONFLICT (p, q) DO UPDATE SET count = c.count + 1`, orderID)
		return err
	})
}

// PendingCoPurchases lists completed orders older than age whose pairs are not counted yet.
func (s *Store) PendingCoPurchases(ctx context.Context, age time.Duration, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM orders WHERE NOT co_purchased AND status = 'completed'
		AND created_at < now() - $1::interval ORDER BY created_at LIMIT $2`, fmt.Sprintf("%d milliseconds", age.Milliseconds()), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ProductExists says whether a product exists.
func (s *Store) ProductExists(ctx context.Context, id string) (bool, error) {
	var found bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM products WHERE id = $1)", id).Scan(&found)
	return found, err
}

// Top is top(p, n, V) of SPEC 2.2: the n products bought most often with p, ties by ascending id, none of exclude.
func (s *Store) Top(ctx context.Context, p string, n int, exclude []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, "SELECT q FROM co_purchase WHERE p = $1 AND q <> ALL ($2::text[]) ORDER BY count DESC, q LIMIT $3", p, exclude, n)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// MicroIO writes SPEC 8's payload of n bytes under key, reads it back and answers its sha256.
func (s *Store) MicroIO(ctx context.Context, key string, n int) (string, error) {
	payload := Pattern(n)
	var back []byte
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO micro_io (key, payload) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET payload = excluded.payload`, key, payload); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT payload FROM micro_io WHERE key = $1", key).Scan(&back)
	})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(back)
	return hex.EncodeToString(sum[:]), nil
}

// Pattern is SPEC 8's ASCII payload: byte i is 'a' + i mod 26.
func Pattern(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte('a' + i%26)
	}
	return p
}

// Duplicate says whether err is a unique violation (a create whose id exists).
func Duplicate(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}

// MulTotal adds price*amount to total; ok is false when it leaves int64 (no user has that many credits).
func MulTotal(total, price, amount int64) (int64, bool) {
	if price != 0 && amount > (math.MaxInt64-total)/price {
		return 0, false
	}
	return total + price*amount, true
}
