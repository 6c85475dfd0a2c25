-- The state of the SPEC 2 application, in the application database's public
-- schema (DBOS keeps its system tables in the schema `dbos` of the same
-- database). Idempotent: run on every start, before DBOS.launch() recovers
-- workflows that use these tables.
-- Ids use the "C" collation so that ORDER BY id is byte order on every
-- server (lock ordering in checkout, the ascending-id tie-break of freq-items).
-- Quantities that are added to (stock, credits, cart amounts, totals, counts)
-- are bigint: 10^9 + many additions of up to 2^31-1 overflow int.

CREATE TABLE IF NOT EXISTS products (
  id    text COLLATE "C" PRIMARY KEY,
  price integer NOT NULL CHECK (price >= 0),
  stock bigint  NOT NULL CHECK (stock >= 0)
);

CREATE TABLE IF NOT EXISTS users (
  id      text COLLATE "C" PRIMARY KEY,
  credits bigint NOT NULL CHECK (credits >= 0)
);

-- checkout_by: the checkout workflow that holds the cart between its first
-- and its last step (NULL when none does); a second checkout of the cart
-- waits for that workflow's result instead of reading the cart at the same time.
CREATE TABLE IF NOT EXISTS carts (
  id          text COLLATE "C" PRIMARY KEY,
  checked_out boolean NOT NULL DEFAULT false,
  checkout_by text
);

CREATE TABLE IF NOT EXISTS cart_items (
  cart_id    text COLLATE "C" NOT NULL REFERENCES carts (id),
  product_id text COLLATE "C" NOT NULL REFERENCES products (id),
  amount     bigint NOT NULL CHECK (amount > 0),
  PRIMARY KEY (cart_id, product_id)
);

CREATE TABLE IF NOT EXISTS orders (
  id         text COLLATE "C" PRIMARY KEY,
  cart_id    text COLLATE "C" NOT NULL REFERENCES carts (id),
  user_id    text COLLATE "C" NOT NULL REFERENCES users (id),
  status     text NOT NULL CHECK (status IN ('completed', 'failed')),
  total      bigint NOT NULL CHECK (total >= 0),
  failure    text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- "Frequently bought together": count[p][q], kept symmetric by the writer.
CREATE TABLE IF NOT EXISTS co_purchase (
  p     text COLLATE "C" NOT NULL,
  q     text COLLATE "C" NOT NULL,
  count bigint NOT NULL CHECK (count > 0),
  PRIMARY KEY (p, q)
);

-- top(p, n, V) reads the first rows of p in this order and skips V.
CREATE INDEX IF NOT EXISTS co_purchase_top ON co_purchase (p, count DESC, q);

-- SPEC 8 microbenchmarks. /micro/io writes its payload here and reads it back.
CREATE TABLE IF NOT EXISTS micro_io (
  key     text COLLATE "C" PRIMARY KEY,
  payload bytea NOT NULL
);

-- What each application transaction run as a DBOS step returned, written in
-- that transaction (steps.ts): a step that committed but whose checkpoint in
-- DBOS's system database was lost to a crash finds its answer here when the
-- recovered workflow runs it again, instead of retracting stock twice. DBOS's
-- datasource packages keep the same record (transaction_completion).
CREATE TABLE IF NOT EXISTS step_outputs (
  workflow_id text COLLATE "C" NOT NULL,
  step        integer NOT NULL,
  output      jsonb NOT NULL,
  PRIMARY KEY (workflow_id, step)
);
