// Package store persists grain state in PostgreSQL: one row per grain, written
// through before the grain answers, and read when the grain activates.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const schema = `
CREATE TABLE IF NOT EXISTS products (id text PRIMARY KEY, price integer NOT NULL, stock bigint NOT NULL);
CREATE TABLE IF NOT EXISTS users (id text PRIMARY KEY, credits bigint NOT NULL);
CREATE TABLE IF NOT EXISTS carts (id text PRIMARY KEY, items jsonb NOT NULL, checked_out boolean NOT NULL, order_id text, pending_order text, pending_user text);
ALTER TABLE carts ADD COLUMN IF NOT EXISTS pending_order text, ADD COLUMN IF NOT EXISTS pending_user text;
CREATE INDEX IF NOT EXISTS carts_pending ON carts (id) WHERE pending_order IS NOT NULL;
CREATE TABLE IF NOT EXISTS retractions (order_id text NOT NULL, product_id text NOT NULL, amount bigint NOT NULL, PRIMARY KEY (order_id, product_id));
CREATE TABLE IF NOT EXISTS charges (order_id text PRIMARY KEY, user_id text NOT NULL, total bigint NOT NULL);
CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, cart_id text NOT NULL, user_id text NOT NULL, status text NOT NULL, total bigint NOT NULL);
CREATE TABLE IF NOT EXISTS co_purchase (p text NOT NULL, q text NOT NULL, count bigint NOT NULL, PRIMARY KEY (p, q));
CREATE TABLE IF NOT EXISTS micro_io (key text PRIMARY KEY, payload bytea NOT NULL);
`

// Store is the PostgreSQL pool of one member process.
type Store struct {
	pool *pgxpool.Pool
}

// Open connects (lazily: the pool dials on first use) with poolSize connections.
func Open(ctx context.Context, url string, poolSize int) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	cfg.MaxConns = int32(poolSize)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Store{pool: pool}, nil
}

func (s *Store) Close() { s.pool.Close() }

// CreateSchema creates the tables if they are missing; an advisory lock keeps concurrent starts apart.
func (s *Store) CreateSchema(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit this is a no-op
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7261)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, schema); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Product is the persisted state of a product grain (co-purchase counts live in their own table).
type Product struct {
	Price int64
	Stock int64
}

func (s *Store) LoadProduct(ctx context.Context, id string) (*Product, error) {
	var p Product
	err := s.pool.QueryRow(ctx, "SELECT price, stock FROM products WHERE id = $1", id).Scan(&p.Price, &p.Stock)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func (s *Store) SaveProduct(ctx context.Context, id string, p Product) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO products (id, price, stock) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET price = excluded.price, stock = excluded.stock`, id, p.Price, p.Stock)
	return err
}

// LoadCoPurchase reads count[p][*].
func (s *Store) LoadCoPurchase(ctx context.Context, p string) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, "SELECT q, count FROM co_purchase WHERE p = $1", p)
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	var q string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&q, &n}, func() error {
		counts[q] = n
		return nil
	})
	return counts, err
}

func (s *Store) LoadUser(ctx context.Context, id string) (credits int64, found bool, err error) {
	err = s.pool.QueryRow(ctx, "SELECT credits FROM users WHERE id = $1", id).Scan(&credits)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return credits, err == nil, err
}

func (s *Store) SaveUser(ctx context.Context, id string, credits int64) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO users (id, credits) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET credits = excluded.credits`, id, credits)
	return err
}

// CartItem is one line of a cart, in the order products were first added.
type CartItem struct {
	ProductID string `json:"productId"`
	Amount    int64  `json:"amount"`
}

type Cart struct {
	Items      []CartItem
	CheckedOut bool
	OrderID    string
	// PendingOrder is set while a checkout runs: after a crash the cart finds
	// it on activation and completes or compensates that checkout.
	PendingOrder string
	PendingUser  string
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (s *Store) LoadCart(ctx context.Context, id string) (*Cart, error) {
	var c Cart
	var items []byte
	var orderID, pendingOrder, pendingUser *string
	err := s.pool.QueryRow(ctx, "SELECT items, checked_out, order_id, pending_order, pending_user FROM carts WHERE id = $1", id).
		Scan(&items, &c.CheckedOut, &orderID, &pendingOrder, &pendingUser)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c.OrderID, c.PendingOrder, c.PendingUser = str(orderID), str(pendingOrder), str(pendingUser)
	if err := json.Unmarshal(items, &c.Items); err != nil {
		return nil, fmt.Errorf("cart %s: items: %w", id, err)
	}
	return &c, nil
}

func (s *Store) SaveCart(ctx context.Context, id string, c Cart) error {
	items := c.Items
	if items == nil {
		items = []CartItem{}
	}
	raw, err := json.Marshal(items)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO carts (id, items, checked_out, order_id, pending_order, pending_user) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET items = excluded.items, checked_out = excluded.checked_out, order_id = excluded.order_id,
		pending_order = excluded.pending_order, pending_user = excluded.pending_user`,
		id, raw, c.CheckedOut, nullable(c.OrderID), nullable(c.PendingOrder), nullable(c.PendingUser))
	return err
}

// PendingCarts are the carts whose checkout was interrupted (a crash between its first and last step).
func (s *Store) PendingCarts(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, "SELECT id FROM carts WHERE pending_order IS NOT NULL")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

type Order struct {
	CartID string
	UserID string
	Status string
	Total  int64
}

func (s *Store) LoadOrder(ctx context.Context, id string) (*Order, error) {
	var o Order
	err := s.pool.QueryRow(ctx, "SELECT cart_id, user_id, status, total FROM orders WHERE id = $1", id).Scan(&o.CartID, &o.UserID, &o.Status, &o.Total)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &o, nil
}

func (s *Store) SaveOrder(ctx context.Context, id string, o Order) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO orders (id, cart_id, user_id, status, total) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, total = excluded.total`, id, o.CartID, o.UserID, o.Status, o.Total)
	return err
}

// AddCoPurchase adds increments to count[p][q] for the given (p, q) pairs in one statement.
func (s *Store) AddCoPurchase(ctx context.Context, ps, qs []string, ns []int64) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO co_purchase (p, q, count)
		SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
		ON CONFLICT (p, q) DO UPDATE SET count = co_purchase.count + excluded.count`, ps, qs, ns)
	return err
}

// RetractStock sets the product's stock and records the retraction of one
// order in the same statement, so that a compensation can tell whether there
// is anything to put back.
func (s *Store) RetractStock(ctx context.Context, productID, orderID string, amount, stock int64) error {
	_, err := s.pool.Exec(ctx, `WITH r AS (INSERT INTO retractions (order_id, product_id, amount) VALUES ($3, $1, $4))
		UPDATE products SET stock = $2 WHERE id = $1`, productID, stock, orderID, amount)
	return err
}

// RestoreStock puts back what one order retracted from a product, once: it
// answers the new stock, or restored=false when nothing was retracted (or it was restored already).
func (s *Store) RestoreStock(ctx context.Context, productID, orderID string) (stock int64, restored bool, err error) {
	err = s.pool.QueryRow(ctx, `WITH d AS (DELETE FROM retractions WHERE order_id = $2 AND product_id = $1 RETURNING amount)
		UPDATE products SET stock = stock + d.amount FROM d WHERE id = $1 RETURNING stock`, productID, orderID).Scan(&stock)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return stock, err == nil, err
}

// ChargeUser sets the user's credits and records the charge of one order in the same statement.
func (s *Store) ChargeUser(ctx context.Context, userID, orderID string, total, credits int64) error {
	_, err := s.pool.Exec(ctx, `WITH c AS (INSERT INTO charges (order_id, user_id, total) VALUES ($3, $1, $4))
		UPDATE users SET credits = $2 WHERE id = $1`, userID, credits, orderID, total)
	return err
}

// RefundUser gives back the charge of one order, once (refunded=false when there was none).
func (s *Store) RefundUser(ctx context.Context, userID, orderID string) (credits int64, refunded bool, err error) {
	err = s.pool.QueryRow(ctx, `WITH d AS (DELETE FROM charges WHERE order_id = $2 AND user_id = $1 RETURNING total)
		UPDATE users SET credits = credits + d.total FROM d WHERE id = $1 RETURNING credits`, userID, orderID).Scan(&credits)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return credits, err == nil, err
}

// WriteMicro stores the /micro/io payload of a micro grain (SPEC 8), committed before it returns.
func (s *Store) WriteMicro(ctx context.Context, key string, payload []byte) error {
	_, err := s.pool.Exec(ctx, "INSERT INTO micro_io (key, payload) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET payload = excluded.payload", key, payload)
	return err
}

// ReadMicro reads back the /micro/io payload of a micro grain.
func (s *Store) ReadMicro(ctx context.Context, key string) ([]byte, error) {
	var payload []byte
	err := s.pool.QueryRow(ctx, "SELECT payload FROM micro_io WHERE key = $1", key).Scan(&payload)
	return payload, err
}
