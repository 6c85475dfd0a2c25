-- The state of the SPEC 2 application. Idempotent: run on every start.
-- Ids use the "C" collation so that ORDER BY id is byte order (the
-- ascending-id tie-break of freq-items). Quantities that are added to are
-- bigint: 10^9 + many additions of up to 2^31-1 overflow int.

CREATE TABLE IF NOT EXISTS products (
  id    text COLLATE "C" PRIMARY KEY,
  price integer NOT NULL CHECK (price >= 0),
  stock bigint  NOT NULL CHECK (stock >= 0)
);

CREATE TABLE IF NOT EXISTS users (
  id      text COLLATE "C" PRIMARY KEY,
  credits bigint NOT NULL CHECK (credits >= 0)
);

CREATE TABLE IF NOT EXISTS carts (
  id          text COLLATE "C" PRIMARY KEY,
  checked_out boolean NOT NULL DEFAULT false
);

CREATE TABLE IF NOT EXISTS cart_items (
  cart_id    text COLLATE "C" NOT NULL REFERENCES carts (id),
  product_id text COLLATE "C" NOT NULL REFERENCES products (id),
  amount     bigint NOT NULL CHECK (amount > 0),
  PRIMARY KEY (cart_id, product_id)
);

-- What a checkout workflow's activities hold: one row per product whose
-- stock it retracted, one per user it charged. The order id makes each
-- activity idempotent (Temporal runs an activity at least once); its
-- compensation deletes the row and puts the amount back.
CREATE TABLE IF NOT EXISTS reservations (
  order_id   text COLLATE "C" NOT NULL,
  product_id text COLLATE "C" NOT NULL,
  amount     bigint NOT NULL,
  price      integer NOT NULL,
  PRIMARY KEY (order_id, product_id)
);

CREATE TABLE IF NOT EXISTS charges (
  order_id text COLLATE "C" PRIMARY KEY,
  user_id  text COLLATE "C" NOT NULL,
  total    bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS orders (
  id           text COLLATE "C" PRIMARY KEY,
  cart_id      text COLLATE "C" NOT NULL REFERENCES carts (id),
  user_id      text COLLATE "C" NOT NULL REFERENCES users (id),
  status       text NOT NULL CHECK (status IN ('completed', 'failed')),
  total        bigint NOT NULL CHECK (total >= 0),
  failure      text,
  -- set by the co-purchase workflow's activity in the transaction that counts the order's pairs
  co_purchased boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS orders_co_purchase_pending ON orders (created_at) WHERE NOT co_purchased;

-- "Frequently bought together": count[p][q], kept symmetric by the writer.
CREATE TABLE IF NOT EXISTS co_purchase (
  p     text COLLATE "C" NOT NULL,
  q     text COLLATE "C" NOT NULL,
  count bigint NOT NULL CHECK (count > 0),
  PRIMARY KEY (p, q)
);

CREATE INDEX IF NOT EXISTS co_purchase_top ON co_purchase (p, count DESC, q);

-- SPEC 8: /micro/io writes its payload here and reads it back.
CREATE TABLE IF NOT EXISTS micro_io (
  key     text COLLATE "C" PRIMARY KEY,
  payload bytea NOT NULL
);
